// Reproduces the silent failures of durable state, each now a runtime_warning: a terminal sidecar
// commit that fails (foreground and background), a completion notice that cannot be queued, and a
// background run that throws outside the child. Real files; writes fail through faultyFs.

import assert from "node:assert/strict";
import type { RuntimeEvent, RuntimeWarning } from "../protocol/events.ts";
import { runTool } from "../testing/tool_harness.ts";
import { backgroundHarness, WORKER } from "../testing/background_harness.ts";
import { completionInboxId } from "./notice.ts";
import { realClock } from "../sys/clock.ts";

const PROMPT = "Count the things in the folder.";

function task(id: string, background: boolean) {
  return {
    subagent_type: WORKER,
    description: "Count the things",
    prompt: PROMPT,
    subagent_session_id: id,
    ...(background ? { run_in_background: true } : {}),
  };
}

function warnings(events: readonly RuntimeEvent[]): RuntimeWarning[] {
  return events.flatMap((e) => (e.type === "runtime_warning" ? [e] : []));
}

Deno.test("a foreground child whose terminal sidecar cannot be written: the run's work is lost, its result still returned", async () => {
  const id = "agent-commit-fg";
  let failing = false;
  await using h = await backgroundHarness({
    failWrites: (path) => failing && path.endsWith(`/${id}.json`),
    reply: (req) => {
      if (req.meta.agentType === WORKER) failing = true;
      return { text: "counted 7 things" };
    },
  });
  const [taskTool] = h.runtime().tools();
  const result = await runTool(taskTool!, task(id, false), h.ctx({ callId: "call_fg" }));
  assert.equal(result.isError, false, result.content);
  assert.match(result.content, /counted 7 things/);
  const [w, ...more] = warnings(h.events);
  assert.deepEqual(more, []);
  assert.equal(w?.code, "sidecar_commit_failed");
  assert.equal(w?.agentId, id);
  assert.equal(w?.sessionId, "session-parent");
  assert.equal(w?.workLost, true, "an unsaved end fails the run");
  assert.match(
    w!.message,
    new RegExp(
      `could not be updated to completed: Could not write \\S+/agents/sessions/${id}\\.json: permission denied \\(EACCES\\)\\. Its result is not saved; .* Make that folder writable`,
    ),
  );
  assert.doesNotMatch(w!.message, /\n\s+at /, "the message is one readable sentence, no stack");
  assert.equal(w?.detail, undefined, "a refused write is the environment, not a bug: no stack");
  failing = false;
  assert.equal((await h.sidecar(id)).status, "running", "the record is stale, and the warning says so");
});

Deno.test("a foreground child's sidecar takes two atomic writes: created running, then its terminal state with its messages", async () => {
  const id = "agent-two-writes";
  const writes: string[] = [];
  await using h = await backgroundHarness({
    failWrites: (path) => {
      if (path.endsWith(`/${id}.json`)) writes.push(path);
      return false;
    },
    reply: () => ({ text: "counted 7 things" }),
  });
  const [taskTool] = h.runtime().tools();
  const result = await runTool(taskTool!, task(id, false), h.ctx({ callId: "call_two" }));
  assert.equal(result.isError, false, result.content);
  assert.equal(writes.length, 2, "the create and one terminal commit (one fsync pair each)");
  assert.deepEqual(h.store.writes.filter((w) => w.id === id).map((w) => w.method), ["create", "update"]);
  const record = await h.sidecar(id);
  assert.equal(record.status, "completed");
  assert.equal(record.processId, undefined);
  assert.ok(record.messages.length > 0, "the child's messages are in the same commit");
});

Deno.test("a background child whose terminal sidecar cannot be written: work lost, its notice still queued", async () => {
  const id = "agent-commit-bg";
  let failing = false;
  await using h = await backgroundHarness({
    failWrites: (path) => failing && path.endsWith(`/${id}.json`),
    reply: (req) => {
      if (req.meta.agentType === WORKER) failing = true;
      return { text: "counted 9 things" };
    },
  });
  const [taskTool] = h.runtime().tools();
  await runTool(taskTool!, task(id, true), h.ctx({ callId: "call_bg" }));
  assert.equal(await h.env.background.wait(id, 0), true);
  assert.deepEqual(warnings(h.events).map((w) => [w.code, w.workLost]), [["sidecar_commit_failed", true]]);
  const inbox = h.env.background.inboxFor({
    parentSessionId: "session-parent",
    parentProjectPath: h.workspace,
  });
  const [entry] = await inbox.pending();
  assert.equal(entry?.inboxId, completionInboxId(id));
  assert.match(entry!.text, /counted 9 things/, "the notice carries the child's result");
});

