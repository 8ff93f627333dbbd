import assert from "node:assert/strict";
import { assertNoProcessWith, processesWith, sleepMarker } from "../testing/marked_processes.ts";
import { runTool } from "../testing/tool_harness.ts";
import type { AnyTool, ToolResult } from "../tools/tool.ts";
import { resultWindow, TaskControl } from "./task_control.ts";
import { taskControlDeps } from "./subagent_env.ts";
import { taskOutputTool, taskStopTool } from "../tools/task_control.ts";
import { RESULT_CAP, TRUNCATION_MARKER } from "./notice.ts";
import {
  type BackgroundHarness,
  backgroundHarness,
  eventually,
  Gate,
  WORKER,
} from "../testing/background_harness.ts";
import { osSandbox } from "../sys/os_sandbox.ts";

/** The kill tests need the OS sandbox (its PID namespace); without bubblewrap they are skipped. */
const SANDBOXED = (await osSandbox()) !== undefined;

function taskInput(id: string, prompt = "Count the things in the folder.") {
  return {
    subagent_type: WORKER,
    description: "Count the things",
    prompt,
    run_in_background: true,
    subagent_session_id: id,
  };
}

/** Task, TaskOutput and TaskStop of the harness's default parent session. */
function toolsOf(h: BackgroundHarness, parent?: { sessionId?: string; projectPath?: string }) {
  const [task, output, stop] = h.runtime(parent).tools() as [AnyTool, AnyTool, AnyTool];
  return { task, output, stop };
}

function json(result: ToolResult): Record<string, unknown> {
  assert.equal(result.isError, false, result.content);
  return JSON.parse(result.content);
}

/** A harness whose worker answers `text` once `gate` opens (an abort ends the wait). */
async function gated(text = "the answer is 42"): Promise<{ h: BackgroundHarness; gate: Gate }> {
  const gate = new Gate();
  const h = await backgroundHarness({
    reply: async (_req, signal) => {
      await gate.wait(signal);
      return { text };
    },
  });
  return { h, gate };
}

Deno.test("TaskStop cancels a running child: the sidecar says cancelled, its run stops, the notice says cancelled", async () => {
  const { h } = await gated();
  await using _h = h;
  const { task, stop } = toolsOf(h);
  await runTool(task, taskInput("agent-stop"), h.ctx());
  await eventually("the child's model request", () => h.model.requestsOf(WORKER).length === 1);

  const stopped = await runTool(stop, { task_id: "agent-stop" }, h.ctx());
  assert.equal(stopped.isError, false, stopped.content);
  assert.match(stopped.content, /Stopped worker task agent-stop .*status cancelled/);
  assert.deepEqual(stopped.metadata, { agentId: "agent-stop", status: "cancelled" });
  assert.equal(h.env.background.isRunning("agent-stop"), false, "TaskStop waits for the run to end");
  assert.deepEqual(h.model.aborted, ["agent-stop"], "the child's model request was aborted");

  const record = await h.sidecar("agent-stop");
  assert.equal(record.status, "cancelled");
  assert.equal(record.result.success, false);
  assert.equal(record.result.error, "Stopped with TaskStop.");
  assert.equal("processId" in record, false);

  const [notice] = await h.env.background.inboxFor(h.runtime().owner).pending();
  assert.ok(notice !== undefined);
  assert.match(notice.text, /"status":"cancelled"/);
  assert.match(notice.text, /"success":false/);
  assert.match(notice.text, /was cancelled before it finished/);
  const completed = h.events.filter((e) => e.type === "subagent_completed");
  assert.deepEqual(completed.map((e) => e.type === "subagent_completed" && e.state), ["cancelled"]);

  const again = await runTool(stop, { task_id: "agent-stop" }, h.ctx());
  assert.equal(again.isError, false);
  assert.match(again.content, /not running \(status: cancelled\); nothing to stop/);
});

Deno.test("TaskStop from another process: the child finishes on its own and its sidecar stays cancelled", async () => {
  const { h, gate } = await gated("finished anyway");
  await using _h = h;
  const { task } = toolsOf(h);
  await runTool(task, taskInput("agent-outside"), h.ctx());
  // The other process cannot abort this run; it only commits `cancelled` in the store.
  const outside = new TaskControl(taskControlDeps(h.otherProcessEnv()), h.runtime().owner);
  const stopped = await taskStopTool(outside).run({ task_id: "agent-outside" }, h.ctx());
  assert.match(stopped.content, /status cancelled/);
  assert.equal((await h.sidecar("agent-outside")).status, "cancelled");

  gate.open();
  assert.equal(await h.env.background.wait("agent-outside", 0), true);
  const record = await h.sidecar("agent-outside");
  assert.equal(record.status, "cancelled", "the run's own ending never rewrites cancelled");
  assert.equal(record.result.success, false);
  assert.equal(record.result.error, "Stopped with TaskStop.");
  const [notice] = await h.env.background.inboxFor(h.runtime().owner).pending();
  assert.match(notice?.text ?? "", /"status":"cancelled"/);
  const completed = h.events.filter((e) => e.type === "subagent_completed");
  assert.deepEqual(completed.map((e) => e.type === "subagent_completed" && e.state), ["cancelled"]);
});

