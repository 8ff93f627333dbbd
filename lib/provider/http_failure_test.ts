import assert from "node:assert/strict";
import { connectFailure, displayUrl, statusFailure } from "./http_failure.ts";

const response = (status: number, headers: Record<string, string> = {}) =>
  new Response(null, { status, headers });

Deno.test("statusFailure: kinds and retryability by status, body and x-should-retry", () => {
  const cases: [number, string, Record<string, string>, string, boolean][] = [
    [
      400,
      '{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}',
      {},
      "invalid_request",
      false,
    ],
    [401, "", {}, "auth", false],
    [403, "", {}, "auth", false],
    [404, '{"detail":"model not found"}', {}, "invalid_request", false],
    [408, "", {}, "timeout", true],
    [409, "", { "x-should-retry": "true" }, "invalid_request", true],
    [429, "", {}, "rate_limit", true],
    [500, '{"error":{"type":"overloaded_error","message":"Overloaded"}}', {}, "overloaded", true],
    [503, "", { "x-should-retry": "false" }, "server", false],
    [529, "", {}, "overloaded", true],
  ];
  for (const [status, body, headers, kind, retryable] of cases) {
    const failure = statusFailure(response(status, headers), { label: "Test API", body: body, now: 0 });
    assert.deepEqual(
      [failure.kind, failure.retryable, failure.status],
      [kind, retryable, status],
      `status ${status}`,
    );
  }
  assert.deepEqual(
    statusFailure(response(404), { label: "Test API", body: '{"detail":"model not found"}', now: 0 }),
    {
      kind: "invalid_request",
      summary: "Test API returned 404 Not Found",
      detail: "model not found",
      status: 404,
      api: { message: "model not found" },
      retryable: false,
    },
  );
  assert.equal(
    statusFailure(response(429, { "retry-after": "3" }), { label: "Test API", body: "", now: 0 })
      .retryAfterMs,
    3000,
  );
});

Deno.test("displayUrl and connectFailure keep credentials and query strings out of messages", () => {
  assert.equal(
    displayUrl("https://user:pw@proxy.example/v1/messages?api-key=SECRET"),
    "https://proxy.example/v1/messages",
  );
  const url = "http://127.0.0.1:1/v1/messages?key=SECRET";
  const failure = connectFailure(
    new TypeError("fetch failed", {
      cause: new Error(`error sending request for url (${url}): Connection refused`),
    }),
    {
      label: "Test API",
      url,
    },
  );
  assert.deepEqual(failure, {
    kind: "network",
    summary: "Could not connect to Test API at http://127.0.0.1:1/v1/messages (connection refused)",
    retryable: true,
  });
  const unknown = connectFailure(
    new TypeError("fetch failed", { cause: new Error(`tls handshake with ${url}`) }),
    {
      label: "Test API",
      url,
    },
  );
  assert.ok(!JSON.stringify(unknown).includes("SECRET"));
  assert.equal(unknown.detail, "fetch failed: tls handshake with http://127.0.0.1:1/v1/messages");
});