Deno.test("a completion notice that cannot be queued is a warning that work was lost", async () => {
  const id = "agent-notice";
  await using h = await backgroundHarness({
    failWrites: (path) => path.endsWith(".inbox.json"),
    reply: () => ({ text: "counted 3 things" }),
  });
  const [taskTool] = h.runtime().tools();
  await runTool(taskTool!, task(id, true), h.ctx({ callId: "call_notice" }));
  assert.equal(await h.env.background.wait(id, 0), true);
  const [w, ...more] = warnings(h.events);
  assert.deepEqual(more, []);
  assert.equal(w?.code, "notice_dropped");
  assert.equal(w?.workLost, true);
  assert.match(
    w!.message,
    /could not be written to its parent's inbox: Could not write \S+\.inbox\.json: permission denied/,
  );
  assert.match(w!.message, new RegExp(`blade tasks output ${id}`));
  assert.equal((await h.sidecar(id)).status, "completed", "the result is safe in the sidecar");
});

Deno.test("a background run that throws outside the child is reported with its stack", async () => {
  const id = "agent-crash";
  await using h = await backgroundHarness({ reply: () => ({ text: "counted 1 thing" }) });
  h.onEvent = (e) => {
    if (e.type === "subagent_completed") throw new TypeError("renderer bug");
  };
  const [taskTool] = h.runtime().tools();
  await runTool(taskTool!, task(id, true), h.ctx({ callId: "call_crash" }));
  assert.equal(await h.env.background.wait(id, 0), true);
  const [w] = warnings(h.events);
  assert.equal(w?.code, "background_run_crashed");
  assert.equal(w?.workLost, true);
  assert.match(w!.message, /stopped unexpectedly: renderer bug/);
  assert.match(w!.detail ?? "", /TypeError: renderer bug\n\s+at /, "a bug keeps its stack");
});

Deno.test("a full inbox is back-pressure: the finished child waits, then its notice is queued once there is room", async () => {
  const id = "agent-waits";
  await using h = await backgroundHarness({ reply: () => ({ text: "counted 5 things" }) });
  const owner = { parentSessionId: "session-parent", parentProjectPath: h.workspace };
  const inbox = h.env.background.inboxFor(owner);
  // 100 notices the parent has not taken yet (INBOX_LIMITS.completions).
  for (let i = 0; i < 100; i++) {
    const queued = await inbox.enqueue({
      inboxId: `waiting-${i}`,
      kind: "completion",
      text: "earlier",
      createdAt: 0,
      agentId: `agent-earlier${i}`,
    });
    assert.equal(queued.accepted, true);
  }
  const [taskTool] = h.runtime().tools();
  await runTool(taskTool!, task(id, true), h.ctx({ callId: "call_wait" }));
  // Its record is terminal and committed; its notice waits (the run is not over until it is queued).
  const clock = realClock();
  for (let i = 0; (await h.sidecar(id)).status === "running" && i < 500; i++) await clock.sleep(10);
  assert.equal((await h.sidecar(id)).status, "completed");
  await clock.sleep(200);
  assert.equal(h.env.background.isRunning(id), true, "still waiting for room");
  assert.equal((await inbox.pending()).length, 100);
  // The parent takes ten notices: the child's goes in, once, and nothing was dropped.
  await inbox.remove(Array.from({ length: 10 }, (_, i) => `waiting-${i}`));
  assert.equal(await h.env.background.wait(id, 10_000), true);
  const pending = await inbox.pending();
  assert.equal(pending.filter((e) => e.inboxId === completionInboxId(id)).length, 1);
  assert.deepEqual(warnings(h.events), []);
});