Deno.test("TaskOutput and TaskStop: unknown, malformed and foreign ids are all `Unknown task ID`", async () => {
  const { h, gate } = await gated();
  await using _h = h;
  const { task } = toolsOf(h, { sessionId: "session-owner" });
  await runTool(task, taskInput("agent-owned"), h.ctx());
  const foreigners = [
    toolsOf(h, { sessionId: "session-other" }), // same path, other session
    toolsOf(h, { sessionId: "session-owner", projectPath: `${h.dir}/elsewhere` }), // same session, other path
  ];
  for (const { output, stop } of foreigners) {
    const read = await runTool(output, { task_id: "agent-owned", block: false }, h.ctx());
    assert.deepEqual(read, { content: "Unknown task ID: agent-owned", isError: true });
    const stopped = await runTool(stop, { task_id: "agent-owned" }, h.ctx());
    assert.deepEqual(stopped, { content: "Unknown task ID: agent-owned", isError: true });
  }
  assert.equal((await h.sidecar("agent-owned")).status, "running", "a foreign TaskStop changed nothing");
  assert.equal(h.env.background.isRunning("agent-owned"), true);

  const { output, stop } = toolsOf(h, { sessionId: "session-owner" });
  for (const id of ["agent-nobody", "../agent-owned", "."]) {
    assert.deepEqual(await runTool(output, { task_id: id }, h.ctx()), {
      content: `Unknown task ID: ${id}`,
      isError: true,
    });
    assert.deepEqual(await runTool(stop, { task_id: id }, h.ctx()), {
      content: `Unknown task ID: ${id}`,
      isError: true,
    });
  }
  gate.open();
  assert.equal(await h.env.background.wait("agent-owned", 0), true);
});

Deno.test("TaskOutput: not_ready without blocking, timeout while blocking, the result once completed", async () => {
  const { h, gate } = await gated();
  await using _h = h;
  const { task, output } = toolsOf(h);
  await runTool(task, taskInput("agent-read"), h.ctx());

  const notReady = json(await runTool(output, { task_id: "agent-read", block: false }, h.ctx()));
  assert.equal(notReady.retrieval_status, "not_ready");
  assert.equal(notReady.status, "running");
  assert.equal("result" in notReady, false);

  const timedOut = json(await runTool(output, { task_id: "agent-read", timeout: 50 }, h.ctx()));
  assert.equal(timedOut.retrieval_status, "timeout");
  assert.equal(timedOut.status, "running");
  assert.equal("result" in timedOut, false);

  gate.open();
  const done = json(await runTool(output, { task_id: "agent-read", timeout: 0 }, h.ctx()));
  const record = await h.sidecar("agent-read");
  assert.deepEqual(done, {
    task_id: "agent-read",
    task_type: "subagent",
    retrieval_status: "success",
    status: "completed",
    subagent_type: WORKER,
    description: "Count the things",
    background: true,
    created_at: new Date(record.createdAt).toISOString(),
    last_active_at: new Date(record.lastActiveAt).toISOString(),
    completed_at: new Date(record.completedAt!).toISOString(),
    result: "the answer is 42",
    success: true,
    stats: record.stats,
    lineage: { root_agent_id: "agent-read", resumed_from: null, resume_depth: 0 },
  });
});

Deno.test("TaskOutput of a run owned by another process polls the sidecar until its timeout or its end", async () => {
  const { h, gate } = await gated("done elsewhere");
  await using _h = h;
  const { task } = toolsOf(h);
  await runTool(task, taskInput("agent-far"), h.ctx());
  const output = taskOutputTool(new TaskControl(taskControlDeps(h.otherProcessEnv()), h.runtime().owner));

  const timedOut = json(await runTool(output, { task_id: "agent-far", timeout: 300 }, h.ctx()));
  assert.equal(timedOut.retrieval_status, "timeout");
  assert.equal(timedOut.status, "running");

  gate.open();
  const done = json(await runTool(output, { task_id: "agent-far", timeout: 10_000 }, h.ctx()));
  assert.equal(done.retrieval_status, "success");
  assert.equal(done.status, "completed");
  assert.equal(done.result, "done elsewhere");
});

