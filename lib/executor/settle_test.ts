import assert from "node:assert/strict";
import { z } from "zod";
import { userText } from "../protocol/messages.ts";
import type { ModelRequest } from "../protocol/provider.ts";
import type { TranscriptEvent } from "../protocol/events.ts";
import type { AnyTool } from "../tools/tool.ts";
import { completionInboxId } from "../run/notice.ts";
import { runUntilSettled } from "./settle.ts";
import {
  type BackgroundHarness,
  backgroundHarness,
  bounded,
  Gate,
  occurrences,
  type Reply,
  turnIndex,
  WORKER,
} from "../testing/background_harness.ts";

const TAG = "<background-subagent-completion>";

/** runUntilSettled, failing instead of hanging when it never settles. */
function settle(...args: Parameters<typeof runUntilSettled>) {
  return bounded("runUntilSettled", runUntilSettled(...args));
}

function bgTask(prompt: string) {
  return {
    name: "Task",
    input: { subagent_type: WORKER, description: "Count the things", prompt, run_in_background: true },
  };
}

function lastMessage(request: ModelRequest) {
  return request.messages.at(-1);
}

function spawnedIds(h: BackgroundHarness): string[] {
  return h.events.flatMap((e) => (e.type === "subagent_spawned" ? [e.subagent.session_id] : []));
}

/** Opens `gate` when the parent session completes turn `turn`. */
function openAfterTurn(h: BackgroundHarness, turn: number, gate: Gate): void {
  h.onEvent = (e) => {
    if (e.type === "turn_completed" && e.sessionId === "session-parent" && e.turn === turn) gate.open();
  };
}

/** The events of turn `turn`: from its turn_started to its turn_completed (inclusive). */
function turnEvents(events: readonly TranscriptEvent[], turn: number): TranscriptEvent[] {
  const start = events.findIndex((e) => e.type === "turn_started" && e.data.turn === turn);
  const end = events.findIndex((e) => e.type === "turn_completed" && e.data.turn === turn);
  assert.ok(start >= 0 && end > start, `turn ${turn} is not complete in the transcript`);
  return events.slice(start, end + 1);
}

/** A parent that starts one background worker, then ends its turn; `after` answers the notice. */
function parentReplies(worker: (signal: AbortSignal) => Promise<Reply>) {
  return (req: ModelRequest, signal: AbortSignal): Reply | Promise<Reply> => {
    if (req.meta.agentType === WORKER) return worker(signal);
    if (turnIndex(req) === 0) return { toolCalls: [bgTask("Count the things in the background.")] };
    const last = lastMessage(req);
    if (last?.hidden === true) {
      const text = last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      return { text: `Got the notice: ${/CHILD-[A-Z]+/.exec(text)?.[0] ?? "nothing"}` };
    }
    return { text: "Waiting for the worker." };
  };
}

Deno.test("runUntilSettled: a completion after the turn ended starts a new turn with the notice", async () => {
  const release = new Gate();
  await using h = await backgroundHarness({
    reply: parentReplies(async (signal) => {
      await release.wait(signal);
      return { text: "CHILD-RESULT" };
    }),
  });
  openAfterTurn(h, 1, release);
  const p = await h.parent();
  const pending = h.env.background.pendingFor(p.owner, new Set());
  const settled = await settle(p.loop({ pending }), { messages: [userText("Start")] }, pending, {
    signal: new AbortController().signal,
    sleep: (ms, s) => h.ports.clock.sleep(ms, s),
  });

  assert.equal(settled.result.status, "completed");
  assert.equal(settled.turns, 2);
  assert.deepEqual(settled.abandoned, []);
  assert.equal(settled.result.finalText, "Got the notice: CHILD-RESULT");
  assert.equal(settled.totals.toolCalls, 1);
  const [childId] = spawnedIds(h);
  assert.ok(childId !== undefined);

  const events = await p.events();
  const turn1 = turnEvents(events, 1);
  assert.equal(turn1.some((e) => e.type === "message_created" && e.data.inboxId !== undefined), false);
  const turn2 = turnEvents(events, 2);
  // The continuation opens with the hidden notice and its terminal receipt, in one batch.
  const [started, created, text, ref] = turn2;
  assert.equal(started?.type, "turn_started");
  assert.deepEqual(created?.type === "message_created" && created.data, {
    messageId: created?.type === "message_created" ? created.data.messageId : "",
    role: "user",
    hidden: true,
    inboxId: completionInboxId(childId),
  });
  assert.equal(text?.type === "part_created" && text.data.part.type, "text");
  assert.deepEqual(ref?.type === "part_created" && ref.data.part, {
    type: "subtask_ref",
    callId: "call_main_1",
    agentId: childId,
    subagentType: WORKER,
    description: "Count the things",
    background: true,
    state: "completed",
    lineage: { rootAgentId: childId, resumeDepth: 0 },
  });
  assert.equal(new Set([started, created, text, ref].map((e) => e?.timestamp)).size, 1);
  const completed = turn2.at(-1)!;
  const ack = events[events.indexOf(completed) + 1];
  assert.deepEqual(ack?.type === "inbox_acknowledged" && ack.data.inboxIds, [completionInboxId(childId)]);
  assert.equal(ack?.seq, completed.seq + 1);
  assert.deepEqual(await p.inbox().pending(), []);

  const continuation = h.model.requestsOf("main").at(-1)!;
  assert.equal(lastMessage(continuation)?.hidden, true);
  assert.equal(occurrences(JSON.stringify(continuation.messages), TAG), 1);
});

