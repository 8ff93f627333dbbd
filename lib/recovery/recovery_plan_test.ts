import assert from "node:assert/strict";
import { groupsToKill, planOrphan, type ScriptedLiveness, selectOrphans } from "./recovery_plan.ts";
import { FIXTURE_TIME, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import type { TranscriptEvent } from "../protocol/events.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { ProcessIdentity } from "../sys/process.ts";
import { parseTranscript, type TranscriptRead } from "../session/transcript.ts";

const IDENTITY = { platform: "linux" as const, fingerprint: "a".repeat(64) };

/** Scripted liveness: a table from record id to what the Process port would say. */
function scripted(table: Record<string, ReturnType<ScriptedLiveness>>): ScriptedLiveness {
  return (r) => table[r.id] ?? "unknown";
}

/** The documented limit (docs/reference/recovery.md), pinned by its value, not by the implementation's constant. */
const THIRTY_MINUTES = 30 * 60 * 1000;

Deno.test("selectOrphans: a table of owners, PIDs and ages (fake clock, scripted liveness)", () => {
  const now = FIXTURE_TIME + 2 * THIRTY_MINUTES;
  const edge = now - THIRTY_MINUTES;
  const cases: { record: SidecarRecord; liveness: ReturnType<ScriptedLiveness>; expect: string }[] = [
    {
      record: sidecarFixture("dead", { processId: 10, processIdentity: IDENTITY }),
      liveness: "dead",
      expect: "orphan:owner_dead",
    },
    // PID reuse: the PID answers, the fingerprint does not match → dead.
    {
      record: sidecarFixture("reused", { processId: 11, processIdentity: IDENTITY }),
      liveness: "reused",
      expect: "orphan:pid_reused",
    },
    {
      record: sidecarFixture("alive", { processId: 12, processIdentity: IDENTITY }),
      liveness: "alive",
      expect: "kept:owner_alive",
    },
    // No PID: orphan only after more than 30 minutes without activity; exactly 30 minutes is still fresh.
    {
      record: sidecarFixture("nopid-at-edge", { lastActiveAt: edge }),
      liveness: "unknown",
      expect: "kept:recently_active",
    },
    {
      record: sidecarFixture("nopid-past-edge", { lastActiveAt: edge - 1 }),
      liveness: "unknown",
      expect: "orphan:inactive",
    },
    {
      record: sidecarFixture("nopid-fresh", { lastActiveAt: now - 1000 }),
      liveness: "unknown",
      expect: "kept:recently_active",
    },
    // Legacy record: a PID without identity that still answers cannot be told from a reused one.
    {
      record: sidecarFixture("legacy-live", { processId: 13, lastActiveAt: now - 5000 }),
      liveness: "unknown",
      expect: "kept:recently_active",
    },
    {
      record: sidecarFixture("legacy-stale", { processId: 14, lastActiveAt: edge - 1 }),
      liveness: "unknown",
      expect: "orphan:inactive",
    },
    {
      record: sidecarFixture("legacy-dead", { processId: 15 }),
      liveness: "dead",
      expect: "orphan:owner_dead",
    },
    {
      record: sidecarFixture("done", { status: "completed", processId: 16 }),
      liveness: "dead",
      expect: "kept:terminal",
    },
  ];
  const table = Object.fromEntries(cases.map((c) => [c.record.id, c.liveness]));
  const selection = selectOrphans(cases.map((c) => c.record), now, scripted(table));
  const got = new Map<string, string>([
    ...selection.orphans.map((o) => [o.id, `orphan:${o.reason}`] as const),
    ...selection.kept.map((k) => [k.id, `kept:${k.reason}`] as const),
  ]);
  assert.deepEqual(Object.fromEntries(got), Object.fromEntries(cases.map((c) => [c.record.id, c.expect])));
});

let seq = 0;
function ev(sessionId: string, type: TranscriptEvent["type"], data: unknown): TranscriptEvent {
  return {
    seq: ++seq,
    id: `e${seq}`,
    sessionId,
    projectPath: "/p",
    timestamp: "t",
    type,
    data,
  } as TranscriptEvent;
}

function childTranscript(
  id: string,
  shape: "mid_turn" | "finalized_open" | "completed" | "aborted" | "tool_call_open",
): TranscriptRead {
  seq = 0;
  const events: TranscriptEvent[] = [
    ev(id, "session_created", { agentType: "general-purpose", model: "m", depth: 1, relation: "subagent" }),
    ev(id, "turn_started", { turn: 1 }),
    ev(id, "message_created", { messageId: "u1", role: "user" }),
    ev(id, "part_created", { messageId: "u1", partId: "p1", part: { type: "text", text: "Do it." } }),
  ];
  if (shape === "mid_turn") return { events, diagnostics: [] };
  if (shape === "tool_call_open") {
    events.push(
      ev(id, "message_created", { messageId: "a1", role: "assistant" }),
      ev(id, "part_created", { messageId: "a1", partId: "p2", part: { type: "text", text: "Looking." } }),
      ev(id, "part_created", {
        messageId: "a1",
        partId: "p3",
        part: { type: "tool_call", id: "c1", name: "Read", input: {} },
      }),
    );
    return { events, diagnostics: [] };
  }
  events.push(
    ev(id, "message_created", { messageId: "a1", role: "assistant", final: true }),
    ev(id, "part_created", { messageId: "a1", partId: "p2", part: { type: "text", text: "All done." } }),
  );
  if (shape === "completed") {
    events.push(
      ev(id, "turn_completed", {
        turn: 1,
        turns: 1,
        toolCalls: 0,
        durationMs: 5,
        usage: { inputTokens: 1, outputTokens: 1 },
      }),
    );
  }
  if (shape === "aborted") events.push(ev(id, "turn_aborted", { turn: 1, cause: "failed" }));
  return { events, diagnostics: [] };
}

const NOW = FIXTURE_TIME + 60_000;

Deno.test("planOrphan: killed mid-turn → turn_aborted(process_restart), interrupted, failed and resumable", () => {
  const record = sidecarFixture("agent-a", { processId: 10, processIdentity: IDENTITY, messages: [] });
  const plan = planOrphan(record, childTranscript("agent-a", "tool_call_open"), NOW);
  assert.deepEqual(plan.closeTurn, {
    type: "turn_aborted",
    data: { turn: 1, cause: "process_restart", reason: "the process running this session stopped" },
  });
  assert.equal(plan.outcome, "interrupted");
  assert.equal(plan.next.status, "failed");
  assert.equal(plan.next.result.success, false);
  assert.match(plan.next.result.error ?? "", /resume_from: "agent-a"/);
  assert.equal(plan.next.result.message, "Looking.");
  assert.deepEqual(plan.next.restartRecovery, { outcome: "interrupted", recoveredAt: NOW });
  assert.equal(plan.next.processId, undefined);
  assert.equal(plan.next.processIdentity, undefined);
  // The dangling call gets the generic interrupted result so the history can be sent again.
  assert.equal(plan.next.messages.length, 3);
  assert.equal(plan.next.messages[2]!.content[0]!.type, "tool_result");
});

Deno.test("planOrphan: a final message with a finalization receipt completes the open turn", () => {
  const record = sidecarFixture("agent-b", { messages: [] });
  const plan = planOrphan(record, childTranscript("agent-b", "finalized_open"), NOW);
  assert.equal(plan.closeTurn?.type, "turn_completed");
  assert.equal(plan.outcome, "completed");
  assert.equal(plan.next.status, "completed");
  assert.deepEqual(plan.next.result, { success: true, message: "All done." });
});

Deno.test("planOrphan: an already completed turn needs no closing event; an aborted one is interrupted", () => {
  const done = planOrphan(
    sidecarFixture("agent-c", { messages: [] }),
    childTranscript("agent-c", "completed"),
    NOW,
  );
  assert.equal(done.closeTurn, undefined);
  assert.equal(done.outcome, "completed");
  const aborted = planOrphan(
    sidecarFixture("agent-d", { messages: [] }),
    childTranscript("agent-d", "aborted"),
    NOW,
  );
  assert.equal(aborted.closeTurn, undefined);
  assert.equal(aborted.outcome, "interrupted");
});

Deno.test("planOrphan: inherited text never counts as the child's own final answer", () => {
  // A resumed child: the sidecar holds the source's conversation ending in an assistant answer; the
  // child's own transcript has only its prompt, and its turn completed (say, by a bug) without text.
  const inherited = [
    { role: "user" as const, content: [{ type: "text" as const, text: "Earlier task." }] },
    { role: "assistant" as const, content: [{ type: "text" as const, text: "Earlier answer." }] },
  ];
  const record = sidecarFixture("agent-e", { messages: inherited });
  seq = 0;
  const t: TranscriptRead = {
    events: [
      ev("agent-e", "session_created", { agentType: "x", model: "m", depth: 1 }),
      ev("agent-e", "turn_started", { turn: 1 }),
      ev("agent-e", "message_created", { messageId: "u1", role: "user" }),
      ev("agent-e", "part_created", {
        messageId: "u1",
        partId: "p",
        part: { type: "text", text: "Continue." },
      }),
      ev("agent-e", "turn_completed", {
        turn: 1,
        turns: 0,
        toolCalls: 0,
        durationMs: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
      }),
    ],
    diagnostics: [],
  };
  const plan = planOrphan(record, t, NOW);
  assert.equal(plan.outcome, "interrupted");
  // Merged: the inherited history, then the child's own messages.
  assert.deepEqual(plan.next.messages.map((m) => m.content[0]), [
    { type: "text", text: "Earlier task." },
    { type: "text", text: "Earlier answer." },
    { type: "text", text: "Continue." },
  ]);
});

Deno.test("planOrphan: history that cannot be validated fails recovery (resume is then refused)", () => {
  const record = sidecarFixture("agent-f", { messages: [] });
  const corrupt = parseTranscript(
    JSON.stringify(ev("agent-f", "session_created", { agentType: "x", model: "m", depth: 1 })) +
      "\n{not json\n" +
      JSON.stringify(ev("agent-f", "turn_started", { turn: 1 })) + "\n",
  );
  const cases: [string, TranscriptRead | null, RegExp][] = [
    ["missing", null, /transcript is missing/],
    ["corrupt line", corrupt, /transcript is corrupt/],
    ["foreign events", {
      events: [ev("agent-f", "session_created", {}), ev("other", "turn_started", { turn: 1 })],
      diagnostics: [],
    }, /another session/],
    [
      "no header",
      { events: [ev("agent-f", "turn_started", { turn: 1 })], diagnostics: [] },
      /session_created/,
    ],
  ];
  for (const [name, t, why] of cases) {
    const plan = planOrphan(record, t, NOW);
    assert.equal(plan.outcome, "failed", name);
    assert.equal(plan.closeTurn, undefined, name);
    assert.equal(plan.next.status, "failed", name);
    assert.match(plan.next.result.error ?? "", why, name);
    assert.deepEqual(plan.next.restartRecovery, { outcome: "failed", recoveredAt: NOW }, name);
  }
});

Deno.test("planOrphan: a torn last line is a crash artifact, not corruption", () => {
  const record = sidecarFixture("agent-g", { messages: [] });
  const good = childTranscript("agent-g", "mid_turn").events.map((e) => JSON.stringify(e)).join("\n");
  const plan = planOrphan(record, parseTranscript(good + '\n{"seq":9,"ty'), NOW);
  assert.equal(plan.outcome, "interrupted");
});

Deno.test("groupsToKill: only recorded groups whose leader still has the recorded identity (scripted)", () => {
  const other = { platform: "linux" as const, fingerprint: "b".repeat(64) };
  const mac = { platform: "darwin" as const, fingerprint: "a".repeat(64) };
  const groups = [
    { pgid: 101, identity: IDENTITY }, // still running as started → killed
    { pgid: 102, identity: IDENTITY }, // PID recycled by another process (other start time) → left alone
    { pgid: 103, identity: IDENTITY }, // leader gone, or no longer leading a group → left alone
    { pgid: 104, identity: IDENTITY }, // same fingerprint on another platform → left alone
    { pgid: 105, identity: other }, // a second live group → killed
  ];
  const now = new Map<number, ProcessIdentity>([[101, IDENTITY], [102, other], [104, mac], [105, other]]);
  const record = sidecarFixture("agent-g", {
    processId: 10,
    processIdentity: IDENTITY,
    processGroups: groups,
  });
  assert.deepEqual(groupsToKill(record, (pgid) => now.get(pgid) ?? null).map((g) => g.pgid), [101, 105]);
  assert.deepEqual(groupsToKill(sidecarFixture("agent-h"), () => IDENTITY), []);
  // The recovered record no longer lists them: a second pass has nothing to kill.
  assert.equal(
    planOrphan(record, childTranscript("agent-g", "tool_call_open"), NOW).next.processGroups,
    undefined,
  );
});
