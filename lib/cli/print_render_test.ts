import assert from "node:assert/strict";
import { captureIo, type Io } from "./io.ts";
import { bladeEventLine, textRenderer } from "./print_render.ts";
import { claudeResult } from "./claude_result.ts";
import { RunLedger } from "./run_ledger.ts";
import type { SubagentInfo } from "../protocol/events.ts";

/** Any control character a terminal could act on (newline and tab kept). */
const RAW_CONTROL = new RegExp(String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f]`);

function ttyIo(): Io & { chunks: string[] } {
  const chunks: string[] = [];
  return { out: (t) => void chunks.push(t), err: () => {}, color: false, tty: true, chunks };
}

const child: SubagentInfo = {
  session_id: "agent-1",
  subagent_type: "Explore",
  description: "Find the greeting",
  background: false,
  root_agent_id: "agent-1",
  resumed_from: null,
  resume_depth: 0,
};

Deno.test("on a terminal, each running subagent has a status line that follows its tool and is cleared", () => {
  const io = ttyIo();
  let t = 0;
  const r = textRenderer(io, { live: true, mainSessionId: () => "main", now: () => t });
  r.onEvent({ type: "subagent_spawned", parentSessionId: "main", callId: "c1", subagent: child });
  assert.equal(io.chunks.at(-1), "  ⠿ Explore · Find the greeting · 0s · thinking\n");
  t = 3_200;
  r.onEvent({
    type: "subagent_event",
    parentSessionId: "main",
    agentId: "agent-1",
    event: {
      type: "tool_started",
      sessionId: "agent-1",
      callId: "x",
      name: "Grep",
      input: { pattern: "Helo" },
    },
  });
  assert.deepEqual(io.chunks.slice(-2), [
    "\x1b[1F\x1b[J",
    "  ⠿ Explore · Find the greeting · 3s · Grep(Helo)\n",
  ]);
  r.onEvent({
    type: "subagent_completed",
    parentSessionId: "main",
    callId: "c1",
    subagent: child,
    state: "completed",
    success: true,
    summary: "found it",
  });
  assert.deepEqual(io.chunks.slice(-2), ["\x1b[1F\x1b[J", "  ↳ Explore completed: found it\n"]);
  r.finish({
    sessionId: "main",
    status: "completed",
    result: "done",
    numTurns: 1,
    toolCalls: 1,
    usage: { inputTokens: 1, outputTokens: 1 },
    durationMs: 1,
  });
  assert.ok(!io.chunks.at(-1)!.includes("⠿"));
});

Deno.test("status lines never split a streamed line of the answer", () => {
  const io = ttyIo();
  const r = textRenderer(io, { live: true, mainSessionId: () => "main", now: () => 0 });
  r.onEvent({ type: "subagent_spawned", parentSessionId: "main", callId: "c1", subagent: child });
  r.onEvent({ type: "text_delta", sessionId: "main", text: "half a li" });
  assert.deepEqual(io.chunks.slice(-2), ["\x1b[1F\x1b[J", "half a li"]);
  r.onEvent({ type: "text_delta", sessionId: "main", text: "ne\n" });
  assert.deepEqual(io.chunks.slice(-2), ["ne\n", "  ⠿ Explore · Find the greeting · 0s · thinking\n"]);
});

Deno.test("without a terminal nothing live is drawn and the answer is printed once at the end", () => {
  const chunks: string[] = [];
  const io: Io = { out: (t) => void chunks.push(t), err: () => {}, color: false, tty: false };
  const r = textRenderer(io, { live: false });
  r.onEvent({ type: "subagent_spawned", parentSessionId: "main", callId: "c1", subagent: child });
  r.onEvent({ type: "text_delta", sessionId: "main", text: "streamed" });
  r.finish({
    sessionId: "main",
    status: "completed",
    result: "the answer",
    numTurns: 1,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  });
  assert.deepEqual(chunks, ["the answer\n"]);
});

Deno.test("blade-events subagent lines carry the lineage fields", () => {
  const line = JSON.parse(bladeEventLine({
    type: "subagent_completed",
    parentSessionId: "main",
    callId: "c1",
    subagent: child,
    state: "failed",
    success: false,
    summary: "failed: boom",
  }));
  assert.deepEqual(line, {
    type: "subagent",
    state: "failed",
    parent_session_id: "main",
    tool_use_id: "c1",
    success: false,
    summary: "failed: boom",
    ...child,
  });
});

Deno.test("json result: a max-turns run is is_error, error_max_turns, and carries the error text in result", () => {
  const ledger = new RunLedger();
  ledger.add({
    type: "assistant_message",
    sessionId: "s",
    message: { role: "assistant", content: [{ type: "text", text: "hi" }] },
    model: "claude-sonnet-4-5",
    stopReason: "tool_use",
    usage: { inputTokens: 1_000_000, outputTokens: 0 },
    apiMs: 12,
  });
  const r = claudeResult(
    {
      sessionId: "s",
      status: "failed",
      result: "",
      error: { code: "max_turns_exceeded", message: "too many" },
      numTurns: 3,
      toolCalls: 2,
      usage: { inputTokens: 5, outputTokens: 6 },
      durationMs: 7,
    },
    ledger,
    "u",
  );
  assert.equal(r.is_error, true);
  assert.equal(r.subtype, "error_max_turns");
  assert.equal(r.result, "too many");
  assert.deepEqual(r.errors, ["too many"]);
  assert.equal(r.stop_reason, "tool_use");
  assert.equal(r.duration_api_ms, 12);
  assert.equal(r.total_cost_usd, 3);
  assert.equal((r.usage as Record<string, unknown>).input_tokens, 5);
  assert.deepEqual(r.error, { code: "max_turns_exceeded", message: "too many" });
});

Deno.test("json result: a model without a price row costs 0 and says cost_unknown", () => {
  const ledger = new RunLedger();
  ledger.add({
    type: "assistant_message",
    sessionId: "s",
    message: { role: "assistant", content: [] },
    model: "local-llm",
    usage: { inputTokens: 10, outputTokens: 10 },
  });
  const r = claudeResult(
    {
      sessionId: "s",
      status: "completed",
      result: "ok",
      numTurns: 1,
      toolCalls: 0,
      usage: { inputTokens: 10, outputTokens: 10 },
      durationMs: 1,
    },
    ledger,
    "u",
  );
  assert.equal(r.total_cost_usd, 0);
  assert.equal(r.cost_unknown, true);
  assert.deepEqual(r.cost_unknown_models, ["local-llm"]);
});

/** Model-controlled text that tries to talk to the terminal, and what must be left of it. */
const HOSTILE: [string, string, string][] = [
  ["OSC 52 clipboard write", "a\x1b]52;c;cm0gLXJmIH4=\x07b", "ab"],
  ["OSC 0 window title", "a\x1b]0;pwned\x07b", "ab"],
  ["OSC 2 window title ended by ST", "a\x1b]2;pwned\x1b\\b", "ab"],
  ["clear screen and home", "a\x1b[2J\x1b[Hb", "ab"],
  ["cursor movement that rewrites earlier lines", "a\x1b[3A\x1b[2Kb\x1b[10;20H", "ab"],
  ["C1 CSI and C1 OSC", "a\x9b2Jb\x9d0;t\x9c", "ab"],
  ["a carriage return that overwrites the line", "ok\rEVIL", "okEVIL"],
];

function plainTty() {
  const io = { ...captureIo(), tty: true };
  return { ...io, text: io.stdout, errText: io.stderr };
}

for (const [name, input, want] of HOSTILE) {
  Deno.test(`text output on a terminal drops ${name} from the answer, tool lines and child lines`, () => {
    const io = plainTty();
    const r = textRenderer(io, { live: true, mainSessionId: () => "main", now: () => 0 });
    r.onEvent({ type: "text_delta", sessionId: "main", text: `${input}\n` });
    r.onEvent({
      type: "tool_started",
      sessionId: "main",
      callId: "t",
      name: `Ba${input}`,
      input: { command: input },
    });
    r.onEvent({
      type: "tool_completed",
      sessionId: "main",
      callId: "t",
      name: "Bash",
      isError: false,
      content: input,
    });
    const hostileChild = { ...child, subagent_type: input, description: input };
    r.onEvent({ type: "subagent_spawned", parentSessionId: "main", callId: "c", subagent: hostileChild });
    r.onEvent({
      type: "subagent_completed",
      parentSessionId: "main",
      callId: "c",
      subagent: hostileChild,
      state: "failed",
      success: false,
      summary: input,
    });
    r.finish({
      sessionId: "main",
      status: "failed",
      result: input,
      error: { code: "subagent_failed", message: input },
      numTurns: 1,
      toolCalls: 1,
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 0,
    });
    // Blade's own status-area control sequences are the only escapes left (none without children).
    const printed = io.text().replaceAll("\x1b[1F\x1b[J", "");
    assert.doesNotMatch(printed, RAW_CONTROL);
    assert.doesNotMatch(io.errText(), RAW_CONTROL);
    assert.ok(printed.startsWith(`${want}\n`), JSON.stringify(printed));
    assert.ok(printed.includes(`Ba${want}(${want})`), JSON.stringify(printed));
    assert.ok(printed.includes(`${want} started: ${want}`), JSON.stringify(printed));
    assert.equal(io.errText(), `blade: ${want}\n`);
  });
}

Deno.test("text output not on a terminal is made safe too (it is for reading; json keeps the bytes)", () => {
  const chunks: string[] = [];
  const io: Io = { out: (t) => void chunks.push(t), err: () => {}, color: false, tty: false };
  const r = textRenderer(io, { live: false });
  r.finish({
    sessionId: "main",
    status: "completed",
    result: "see \x1b]52;c;ZXZpbA==\x07this\x1b[2J",
    numTurns: 1,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  });
  assert.deepEqual(chunks, ["see this\n"]);
});

Deno.test("an escape sequence split across two streamed deltas still never reaches the terminal", () => {
  const io = plainTty();
  const r = textRenderer(io, { live: true, mainSessionId: () => "main", now: () => 0 });
  r.onEvent({ type: "text_delta", sessionId: "main", text: "a\x1b" });
  r.onEvent({ type: "text_delta", sessionId: "main", text: "]0;title\x07b\x9b" });
  r.onEvent({ type: "text_delta", sessionId: "main", text: "2Jc\n" });
  assert.doesNotMatch(io.text(), RAW_CONTROL);
  assert.equal(io.text(), "a]0;titleb2Jc\n");
});
