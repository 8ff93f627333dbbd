// Fault suite, model server: the real CLI (`blade -p`, stream-json) against the loopback fake Anthropic
// server (lib/testing/fake_anthropic_server.ts) misbehaving as real ones do — 429 with retry-after, 500/529
// bursts, 529 past the retries, a stream cut in the middle of an event (before and after text reached
// the user), malformed SSE, invalid JSON in a tool call's arguments, a stream that stalls for a minute and
// a server that never answers (short configured timeouts stand in for the 60 s: the suite does not wait
// them out). After each: a successful recovery (the answer arrives after retries) or one clear error
// (exit 1, is_error, no stack), transcripts without a torn or bad line, and the next run of the same
// session works against a healthy server.

import assert from "node:assert/strict";
import { type BladeResult, type BladeSandbox, bladeSandbox } from "../support/blade.ts";
import { mainSessionId, transcripts } from "../support/crash.ts";
import {
  fakeHang,
  type FakeResponse,
  fakeSse,
  fakeStatus,
  fakeTurn,
  startFakeAnthropicServer,
} from "../../lib/testing/fake_anthropic_server.ts";
import { parseTranscript } from "../../lib/session/transcript.ts";
import { printSummary } from "./summary.ts";

/** A raw SSE body that stops in the middle of an event (half a `data:` line, no blank line). */
function cutMidEvent(afterText: boolean): Response {
  const start = `event: message_start\ndata: ${
    JSON.stringify({
      type: "message_start",
      message: {
        id: "msg_cut",
        type: "message",
        role: "assistant",
        content: [],
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    })
  }\n\n`;
  const text = afterText
    ? `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n` +
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Half an ans"}}\n\n`
    : "";
  const torn = `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"del`;
  return new Response(start + text + torn, { headers: { "content-type": "text/event-stream" } });
}

interface Case {
  name: string;
  /** The server's answers in order (a Response is sent as it is). */
  answers: (FakeResponse | Response)[];
  env?: Record<string, string>;
  /** Blade's own config.json in the storage root (short timeouts). */
  config?: Record<string, unknown>;
  /** Success: the final answer. Failure: a pattern of the error message. */
  expect: { result: string; requests: number; retryDelays?: number[] } | { error: RegExp; requests: number };
  /** Checks on the requests the server saw. */
  check?: (bodies: unknown[]) => void;
}

const OK = fakeTurn({ text: "all good" });

