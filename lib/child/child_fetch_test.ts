// Tests for a child Worker's model requests through the main thread: child/proxy_fetch.ts (the
// Worker's fetch) and child_fetch.ts (the main thread's), joined by real MessageChannels, so every
// notice is structured-cloned and every body chunk moved as between the threads. Real loopback
// servers; the HTTP providers run over the pair exactly as in a Worker, and must behave as they do
// over a direct fetch (the provider conformance suite, and the same failures side by side).

import assert from "node:assert/strict";
import { FetchProxy } from "./proxy_fetch.ts";
import type { FetchNotice } from "./child_protocol.ts";
import { ChildFetches, refused } from "./child_fetch.ts";
import { decodeWorkerMessage } from "./child_calls.ts";
import { anthropicEndpoint, anthropicProvider } from "../provider/anthropic.ts";
import { openAiEndpoint, openAiProvider } from "../provider/openai.ts";
import type { HttpEndpoint } from "../provider/http_provider.ts";
import type { Provider } from "../protocol/provider.ts";
import { userText } from "../protocol/messages.ts";
import { realClock } from "../sys/clock.ts";
import { collectEvents, modelRequest } from "../testing/provider_test_kit.ts";
import { type ConformanceCase, providerConformance } from "../testing/provider_conformance.ts";
import { fakeHang, type FakeResponse, fakeSse, fakeStatus, fakeTurn } from "../testing/fake_model_server.ts";
import { startFakeAnthropicServer } from "../testing/fake_anthropic_server.ts";
import { startFakeOpenAiServer } from "../testing/fake_openai_server.ts";

const RETRY = { baseDelayMs: 1, maxDelayMs: 5 };

/** Both halves of one Worker's proxied requests, wired through MessageChannels. */
class ProxyPair implements Disposable {
  readonly proxy: FetchProxy;
  readonly fetches: ChildFetches;
  /** Every notice sent to the "Worker", after its buffers were moved (a moved buffer is detached here). */
  readonly sent: FetchNotice[] = [];
  #toMain = new MessageChannel();
  #toWorker = new MessageChannel();

  constructor(endpoint: () => HttpEndpoint | undefined) {
    this.fetches = new ChildFetches((notice, transfer) => {
      this.#toWorker.port1.postMessage(notice, transfer ?? []);
      this.sent.push(notice);
      return true;
    });
    this.proxy = new FetchProxy((event) => this.#toMain.port1.postMessage(event));
    // What the pool does with a Worker's messages (child_sandbox.ts #receive): decode, then route.
    this.#toMain.port2.onmessage = (e) => {
      const message = decodeWorkerMessage(e.data);
      if ("invalid" in message) throw new Error(message.invalid);
      if (message.kind === "fetch") {
        void this.fetches.start(message.runId, message.id, message.request, endpoint());
      }
      if (message.kind === "fetch_cancel") this.fetches.cancel(message.runId, message.id);
    };
    this.#toWorker.port2.onmessage = (e) => this.proxy.receive(e.data as FetchNotice);
  }

  fetch(runId = 1): typeof fetch {
    return this.proxy.fetchFor(runId);
  }

