import assert from "node:assert/strict";
import type { NewTranscriptEvent, SubtaskRefPart, TranscriptEvent } from "../protocol/events.ts";
import type { ContentBlock, Message } from "../protocol/messages.ts";
import { rebuildHistory, repairDanglingToolCalls } from "./history.ts";

const INTERRUPTED =
  "Interrupted: this tool call did not finish (the run stopped); its side effects are uncertain.";

/** Envelopes around `events`, numbered like a transcript would. */
function transcript(events: NewTranscriptEvent[]): TranscriptEvent[] {
  return events.map((e, i) =>
    ({
      seq: i + 1,
      id: `evt-${i + 1}`,
      sessionId: "session-1",
      projectPath: "/work",
      timestamp: "2026-01-01T00:00:00.000Z",
      ...e,
    }) as TranscriptEvent
  );
}

let nextMessage = 0;
/** message_created plus one part_created per block. */
function message(
  role: Message["role"],
  blocks: (ContentBlock | SubtaskRefPart)[],
  extra: { hidden?: true; inboxId?: string; final?: true } = {},
): NewTranscriptEvent[] {
  const messageId = `msg-${++nextMessage}`;
  return [
    { type: "message_created", data: { messageId, role, ...extra } },
    ...blocks.map((part, i): NewTranscriptEvent => ({
      type: "part_created",
      data: { messageId, partId: `${messageId}-${i}`, part },
    })),
  ];
}

const call = (id: string, name = "Read"): ContentBlock => ({
  type: "tool_call",
  id,
  name,
  input: { path: "a" },
});
const result = (callId: string, content = "ok"): ContentBlock => ({
  type: "tool_result",
  callId,
  content,
  isError: false,
});
const text = (t: string): ContentBlock => ({ type: "text", text: t });

function subtask(callId: string, state: SubtaskRefPart["state"]): SubtaskRefPart {
  return {
    type: "subtask_ref",
    callId,
    agentId: "agent-1",
    subagentType: "Explore",
    description: "Look around",
    background: false,
    state,
    lineage: { rootAgentId: "agent-1", resumeDepth: 0 },
  };
}

Deno.test("a finished turn rebuilds to its messages; header, turns and the last terminal event are read", () => {
  const h = rebuildHistory(transcript([
    { type: "session_created", data: { agentType: "main", model: "m", depth: 0 } },
    { type: "turn_started", data: { turn: 1 } },
    ...message("user", [text("read a")]),
    ...message("assistant", [call("c1")]),
    ...message("user", [result("c1", "contents")]),
    ...message("assistant", [text("done")], { final: true }),
    {
      type: "turn_completed",
      data: { turn: 1, turns: 2, toolCalls: 1, durationMs: 5, usage: { inputTokens: 1, outputTokens: 1 } },
    },
  ]));
  assert.deepEqual(h.header, { agentType: "main", model: "m", depth: 0 });
  assert.deepEqual(h.messages, [
    { role: "user", content: [text("read a")] },
    { role: "assistant", content: [call("c1")] },
    { role: "user", content: [result("c1", "contents")] },
    { role: "assistant", content: [text("done")] },
  ]);
  assert.equal(h.openTurn, undefined);
  assert.equal(h.turns, 1);
  assert.equal(h.lastTerminal, "turn_completed");
  assert.equal(h.finalizedOpenTurn, undefined);
});

Deno.test("crash repair: calls persisted without results get an interrupted error result", () => {
  const h = rebuildHistory(transcript([
    { type: "turn_started", data: { turn: 1 } },
    ...message("user", [text("go")]),
    ...message("assistant", [text("two reads"), call("c1"), call("c2")]),
    // The crash came after the calls were persisted and before their results were.
  ]));
  assert.equal(h.openTurn, 1);
  assert.equal(h.lastTerminal, undefined);
  assert.deepEqual(h.messages.at(-1), {
    role: "user",
    content: [
      { type: "tool_result", callId: "c1", content: INTERRUPTED, isError: true },
      { type: "tool_result", callId: "c2", content: INTERRUPTED, isError: true },
    ],
  });
});