const CASES: Case[] = [
  {
    name: "429 with retry-after is waited out, then answered",
    answers: [fakeStatus(429, { message: "rate limited", headers: { "retry-after": "1" } }), OK],
    expect: { result: "all good", requests: 2, retryDelays: [1000] },
  },
  {
    name: "a burst of 500, 529, 500 is retried through",
    answers: [
      fakeStatus(500, { headers: { "retry-after-ms": "20" } }),
      fakeStatus(529, { message: "Overloaded", headers: { "retry-after-ms": "20" } }),
      fakeStatus(500, { headers: { "retry-after-ms": "20" } }),
      OK,
    ],
    expect: { result: "all good", requests: 4, retryDelays: [20, 20, 20] },
  },
  {
    name: "529 past the retries is one clear error",
    answers: [0, 1, 2].map(() =>
      fakeStatus(529, { message: "Overloaded", headers: { "retry-after-ms": "10" } })
    ),
    env: { CLAUDE_CODE_MAX_RETRIES: "2" },
    expect: { error: /529|[Oo]verloaded/, requests: 3 },
  },
  {
    name: "a stream cut mid-event before any text is retried",
    answers: [cutMidEvent(false), OK],
    expect: { result: "all good", requests: 2 },
  },
  {
    name: "a stream cut mid-event after text reached the user is one clear error",
    answers: [cutMidEvent(true)],
    expect: { error: /stream ended|cut|before message_stop/, requests: 1 },
  },
  {
    name: "malformed SSE is retried",
    answers: [fakeSse([{ event: "message_start", data: "{this is not json" }]), OK],
    expect: { result: "all good", requests: 2 },
  },
  {
    name: "malformed SSE on every attempt is one clear error",
    answers: [0, 1, 2].map(() => fakeSse([{ event: "message_start", data: "{this is not json" }])),
    env: { CLAUDE_CODE_MAX_RETRIES: "2" },
    expect: { error: /malformed "message_start" event/, requests: 3 },
  },
  {
    name: "invalid JSON in a tool call's arguments goes back to the model as an error result",
    answers: [
      fakeTurn({ toolCalls: [{ name: "Read", rawArguments: '{"file_path": "a.txt", ' }] }),
      fakeTurn({ text: "fixed my call" }),
    ],
    expect: { result: "fixed my call", requests: 2 },
    check: (bodies) => {
      const last = JSON.stringify(bodies.at(-1));
      assert.match(last, /"is_error":true/, "the bad call's result is an error");
      assert.match(last, /JSON|json/, "it says the arguments were not valid JSON");
    },
  },
  {
    name: "a child whose model stays overloaded fails clearly and the parent goes on",
    answers: [
      fakeTurn({
        toolCalls: [{
          name: "Task",
          input: { subagent_type: "general-purpose", description: "ask", prompt: "Answer this question." },
        }],
      }),
      fakeStatus(529, { message: "Overloaded", headers: { "retry-after-ms": "10" } }),
      fakeStatus(529, { message: "Overloaded", headers: { "retry-after-ms": "10" } }),
      OK,
    ],
    env: { CLAUDE_CODE_MAX_RETRIES: "1" },
    expect: { result: "all good", requests: 4 },
    check: (bodies) => {
      const last = JSON.stringify(bodies.at(-1));
      assert.match(
        last,
        /Subagent execution failed: [^"]*(529|[Oo]verloaded)/,
        "the child's failure says why",
      );
    },
  },
  {
    name: "a stream that stalls for a minute times out (idle timeout) and is retried",
    answers: [fakeTurn({ text: "never finished", stallAfterEvents: 2 }), OK],
    config: { streamIdleTimeoutMs: 800 },
    expect: { result: "all good", requests: 2 },
  },
  {
    name: "a server that never answers times out (API_TIMEOUT_MS) and is retried",
    answers: [fakeHang(), OK],
    env: { API_TIMEOUT_MS: "800" },
    expect: { result: "all good", requests: 2 },
  },
];

function streamLines(r: BladeResult): Record<string, unknown>[] {
  return r.stdout.trim().split("\n").filter((l) => l !== "").map((l) =>
    JSON.parse(l) as Record<string, unknown>
  );
}

async function badTranscriptLines(sandbox: BladeSandbox): Promise<number> {
  let bad = 0;
  for (const text of (await transcripts(sandbox)).values()) bad += parseTranscript(text).diagnostics.length;
  return bad;
}

const tally = { cases: 0, recovered: 0, clearErrors: 0, badLines: 0, nextRunOk: 0 };

for (const c of CASES) {
  Deno.test(`model server fault: ${c.name}`, async () => {
    await using sandbox = await bladeSandbox();
    const answers = [...c.answers];
    await using server = startFakeAnthropicServer({
      handler: (request) => {
        if (request.path !== "/v1/messages") return new Response("not found", { status: 404 });
        return answers.shift() ?? fakeTurn({ text: "next run answer" });
      },
    });
    if (c.config !== undefined) {
      await Deno.mkdir(sandbox.storage, { recursive: true });
      await Deno.writeTextFile(`${sandbox.storage}/config.json`, JSON.stringify(c.config));
    }
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fault-test", ...c.env };
    const args = ["--output-format", "stream-json", "--verbose"];
    const run = await sandbox.run(["-p", "Say something.", ...args], { env });
    assert.doesNotMatch(run.stderr, /internal error|\n\s+at /, run.stderr);
    const lines = streamLines(run);
    const result = lines.find((l) => l.type === "result");
    const messages = server.requests.filter((r) => r.path === "/v1/messages");
    assert.equal(messages.length, c.expect.requests, `requests: ${run.stdout}\n${run.stderr}`);
    if ("result" in c.expect) {
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal(result?.is_error, false);
      assert.equal(result?.result, c.expect.result);
      if (c.expect.retryDelays !== undefined) {
        const delays = lines.filter((l) => l.subtype === "api_retry").map((l) => l.retry_delay_ms);
        assert.deepEqual(delays, c.expect.retryDelays, "the server's retry-after is what Blade waited");
      }
      tally.recovered++;
    } else {
      assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
      assert.equal(result?.is_error, true);
      const error = result?.error as { code?: string; message?: string } | undefined;
      assert.match(error?.message ?? "", c.expect.error);
      assert.doesNotMatch(error?.message ?? "", /\n\s+at /);
      tally.clearErrors++;
    }
    c.check?.(messages.map((m) => m.body));
    const bad = await badTranscriptLines(sandbox);
    tally.badLines += bad;
    assert.equal(bad, 0, "no torn or bad transcript line");
    // The server is healthy again: the same session goes on.
    const session = await mainSessionId(sandbox);
    assert.ok(session !== undefined);
    const next = await sandbox.run(["-p", "Again.", "--resume", session, ...args], { env });
    assert.equal(next.code, 0, `${next.stdout}\n${next.stderr}`);
    assert.equal(streamLines(next).find((l) => l.type === "result")?.result, "next run answer");
    assert.equal(await badTranscriptLines(sandbox), 0);
    tally.nextRunOk++;
    if (++tally.cases === CASES.length) {
      printSummary("model server", [
        `${tally.cases} cases`,
        `recovered ${tally.recovered}, clear errors ${tally.clearErrors}`,
        `bad transcript lines ${tally.badLines}, next run ok ${tally.nextRunOk}`,
      ]);
    }
  });
}
