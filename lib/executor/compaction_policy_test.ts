import assert from "node:assert/strict";
import { type Message, userText } from "../protocol/messages.ts";
import {
  autoCompactThreshold,
  compactionDue,
  contextTokens,
  contextWindow,
  DEFAULT_COMPACTION,
  keptTailStart,
  promptTooLong,
} from "./compaction_policy.ts";

Deno.test("compaction: the context window of a model, or the one configured", () => {
  const table: [string, number | undefined, number][] = [
    ["claude-sonnet-4-5", undefined, 200_000],
    ["claude-sonnet-4-5[1m]", undefined, 1_000_000],
    ["claude-opus-5-5", undefined, 1_000_000],
    ["claude-haiku-4-5", undefined, 200_000],
    ["my-gateway-model", undefined, 200_000],
    ["claude-opus-5-5", 30_000, 30_000],
  ];
  for (const [model, window, want] of table) {
    assert.equal(contextWindow(model, window === undefined ? {} : { window }), want, model);
  }
});

Deno.test("compaction: Claude Code's threshold — window less the answer's room (≤ 20,000) less 13,000; a percentage only lowers it", () => {
  const table: [number, number, number | undefined, number][] = [
    [200_000, 8_192, undefined, 178_808], // 200,000 − 8,192 − 13,000
    [200_000, 32_000, undefined, 167_000], // the answer's room is capped at 20,000
    [1_000_000, 128_000, undefined, 967_000],
    [200_000, 8_192, 50, 95_904], // 50% of the effective 191,808
    [200_000, 8_192, 95, 178_808], // above the default: the default
    [200_000, 8_192, 0, 178_808], // not a percentage: ignored
    [30_000, 8_192, undefined, 8_808],
    [10_000, 8_192, undefined, 1], // never below one token
  ];
  for (const [window, maxOutputTokens, percent, want] of table) {
    assert.equal(autoCompactThreshold(window, { maxOutputTokens, percent }), want, `${window}/${percent}`);
  }
});

Deno.test("compaction: how full the context is — the last answer's usage plus what came since, else an estimate", () => {
  const since = [userText("x".repeat(400))];
  const whole = () => 777;
  const table: [Parameters<typeof contextTokens>[0]["lastUsage"], number][] = [
    [undefined, 777],
    [{ inputTokens: 0, outputTokens: 5 }, 777],
    [{ inputTokens: 100, outputTokens: 20 }, 100 + 20 + 100],
    [
      { inputTokens: 10, outputTokens: 20, cacheReadInputTokens: 5_000, cacheCreationInputTokens: 300 },
      5_430,
    ],
  ];
  for (const [lastUsage, want] of table) assert.equal(contextTokens({ lastUsage, since, whole }), want);
});

Deno.test("compaction: when it is due", () => {
  const table: [Partial<typeof DEFAULT_COMPACTION>, number, boolean, boolean][] = [
    [{}, 9_000, true, true],
    [{}, 8_999, true, false],
    [{}, 20_000, false, false], // nothing to summarise beyond the kept tail
    [{ auto: false }, 20_000, true, false], // DISABLE_AUTO_COMPACT
    [{ enabled: false, auto: true }, 20_000, true, false], // DISABLE_COMPACT
  ];
  for (const [settings, tokens, summarisable, want] of table) {
    assert.equal(
      compactionDue({
        settings: { ...DEFAULT_COMPACTION, ...settings },
        tokens,
        threshold: 9_000,
        summarisable,
      }),
      want,
      JSON.stringify({ settings, tokens, summarisable }),
    );
  }
});

Deno.test("compaction: which provider errors mean the prompt is too long", () => {
  const table: [string, number | undefined, string, boolean][] = [
    ["invalid_request", 400, "prompt is too long: 210000 tokens > 200000 maximum", true],
    ["invalid_request", 413, "Request exceeds the maximum size", true],
    ["invalid_request", 400, "This model's maximum context length is 128000 tokens", true],
    ["invalid_request", 400, "messages: roles must alternate", false],
    ["server", 500, "prompt is too long", false],
    ["rate_limit", 429, "too many tokens per minute", false],
  ];
  for (const [kind, status, message, want] of table) {
    assert.equal(
      promptTooLong({
        kind: kind as "invalid_request",
        ...(status === undefined ? {} : { status }),
        message,
      }),
      want,
      message,
    );
  }
});

const call = (id: string): Message => ({
  role: "assistant",
  content: [{ type: "tool_call", id, name: "Read", input: { file_path: "a" } }],
});
const result = (id: string, text = "ok"): Message => ({
  role: "user",
  content: [{ type: "tool_result", callId: id, content: text, isError: false }],
});

Deno.test("compaction: the kept tail is the last answer and what follows, unless it is too large or everything", () => {
  const conversation = [userText("go"), call("1"), result("1"), call("2"), result("2")];
  const table: [Message[], number, number][] = [
    [conversation, 1_000, 3], // the last call and its result
    [[...conversation, { role: "assistant", content: [{ type: "text", text: "done" }] }], 1_000, 5],
    [[...conversation.slice(0, 4), result("2", "x".repeat(8_000))], 1_000, 5], // too large: keep nothing
    [[userText("go"), call("1"), result("1")], 1_000, 1],
    [[call("1"), result("1")], 1_000, 2], // the tail would be everything: keep nothing
    [[userText("only")], 1_000, 1],
    [[], 1_000, 0],
  ];
  for (const [messages, max, want] of table) assert.equal(keptTailStart(messages, max), want);
});
