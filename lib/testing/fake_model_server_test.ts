import assert from "node:assert/strict";
import { parseSse } from "../provider/sse.ts";
import {
  fakeHang,
  fakeStatus,
  fakeTurn,
  fromScriptTurn,
  startFakeAnthropicServer,
} from "./fake_anthropic_server.ts";
import { startFakeOpenAiServer } from "./fake_openai_server.ts";

const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: signal ?? null,
  });

Deno.test("fake server: records requests, answers in order, then says the queue is empty", async () => {
  await using server = startFakeAnthropicServer([
    fakeStatus(418, { body: "teapot", headers: { "x-a": "1" } }),
  ]);
  const first = await post(`${server.url}/v1/messages`, { model: "m" });
  assert.deepEqual([first.status, await first.text(), first.headers.get("x-a")], [418, "teapot", "1"]);
  const second = await post(`${server.url}/v1/messages`, { model: "m" });
  assert.equal(second.status, 400);
  assert.match(await second.text(), /no scripted response left for request 2 \(1 were scripted\)/);
  const other = await post(`${server.url}/v1/other`, {});
  assert.equal(other.status, 404);
  await other.body?.cancel();
  assert.deepEqual(server.requests.map((r) => [r.method, r.path, r.body]), [
    ["POST", "/v1/messages", { model: "m" }],
    ["POST", "/v1/messages", { model: "m" }],
    ["POST", "/v1/other", {}],
  ]);
  assert.equal(server.requests[0]?.headers["content-type"], "application/json");
});

Deno.test("fake server: a handler decides; push adds responses; close ends hangs and is idempotent", async () => {
  const server = startFakeOpenAiServer({
    handler: (request, index) => index === 0 ? new Response(request.path) : fakeHang(),
  });
  assert.equal(await (await post(`${server.url}/v1/chat/completions`, {})).text(), "/v1/chat/completions");
  const hanging = post(`${server.url}/v1/chat/completions`, {});
  while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 1));
  await server.close();
  await server.close();
  const response = await hanging;
  assert.equal(response.status, 503);
  await response.body?.cancel();

  await using queued = startFakeOpenAiServer();
  queued.push(fakeTurn({ text: "hi" }));
  const events = [];
  for await (
    const e of parseSse((await post(`${queued.url}/v1/chat/completions`, { model: "gpt-x" })).body!)
  ) {
    events.push(e.data);
  }
  assert.equal(events.at(-1), "[DONE]");
  assert.equal(JSON.parse(events[0]!).model, "gpt-x");
});

Deno.test("fromScriptTurn: maps scripted turns to wire responses", () => {
  assert.deepEqual(
    fromScriptTurn({
      text: "hi",
      chunks: 2,
      tool_calls: [{ name: "Edit", raw_arguments: "{" }],
      usage: { input_tokens: 3 },
    }),
    {
      kind: "turn",
      text: "hi",
      chunks: 2,
      toolCalls: [{ name: "Edit", rawArguments: "{" }],
      usage: { inputTokens: 3 },
    },
  );
  assert.deepEqual(fromScriptTurn({ error: { kind: "rate_limit", message: "slow" } }), {
    kind: "status",
    status: 429,
    message: "slow",
  });
});