Deno.test("runUntilSettled: a completion during a turn is delivered in that turn (current_turn)", async () => {
  const release = new Gate();
  await using h = await backgroundHarness({
    reply: (req, signal): Reply | Promise<Reply> => {
      if (req.meta.agentType === WORKER) return release.wait(signal).then(() => ({ text: "CHILD-EARLY" }));
      if (turnIndex(req) === 0) return { toolCalls: [bgTask("Count the things in the background.")] };
      if (turnIndex(req) === 1) return { toolCalls: [{ name: "Hold", input: {} }] };
      return { text: lastMessage(req)?.hidden === true ? "Seen it within the turn." : "No notice yet." };
    },
  });
  // A tool that lets the child finish and waits for it: its completion lands while the turn runs.
  const hold: AnyTool = {
    name: "Hold",
    description: "Waits for the worker.",
    kind: "read",
    schema: z.object({}),
    inputSchema: { type: "object" },
    async run() {
      release.open();
      const [id] = spawnedIds(h);
      await h.env.background.wait(id!, 0);
      return { content: "held", isError: false };
    },
  };
  const p = await h.parent();
  const pending = h.env.background.pendingFor(p.owner, new Set());
  const settled = await settle(
    p.loop({ pending, tools: [...p.runtime.tools(), hold] }),
    { messages: [userText("Start")] },
    pending,
    { signal: new AbortController().signal, sleep: (ms, s) => h.ports.clock.sleep(ms, s) },
  );
  assert.equal(settled.turns, 1);
  assert.equal(settled.result.finalText, "Seen it within the turn.");
  const [childId] = spawnedIds(h);
  const events = await p.events();
  const turn1 = turnEvents(events, 1);
  const receipts = turn1.filter((e) => e.type === "message_created" && e.data.inboxId !== undefined);
  assert.equal(receipts.length, 1);
  const completed = turn1.at(-1)!;
  const ack = events[events.indexOf(completed) + 1];
  assert.deepEqual(ack?.type === "inbox_acknowledged" && ack.data.inboxIds, [completionInboxId(childId!)]);
  assert.equal(events.filter((e) => e.type === "turn_started").length, 1);
  const requests = h.model.requestsOf("main");
  assert.equal(requests.length, 3);
  assert.equal(lastMessage(requests[2]!)?.hidden, true, "the notice joins the turn before its next request");
  assert.match(JSON.stringify(requests[2]!.messages), /CHILD-EARLY/);
});

Deno.test("runUntilSettled: when the wait limit expires the children are cancelled and listed as abandoned", async () => {
  const limit = new Gate();
  await using h = await backgroundHarness({
    reply: parentReplies((signal) => new Gate().wait(signal).then(() => ({ text: "never" }))),
  });
  openAfterTurn(h, 1, limit);
  const p = await h.parent();
  const pending = h.env.background.pendingFor(p.owner, new Set());
  const asked: number[] = [];
  const settled = await settle(p.loop({ pending }), { messages: [userText("Start")] }, pending, {
    signal: new AbortController().signal,
    waitLimitMs: 1234,
    sleep: (ms, signal) => {
      asked.push(ms);
      return limit.wait(signal);
    },
  });
  const [childId] = spawnedIds(h);
  assert.ok(childId !== undefined);
  assert.deepEqual(asked, [1234]);
  assert.deepEqual(settled.abandoned, [childId]);
  assert.equal(settled.turns, 1);
  assert.equal(settled.result.finalText, "Waiting for the worker.");
  assert.equal(h.env.background.isRunning(childId), false);
  const record = await h.sidecar(childId);
  assert.equal(record.status, "cancelled");
  assert.equal(record.result.success, false);
  assert.equal(h.model.requestsOf("main").length, 2, "no turn ran for the cancelled child");
});