Deno.test("TaskOutput returns a bounded result, the rest by offset, never the transcript", async () => {
  const long = "line of output\n".repeat(3000);
  await using h = await backgroundHarness({ reply: () => ({ text: long }) });
  const { task, output } = toolsOf(h);
  await runTool(task, taskInput("agent-long"), h.ctx());
  const done = json(await runTool(output, { task_id: "agent-long" }, h.ctx()));
  assert.equal(done.status, "completed");
  assert.equal((done.result as string).length, RESULT_CAP);
  assert.ok((done.result as string).endsWith("\n...[truncated]"));
  assert.equal(done.result_truncated, true);
  assert.equal(JSON.stringify(done).includes("messages"), false);
  // The rest is read with offset, window by window, until a window is not cut: it adds up to the result.
  const full = (await h.sidecar("agent-long")).result.message;
  assert.equal(full, long.trim());
  let read = (done.result as string).slice(0, -TRUNCATION_MARKER.length);
  let next = done.next_offset as number;
  assert.match(String(done.full_result), new RegExp(`offset ${next} for the rest`));
  for (let guard = 0; guard < 5; guard++) {
    const page = json(await runTool(output, { task_id: "agent-long", offset: next }, h.ctx()));
    assert.equal(page.offset, next);
    if (page.result_truncated !== true) {
      read += page.result as string;
      break;
    }
    read += (page.result as string).slice(0, -TRUNCATION_MARKER.length);
    next = page.next_offset as number;
  }
  assert.equal(read, full);
  const past = json(await runTool(output, { task_id: "agent-long", offset: full.length + 10 }, h.ctx()));
  assert.equal(past.result, "");
  assert.equal(past.offset, full.length);
});

Deno.test("resultWindow: a cut that would split a surrogate pair starts the next window on the pair", () => {
  const tail = "t".repeat(TRUNCATION_MARKER.length + 10);
  const message = "x".repeat(RESULT_CAP - TRUNCATION_MARKER.length - 1) + "😀" + tail;
  const first = resultWindow(message, 0);
  assert.equal(first.result_truncated, true);
  const next = first.next_offset as number;
  assert.equal(message.slice(next, next + 2), "😀");
  assert.equal(resultWindow(message, next).result, "😀" + tail);
});

/** The id a background Bash start names (its text is Claude Code's: "Command running in background with ID: …"). */
function shellOf(result: { content: string; metadata?: Record<string, unknown> }): { task_id: string } {
  const id = /^Command running in background with ID: (shell-[\w-]+)\./.exec(result.content)?.[1];
  assert.ok(id !== undefined && id === result.metadata?.taskId, result.content);
  return { task_id: id };
}

Deno.test("background Bash: returns a shell id; TaskOutput gives the output tail and exit code", async () => {
  await using h = await backgroundHarness({ reply: () => ({}) });
  const rt = h.runtime();
  const bash = rt.coreTools().find((t) => t.name === "Bash")!;
  const { output } = toolsOf(h);

  const started = shellOf(
    await runTool(bash, {
      command: "echo out-line; echo err-line >&2; exit 3",
      run_in_background: true,
    }, h.ctx()),
  );
  assert.match(String(started.task_id), /^shell-/);
  const done = json(await runTool(output, { task_id: started.task_id, timeout: 10_000 }, h.ctx()));
  assert.equal(done.task_type, "local_bash");
  assert.equal(done.retrieval_status, "success");
  assert.equal(done.status, "failed");
  assert.equal(done.exit_code, 3);
  assert.match(String(done.output), /out-line/);
  assert.match(String(done.output), /err-line/);

  const ok = shellOf(await runTool(bash, { command: "printf fine", run_in_background: true }, h.ctx()));
  const okDone = json(await runTool(output, { task_id: ok.task_id, timeout: 10_000 }, h.ctx()));
  assert.deepEqual([okDone.status, okDone.exit_code, okDone.output], ["completed", 0, "fine"]);

  // Another session cannot read this session's shell.
  const foreign = toolsOf(h, { sessionId: "session-other" }).output;
  assert.deepEqual(await runTool(foreign, { task_id: ok.task_id }, h.ctx()), {
    content: `Unknown task ID: ${ok.task_id}`,
    isError: true,
  });
});

Deno.test({
  name: "background Bash: TaskStop kills everything the command started, setsid, nohup and double forks too",
  ignore: !SANDBOXED,
  async fn() {
    await using h = await backgroundHarness({ reply: () => ({}) });
    const bash = h.runtime().coreTools().find((t) => t.name === "Bash")!;
    const { stop } = toolsOf(h);
    const marker = sleepMarker();
    const started = shellOf(
      await runTool(bash, {
        command: `sleep ${marker} & setsid sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & ` +
          `(sleep ${marker} &) ; wait`,
        run_in_background: true,
      }, h.ctx()),
    );
    const id = String(started.task_id);
    await eventually("the four sleeps running", async () => (await processesWith(marker)).length >= 4);
    const stopped = await runTool(stop, { task_id: id }, h.ctx());
    assert.match(stopped.content, /Stopped background command/);
    await assertNoProcessWith(marker);
    const after = json(await runTool(toolsOf(h).output, { task_id: id, block: false }, h.ctx()));
    assert.equal(after.status, "cancelled");
    assert.equal(after.retrieval_status, "success");
  },
});
