// The interactive renderer on recorded event streams: no terminal, a fake clock, colour off (and on,
// to check that model text cannot smuggle escape sequences through), several widths.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { visibleWidth } from "@mariozechner/pi-tui";
import type { RuntimeEvent, SubagentInfo } from "../../protocol/events.ts";
import { emptyUsage } from "../../protocol/messages.ts";
import { makeTheme } from "./theme.ts";
import { SessionView } from "./view.ts";
import { resultSummary } from "./summary.ts";

const MAIN = "session-main";

function child(id: string, background = false): SubagentInfo {
  return {
    session_id: id,
    subagent_type: "Explore",
    description: "find the config loader",
    background,
    root_agent_id: id,
    resumed_from: null,
    resume_depth: 0,
  };
}

/** A delegating turn as the runtime emits it: text, a Task call, the child's own tool, its end. */
function delegation(): RuntimeEvent[] {
  const c = child("agent-1");
  return [
    { type: "session_started", sessionId: MAIN, agentType: "main", model: "m", depth: 0 },
    { type: "turn_started", sessionId: MAIN, turn: 1 },
    { type: "text_delta", sessionId: MAIN, text: "# Plan\n\nI'll ask **Explore**:\n\n- find" },
    { type: "text_delta", sessionId: MAIN, text: " the `loader`\n" },
    {
      type: "assistant_message",
      sessionId: MAIN,
      message: { role: "assistant", content: [{ type: "text", text: "…" }] },
    },
    {
      type: "tool_started",
      sessionId: MAIN,
      callId: "c1",
      name: "Task",
      input: { subagent_type: "Explore" },
    },
    { type: "subagent_spawned", parentSessionId: MAIN, callId: "c1", subagent: c },
    {
      type: "subagent_event",
      parentSessionId: MAIN,
      agentId: "agent-1",
      event: {
        type: "tool_started",
        sessionId: "agent-1",
        callId: "k1",
        name: "Grep",
        input: { pattern: "load" },
      },
    },
  ];
}

function finish(): RuntimeEvent[] {
  return [
    {
      type: "subagent_completed",
      parentSessionId: MAIN,
      callId: "c1",
      subagent: child("agent-1"),
      state: "completed",
      success: true,
      summary: "It is in lib/config/config.ts.\nMore detail.",
    },
    { type: "tool_completed", sessionId: MAIN, callId: "c1", name: "Task", isError: false, content: "done" },
    {
      type: "tool_started",
      sessionId: MAIN,
      callId: "c2",
      name: "Read",
      input: { file_path: "lib/config/config.ts" },
    },
    {
      type: "tool_completed",
      sessionId: MAIN,
      callId: "c2",
      name: "Read",
      isError: false,
      content: "a\nb\nc",
    },
    { type: "tool_started", sessionId: MAIN, callId: "c3", name: "Bash", input: { command: "rm -rf /" } },
    {
      type: "tool_completed",
      sessionId: MAIN,
      callId: "c3",
      name: "Bash",
      isError: true,
      content: "Permission denied: Bash needs approval",
    },
    { type: "text_delta", sessionId: MAIN, text: "Done." },
    { type: "turn_completed", sessionId: MAIN, turn: 1, usage: emptyUsage() },
  ];
}

function world(color = false) {
  let now = 1_000;
  const view = new SessionView(makeTheme(color), () => now);
  return { view, advance: (ms: number) => (now += ms) };
}

Deno.test("SessionView renders a delegation: Markdown answer, a live child line, then the child's outcome and tool lines", async (t) => {
  const { view, advance } = world();
  view.prompt("Where is the config loaded?");
  view.turnStarted();
  for (const e of delegation()) view.onEvent(e);
  advance(3_200);
  const trimmed = (lines: string[]) => lines.map((l) => l.trimEnd()).join("\n");
  const during = trimmed([...view.log.render(60), "---- live ----", ...view.status.render(60)]);
  await t.assertSnapshot(during, { serializer: (s) => s });
  assert.match(during, /Explore · find the config loader · 3s · Grep\(load\)/);
  for (const e of finish()) view.onEvent(e);
  view.turnEnded();
  assert.deepEqual(view.status.render(60), [], "the live area is empty once everything ended");
  await t.assertSnapshot(trimmed(view.log.render(60)), { serializer: (s) => s });
  // Ctrl-O: the finished child's own tool calls below its outcome line, and back.
  view.toggleExpanded();
  const expanded = view.log.render(100).map((l) => l.trimEnd());
  const at = expanded.findIndex((l) => l.startsWith("↳ Explore completed"));
  assert.match(expanded[at]!, /· 1 tool call · It is in lib/);
  assert.equal(expanded[at + 1], "    Grep(load) · (no result)");
  view.toggleExpanded();
  assert.match(view.log.render(100).find((l) => l.startsWith("↳"))!, /· 1 tool call \(Ctrl-O\) · It is in/);
});