  [Symbol.dispose](): void {
    this.fetches.endRun();
    for (const c of [this.#toMain, this.#toWorker]) {
      c.port1.close();
      c.port2.close();
    }
  }
}

function harness(
  name: string,
  start: (responses: FakeResponse[]) => { url: string; requests: unknown[]; close(): Promise<void> },
  make: (url: string, fetch: typeof globalThis.fetch) => { provider: Provider; endpoint: HttpEndpoint },
  malformed: FakeResponse,
) {
  const open = (responses: FakeResponse[]): Promise<ConformanceCase> => {
    const server = start(responses);
    const route: { endpoint?: HttpEndpoint } = {};
    const pair = new ProxyPair(() => route.endpoint);
    const made = make(server.url, pair.fetch());
    route.endpoint = made.endpoint;
    return Promise.resolve({
      provider: made.provider,
      requests: () => server.requests.length,
      [Symbol.asyncDispose]: async () => {
        pair[Symbol.dispose]();
        await server.close();
      },
    });
  };
  const read = { name: "Read", input: { file_path: "a.txt" } };
  return {
    name,
    retries: true,
    answering: (text: string) => open([fakeTurn({ text, chunks: 3, toolCalls: [read] })]),
    flaky: (text: string) => open([fakeStatus(503), fakeTurn({ text, chunks: 2 })]),
    hanging: () => open([fakeHang(), fakeHang()]),
    malformed: () => open(Array(5).fill(malformed)),
    malformedKind: "stream",
  };
}

// The Worker's provider has no key; the endpoint (the main thread's) has it.
providerConformance(harness(
  "anthropic through the main thread",
  (r) => startFakeAnthropicServer(r),
  (url, fetch) => ({
    provider: anthropicProvider({ baseUrl: url, clock: realClock(), retry: RETRY, fetch }),
    endpoint: anthropicEndpoint({ baseUrl: url, apiKey: "sk-test" }),
  }),
  fakeSse([{ event: "message_start", data: "{this is not json" }]),
));

providerConformance(harness(
  "openai through the main thread",
  (r) => startFakeOpenAiServer(r),
  (url, fetch) => ({
    provider: openAiProvider({ baseUrl: `${url}/v1`, clock: realClock(), retry: RETRY, fetch }),
    endpoint: openAiEndpoint({ baseUrl: `${url}/v1`, apiKey: "sk-test" }),
  }),
  fakeSse([{ data: "{this is not json" }]),
));

const REQUEST = modelRequest([userText("hello")]);

/** A provider's events without what differs run to run (timings). */
async function outcomeOf(provider: Provider): Promise<unknown[]> {
  const events = await collectEvents(provider.stream(REQUEST));
  return events.map((e) => e.type === "retry" ? { ...e, delayMs: 0 } : e);
}

Deno.test("proxied fetch: failures reach the provider's retry logic as a direct fetch's do", async () => {
  const cases: { name: string; responses: FakeResponse[] }[] = [
    {
      name: "429 with retry-after, then an answer",
      responses: [fakeStatus(429, { headers: { "retry-after-ms": "1" } }), fakeTurn({ text: "ok" })],
    },
    { name: "400 is final", responses: [fakeStatus(400, { message: "bad field" })] },
    { name: "401 is final", responses: [fakeStatus(401)] },
    { name: "529 until it gives up", responses: Array(3).fill(fakeStatus(529)) },
    {
      name: "a stream cut mid-message",
      responses: [fakeTurn({ text: "a long answer cut short", chunks: 4, cutAfterEvents: 4 })],
    },
    {
      name: "an error event mid-stream",
      responses: [fakeTurn({ text: "x", streamError: { type: "api_error", message: "boom" } })],
    },
  ];
  for (const c of cases) {
    const results: unknown[][] = [];
    for (const proxied of [false, true]) {
      await using server = startFakeAnthropicServer(c.responses);
      using pair = new ProxyPair(() => anthropicEndpoint({ baseUrl: server.url, apiKey: "sk-test" }));
      const provider = anthropicProvider({
        baseUrl: server.url,
        clock: realClock(),
        retry: { ...RETRY, maxRetries: 2 },
        ...(proxied ? { fetch: pair.fetch() } : { apiKey: "sk-test" }),
      });
      results.push(await outcomeOf(provider));
      assert.ok(server.requests.every((r) => r.headers["x-api-key"] === "sk-test"), c.name);
      // The provider stops reading at the last event; its cancel reaches the main side a message later.
      await within(waitFor(() => pair.fetches.size === 0), 5_000, `${c.name}: nothing left in flight`);
    }
    assert.deepEqual(results[1], results[0], c.name);
  }
});

Deno.test("proxied fetch: a connection refused reads as a direct fetch's", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${listener.addr.port}`;
  listener.close();
  using pair = new ProxyPair(() => anthropicEndpoint({ baseUrl: url, apiKey: "sk-test" }));
  const make = (fetch?: typeof globalThis.fetch) =>
    anthropicProvider({
      baseUrl: url,
      clock: realClock(),
      retry: { ...RETRY, maxRetries: 1 },
      ...(fetch ? { fetch } : {}),
    });
  const direct = await outcomeOf(make());
  const proxied = await outcomeOf(make(pair.fetch()));
  assert.deepEqual(proxied, direct);
  assert.match(JSON.stringify(direct.at(-1)), /connection refused/);
});

/** A server streaming `chunks` one write each; `hold` keeps the body open after them until the client leaves. */
function chunkServer(chunks: string[], hold = false) {
  const aborted = Promise.withResolvers<void>();
  const encoder = new TextEncoder();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    request.signal.addEventListener("abort", () => aborted.resolve(), { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = chunks.shift();
        if (next !== undefined) return controller.enqueue(encoder.encode(next));
        if (!hold) return controller.close();
        await new Promise<void>((resolve) => {
          timer = setTimeout(resolve, 60_000);
          request.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        clearTimeout(timer);
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/plain", "x-trace": "t-1" } });
  });
  const url = `http://127.0.0.1:${server.addr.port}/v1/messages`;
  const endpoint: HttpEndpoint = { url, headers: { "x-api-key": "k" }, secretHeaders: ["x-api-key"] };
  return { server, url, endpoint, aborted: aborted.promise };
}

const POST = (signal?: AbortSignal): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: "{}",
  ...(signal === undefined ? {} : { signal }),
});

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("proxied fetch: the body's bytes arrive in order, each chunk moved, the head as sent", async () => {
  const parts = Array.from({ length: 40 }, (_, i) => `chunk ${i};`);
  const { server, url, endpoint } = chunkServer([...parts]);
  using pair = new ProxyPair(() => endpoint);
  const response = await pair.fetch()(url, POST());
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-trace"), "t-1");
  assert.equal(await response.text(), parts.join(""));
  const chunks = pair.sent.filter((n) => n.kind === "fetch_chunk");
  assert.ok(chunks.length > 0);
  // Moved, not copied: the main thread's buffers are detached once sent.
  for (const n of chunks) assert.equal(n.kind === "fetch_chunk" && n.chunk.buffer.byteLength, 0);
  assert.equal(pair.sent.at(-1)?.kind, "fetch_end");
  assert.equal(pair.fetches.size, 0);
  await server.shutdown();
});