/** Runs a parent that leaves one background child running and aborts with `abortAt` after turn 1. */
async function abortAfterFirstTurn(abortAt: (abort: () => void) => void) {
  const stop = new AbortController();
  const h = await backgroundHarness({
    reply: parentReplies((signal) => new Gate().wait(signal).then(() => ({ text: "never" }))),
  });
  h.onEvent = (e) => {
    if (e.type === "turn_completed" && e.sessionId === "session-parent") abortAt(() => stop.abort());
  };
  const p = await h.parent();
  const pending = h.env.background.pendingFor(p.owner, new Set());
  const settling = runUntilSettled(p.loop({ pending }), { messages: [userText("Start")] }, pending, {
    signal: stop.signal,
    sleep: (ms, s) => h.ports.clock.sleep(ms, s),
  });
  // A hang is reported as a failure instead of stalling the suite.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), 5000)));
  try {
    const settled = await Promise.race([settling, guard]);
    return { h, pending, settled };
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("runUntilSettled: aborting while it waits stops the wait and leaves the children to the caller", async () => {
  const { h, pending, settled } = await abortAfterFirstTurn((abort) => setTimeout(abort, 0));
  await using _h = h;
  assert.notEqual(settled, "hung", "runUntilSettled kept waiting after the abort");
  if (settled === "hung") return;
  const [childId] = spawnedIds(h);
  assert.ok(childId !== undefined);
  assert.equal(settled.turns, 1);
  assert.equal(settled.result.status, "completed");
  assert.deepEqual(settled.abandoned, []);
  assert.equal(h.env.background.isRunning(childId), true, "runUntilSettled does not cancel on abort");
  assert.deepEqual(await pending.cancelAll("test over"), [childId]);
  assert.equal((await h.sidecar(childId)).status, "cancelled");
});

// Regression: an abort that lands while the first turn is finishing (the turn still completes) must
// stop the wait, not leave `waitForChange` waiting for the children forever.
Deno.test({
  name: "runUntilSettled: an abort that lands as the first turn completes stops the wait too",
  async fn() {
    const { h, pending, settled } = await abortAfterFirstTurn((abort) => abort());
    await using _h = h;
    assert.notEqual(settled, "hung", "runUntilSettled kept waiting after the abort");
    if (settled === "hung") return;
    assert.equal(settled.turns, 1);
    assert.deepEqual(settled.abandoned, []);
    assert.equal(pending.running().length, 1);
  },
});

Deno.test("runUntilSettled: two children finishing at different times give one continuation each", async () => {
  const first = new Gate();
  const second = new Gate();
  await using h = await backgroundHarness({
    reply: (req, signal): Reply | Promise<Reply> => {
      if (req.meta.agentType === WORKER) {
        const alpha = JSON.stringify(req.messages).includes("ALPHA");
        return (alpha ? first : second).wait(signal).then(() => ({
          text: alpha ? "CHILD-ALPHA" : "CHILD-BETA",
        }));
      }
      if (turnIndex(req) === 0) {
        return { toolCalls: [bgTask("ALPHA: count the files."), bgTask("BETA: count the folders.")] };
      }
      const last = lastMessage(req);
      if (last?.hidden !== true) return { text: "Waiting for both." };
      return { text: `Noted ${/CHILD-[A-Z]+/.exec(JSON.stringify(last.content))?.[0]}` };
    },
  });
  h.onEvent = (e) => {
    if (e.type !== "turn_completed" || e.sessionId !== "session-parent") return;
    if (e.turn === 1) first.open();
    if (e.turn === 2) second.open();
  };
  const p = await h.parent();
  const pending = h.env.background.pendingFor(p.owner, new Set());
  const settled = await settle(p.loop({ pending }), { messages: [userText("Start")] }, pending, {
    signal: new AbortController().signal,
    sleep: (ms, s) => h.ports.clock.sleep(ms, s),
  });
  assert.equal(settled.turns, 3);
  assert.equal(settled.result.finalText, "Noted CHILD-BETA");
  const last = h.model.requestsOf("main").at(-1)!;
  assert.equal(occurrences(JSON.stringify(last.messages), TAG), 2, "each notice exactly once");
  const events = await p.events();
  const acks = events.flatMap((e) => (e.type === "inbox_acknowledged" ? [e.data.inboxIds.length] : []));
  assert.deepEqual(acks, [1, 1]);
});