describe("SessionView", () => {
  it("never draws a line wider than the terminal, down to 12 columns", () => {
    for (const width of [12, 20, 33, 80]) {
      const { view } = world(true);
      view.prompt("a very long prompt ".repeat(10));
      view.turnStarted();
      for (const e of [...delegation(), ...finish()]) view.onEvent(e);
      view.print("plain " + "x".repeat(200));
      for (const line of [...view.log.render(width), ...view.status.render(width)]) {
        assert.ok(visibleWidth(line) <= width, `width ${width}: ${JSON.stringify(line)}`);
      }
    }
  });

  it("strips escape sequences from model text, tool input, child summaries and command output", () => {
    const { view } = world(false);
    const evil = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m";
    view.onEvent({ type: "session_started", sessionId: MAIN, agentType: "main", model: "m", depth: 0 });
    view.onEvent({ type: "text_delta", sessionId: MAIN, text: evil });
    view.onEvent({
      type: "tool_started",
      sessionId: MAIN,
      callId: "x",
      name: "Bash",
      input: { command: evil },
    });
    view.onEvent({
      type: "tool_completed",
      sessionId: MAIN,
      callId: "x",
      name: "Bash",
      isError: true,
      content: evil,
    });
    view.onEvent({
      type: "subagent_completed",
      parentSessionId: MAIN,
      callId: "c",
      subagent: { ...child("agent-2"), description: evil },
      state: "failed",
      success: false,
      summary: evil,
    });
    view.output(evil);
    view.notice(evil);
    // deno-lint-ignore no-control-regex
    const escapes = view.log.render(80).filter((l) => /[\x1b\x07]/.test(l.replace(/\x1b\[0m$/, "")));
    assert.deepEqual(escapes, []);
  });

  it("shows a cancelled turn and a failed one differently; ignores a child's own text", () => {
    const { view } = world();
    view.onEvent({ type: "session_started", sessionId: MAIN, agentType: "main", model: "m", depth: 0 });
    view.onEvent({ type: "text_delta", sessionId: "agent-9", text: "child text must not appear" });
    view.onEvent({ type: "turn_aborted", sessionId: MAIN, turn: 1, cause: "cancelled" });
    view.onEvent({ type: "turn_aborted", sessionId: MAIN, turn: 2, cause: "failed", reason: "overloaded" });
    assert.deepEqual(view.log.render(80), [
      "⏹ Interrupted: the turn was cancelled.",
      "✗ The turn failed: overloaded",
    ]);
  });

  it("tells a cancelled child's end once (its outcome line, not the Task error too); a Task refused before any child started shows its error", () => {
    const { view } = world();
    view.onEvent({ type: "session_started", sessionId: MAIN, agentType: "main", model: "m", depth: 0 });
    view.onEvent({ type: "tool_started", sessionId: MAIN, callId: "t1", name: "Task", input: {} });
    view.onEvent({
      type: "subagent_spawned",
      parentSessionId: MAIN,
      callId: "t1",
      subagent: child("agent-4"),
    });
    view.onEvent({
      type: "subagent_completed",
      parentSessionId: MAIN,
      callId: "t1",
      subagent: child("agent-4"),
      state: "cancelled",
      success: false,
      summary: "cancelled",
    });
    const failed = "Subagent execution failed: the agent was cancelled.\nagent_id: agent-4\nResume it with …";
    view.onEvent({
      type: "tool_completed",
      sessionId: MAIN,
      callId: "t1",
      name: "Task",
      isError: true,
      content: failed,
    });
    view.onEvent({ type: "tool_started", sessionId: MAIN, callId: "t2", name: "Task", input: {} });
    view.onEvent({
      type: "tool_completed",
      sessionId: MAIN,
      callId: "t2",
      name: "Task",
      isError: true,
      content: 'Unknown subagent_type "nope". Available: Explore',
    });
    assert.deepEqual(view.log.render(100), [
      "↳ Explore cancelled: find the config loader (0s) · cancelled",
      '✗ Task · Unknown subagent_type "nope". Available: Explore',
    ]);
  });

  it("shows a command's error with its hint below it, not as a second error", () => {
    const { view } = world();
    view.stderr("blade: Unknown command /nope.\n");
    view.stderr("  hint: Type /help for the commands.\n");
    assert.deepEqual(view.log.render(80), [
      "✗ Unknown command /nope.",
      "  hint: Type /help for the commands.",
    ]);
  });

  it("keeps a background child's line live after its Task call returned", () => {
    const { view } = world();
    view.onEvent({
      type: "subagent_spawned",
      parentSessionId: MAIN,
      callId: "b",
      subagent: child("agent-3", true),
    });
    view.onEvent({
      type: "tool_completed",
      sessionId: MAIN,
      callId: "b",
      name: "Task",
      isError: false,
      content: "{}",
    });
    assert.match(
      view.status.render(80).join("\n"),
      /Explore \[bg\] · find the config loader · 0s · thinking/,
    );
    assert.equal(view.runningChildren().length, 1);
  });
});

describe("resultSummary", () => {
  const cases: [string, string, boolean, string][] = [
    ["Read", "a\nb", false, "2 lines"],
    ["Grep", "", false, "0 lines"],
    ["Glob", "x", false, "1 line"],
    ["Bash", "", false, "done"],
    ["Bash", "ok\nmore", false, "ok (+1 lines)"],
    ["Write", "Permission denied: no", true, "Permission denied: no"],
    [
      "Bash",
      '{"task_id":"shell-1","status":"running","message":"Started"}',
      false,
      "running in the background · shell-1",
    ],
    ["Bash", '{"not":"a start"}', false, '{"not":"a start"}'],
  ];
  for (const [name, content, isError, want] of cases) {
    it(`${name} ${JSON.stringify(content)} → ${want}`, () =>
      assert.equal(resultSummary(name, content, isError), want));
  }
});