Deno.test("proxied fetch: cancelling the body or aborting the signal aborts the main thread's fetch", async () => {
  for (const how of ["cancel body", "abort after head", "abort before head"] as const) {
    const { server, url, endpoint, aborted } = chunkServer(["first;"], true);
    using pair = new ProxyPair(() => endpoint);
    const controller = new AbortController();
    const pending = pair.fetch()(url, POST(controller.signal));
    if (how === "abort before head") {
      controller.abort();
      await assert.rejects(pending, { name: "AbortError" });
    } else {
      const response = await pending;
      const reader = response.body!.getReader();
      assert.equal(new TextDecoder().decode((await reader.read()).value), "first;");
      if (how === "cancel body") await reader.cancel();
      else {
        controller.abort();
        await assert.rejects(reader.read(), { name: "AbortError" });
      }
    }
    if (how !== "abort before head") {
      await within(aborted, 5_000, `${how}: the server seeing the client leave`);
    }
    await within(
      waitFor(() => pair.fetches.size === 0),
      5_000,
      `${how}: the main side forgetting the request`,
    );
    assert.equal(pair.proxy.size, 0, how);
    await server.shutdown();
  }
});

Deno.test("proxied fetch: a run's end aborts its requests, never another run's", async () => {
  const first = chunkServer(["a;"], true);
  const second = chunkServer(["b;"], true);
  let endpoint = first.endpoint;
  using pair = new ProxyPair(() => endpoint);
  const one = await pair.fetch(1)(first.url, POST());
  endpoint = second.endpoint;
  const two = await pair.fetch(2)(second.url, POST());
  assert.equal(pair.fetches.size, 2);
  // A run cannot cancel another's request.
  pair.fetches.cancel(2, 1);
  assert.equal(pair.fetches.size, 2);
  pair.fetches.endRun(1);
  await within(first.aborted, 5_000, "run 1's request being aborted");
  assert.equal(pair.fetches.size, 1);
  const reader = two.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "b;");
  await reader.cancel();
  await one.body?.cancel();
  await within(second.aborted, 5_000, "run 2's request ending");
  await Promise.all([first.server.shutdown(), second.server.shutdown()]);
});

Deno.test("proxied fetch: a request for anything but the run's endpoint is refused, saying what and why", async () => {
  const { server, url, endpoint } = chunkServer(["never;"]);
  let current: HttpEndpoint | undefined = endpoint;
  using pair = new ProxyPair(() => current);
  const other = url.replace("/v1/messages", "/v1/other?key=secret");
  await assert.rejects(pair.fetch()(other, POST()), (e: Error) => {
    assert.equal(e.name, "NotCapable");
    assert.match(e.message, /^Refused the child's POST request to http:\/\/127\.0\.0\.1:\d+\/v1\/other: /);
    assert.match(e.message, /only POST requests to its provider's endpoint/);
    assert.doesNotMatch(e.message, /secret/);
    return true;
  });
  await assert.rejects(pair.fetch()(url, { method: "GET" }), /Refused the child's GET request/);
  current = undefined;
  await assert.rejects(pair.fetch()(url, POST()), /its provider makes no HTTP requests/);
  assert.equal(pair.fetches.size, 0);
  await server.shutdown();
  // The provider over a refusing proxy fails at once, without retrying, and says why.
  using refusing = new ProxyPair(() => undefined);
  const provider = anthropicProvider({
    baseUrl: "http://127.0.0.1:9",
    clock: realClock(),
    retry: RETRY,
    fetch: refusing.fetch(),
  });
  const events = await collectEvents(provider.stream(REQUEST));
  assert.deepEqual(events.map((e) => e.type), ["request_started", "error"]);
  const last = events.at(-1);
  assert.ok(last?.type === "error");
  assert.equal(last.error.kind, "invalid_request");
  assert.match(last.error.message, /Anthropic API request was refused.*Refused the child's POST request/s);
});

Deno.test("refused: only POST to the endpoint's exact URL passes", () => {
  const endpoint: HttpEndpoint = { url: "https://api.example/v1/messages", headers: {}, secretHeaders: [] };
  const body = { headers: {}, body: "" };
  assert.equal(refused({ url: endpoint.url, method: "POST", ...body }, endpoint), undefined);
  for (
    const url of [
      "https://api.example/v1/messages/",
      "https://api.example:444/v1/messages",
      "http://api.example/v1/messages",
      "https://api.example/v1/messages?x=1",
    ]
  ) {
    assert.match(refused({ url, method: "POST", ...body }, endpoint) ?? "", /^Refused/, url);
  }
  assert.match(refused({ url: endpoint.url, method: "PUT", ...body }, endpoint) ?? "", /PUT request/);
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