Deno.test("crash repair: a partly answered call batch keeps its results and gains the missing ones first", () => {
  const repaired = repairDanglingToolCalls([
    { role: "assistant", content: [call("c1"), call("c2")] },
    { role: "user", content: [result("c2")] },
    { role: "assistant", content: [text("after")] },
  ]);
  assert.deepEqual(repaired, [
    { role: "assistant", content: [call("c1"), call("c2")] },
    {
      role: "user",
      content: [{ type: "tool_result", callId: "c1", content: INTERRUPTED, isError: true }, result("c2")],
    },
    { role: "assistant", content: [text("after")] },
  ]);
  const complete = [{ role: "assistant" as const, content: [call("c1")] }, {
    role: "user" as const,
    content: [result("c1")],
  }];
  assert.deepEqual(repairDanglingToolCalls(complete), complete);
});

Deno.test("an open turn whose final message carries the receipt is reported as finalized", () => {
  const h = rebuildHistory(transcript([
    { type: "turn_started", data: { turn: 2 } },
    ...message("user", [text("again")]),
    ...message("assistant", [text("the answer")], { final: true }),
  ]));
  assert.equal(h.openTurn, 2);
  assert.equal(h.finalizedOpenTurn, 2);
  const later = rebuildHistory(transcript([
    { type: "turn_started", data: { turn: 2 } },
    ...message("assistant", [text("the answer")], { final: true }),
    ...message("assistant", [call("c9")]),
  ]));
  assert.equal(later.finalizedOpenTurn, undefined, "a later assistant message without the receipt clears it");
});

Deno.test("subtask refs: the latest state per call wins, and a terminal state is never downgraded", () => {
  const h = rebuildHistory(transcript([
    ...message("assistant", [call("t1", "Task"), subtask("t1", "running")]),
    ...message("user", [result("t1"), subtask("t1", "completed")]),
    ...message("assistant", [subtask("t1", "running")]),
  ]));
  assert.equal(h.subtasks.get("t1")?.state, "completed");
  // subtask_ref parts are bookkeeping, not conversation: no message is left holding only them.
  assert.deepEqual(h.messages, [
    { role: "assistant", content: [call("t1", "Task")] },
    { role: "user", content: [result("t1")] },
  ]);
});

Deno.test("delivered and acknowledged inbox ids; hidden notices stay hidden", () => {
  const h = rebuildHistory(transcript([
    ...message("user", [text("<notice>")], {
      hidden: true,
      inboxId: "background-subagent-completion:agent-1",
    }),
    { type: "inbox_acknowledged", data: { inboxIds: ["background-subagent-completion:agent-1"] } },
    ...message("user", [text("<notice 2>")], {
      hidden: true,
      inboxId: "background-subagent-completion:agent-2",
    }),
  ]));
  assert.deepEqual([...h.deliveredInboxIds], [
    "background-subagent-completion:agent-1",
    "background-subagent-completion:agent-2",
  ]);
  assert.deepEqual([...h.acknowledgedInboxIds], ["background-subagent-completion:agent-1"]);
  assert.deepEqual(h.messages[0], { role: "user", content: [text("<notice>")], hidden: true });
});

Deno.test("thinking blocks are kept as they came; one whose text lost a secret to redaction is left out", () => {
  const kept: ContentBlock = { type: "thinking", thinking: "Plan the edit.", signature: "sig-1" };
  const redacted: ContentBlock = { type: "thinking", thinking: "The key is [REDACTED].", signature: "sig-2" };
  const encrypted: ContentBlock = { type: "redacted_thinking", data: "opaque" };
  const history = rebuildHistory(transcript([
    { type: "session_created", data: { agentType: "main", model: "m", depth: 0 } },
    { type: "turn_started", data: { turn: 1 } },
    ...message("user", [{ type: "text", text: "go" }]),
    ...message("assistant", [kept, encrypted, { type: "text", text: "a" }]),
    ...message("assistant", [redacted, { type: "text", text: "b" }], { final: true }),
  ]));
  assert.deepEqual(history.messages.map((m) => m.content), [
    [{ type: "text", text: "go" }],
    [kept, encrypted, { type: "text", text: "a" }],
    [{ type: "text", text: "b" }],
  ]);
});
