// SubagentRuntime's resume lookup: only an absent source reads as "not found"; a store that cannot be
// read is reported as itself, so a storage problem is never mistaken for a wrong id.

import assert from "node:assert/strict";
import { backgroundHarness, WORKER } from "../testing/background_harness.ts";
import { runTool } from "../testing/tool_harness.ts";
import { osError } from "../testing/fault_fs.ts";
import { SubagentRuntime } from "./subagents.ts";
import type { SidecarStore } from "../store/store.ts";
import { leasePath, SessionLease, tryAcquireLease } from "../session/lease.ts";

const RESUME = {
  resume_from: "agent-src",
  description: "go on",
  prompt: "Continue the work.",
  subagent_session_id: "agent-next",
};

Deno.test("resume: an unreadable source is reported as such, an absent one as not found", async () => {
  await using h = await backgroundHarness({ reply: () => ({ text: "never asked" }) });
  const path = `${h.storage}/agents/sessions/agent-src.json`;
  // The store as the real one fails when the sessions folder cannot be searched (EACCES on lstat).
  const unreadable = new Proxy(h.store, {
    get(target, key) {
      if (key === "load") {
        return (id: string) => id === "agent-src" ? Promise.reject(osError("EACCES", path)) : target.load(id);
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as SidecarStore;
  const parent = {
    sessionId: "session-parent",
    projectPath: h.workspace,
    workspaceRoot: h.workspace,
    model: "test-model",
    mode: "yolo" as const,
    depth: 0,
  };
  const [task] = new SubagentRuntime({ ...h.env, store: unreadable }, parent).tools();
  const failed = await runTool(task!, { ...RESUME, subagent_type: WORKER }, h.ctx());
  assert.equal(failed.isError, true);
  assert.match(
    failed.content,
    /Cannot resume "agent-src": its record could not be read \(.*Permission denied/,
  );
  assert.doesNotMatch(failed.content, /not found/);

  const [plain] = h.runtime().tools();
  const absent = await runTool(plain!, { ...RESUME, subagent_type: WORKER }, h.ctx());
  assert.equal(absent.isError, true);
  assert.match(absent.content, /Cannot resume "agent-src": session not found in this workspace/);
  assert.equal(h.model.requests.length, 0, "no child ran");
});

type Harness = Awaited<ReturnType<typeof backgroundHarness>>;

/** Runs one foreground Task call of `id` through the harness's runtime. */
async function launchForeground(h: Harness, id: string) {
  const [task] = h.runtime().tools();
  const input = {
    subagent_type: WORKER,
    description: "do it",
    prompt: "Do the work now.",
    subagent_session_id: id,
  };
  return await runTool(task!, input, h.ctx());
}

/** Whether the lease file of child `id` is there. */
async function leaseLeft(h: Harness, id: string): Promise<boolean> {
  const lease = await leasePath(h.env.layout, h.workspace, id);
  return await Deno.lstat(lease).then(() => true, () => false);
}

Deno.test("launch: a foreground child whose sidecar cannot be created leaves no lease behind", async () => {
  // Its lease is taken while the sidecar is created: a failed creation gives it back.
  await using h = await backgroundHarness({
    reply: () => ({ text: "never asked" }),
    failWrites: (path) => path.includes("/agents/sessions/"),
  });
  const failed = await launchForeground(h, "agent-one");
  assert.equal(failed.isError, true, failed.content);
  assert.equal(h.model.requests.length, 0, "no child ran");
  assert.equal(await leaseLeft(h, "agent-one"), false, "the lease file is gone");
  // The same session id can be taken again (this process holds no lease on it).
  const taken = await tryAcquireLease(
    { fs: h.env.ports.fs, process: h.env.ports.process, clock: h.env.ports.clock, layout: h.env.layout },
    { projectPath: h.workspace, sessionId: "agent-one" },
  );
  assert.ok(taken instanceof SessionLease);
  await taken.release();
});

Deno.test("launch: a foreground child's lease is given back (alongside its terminal sidecar) before the Task call returns", async () => {
  await using h = await backgroundHarness({ reply: () => ({ text: "done" }) });
  const result = await launchForeground(h, "agent-two");
  assert.equal(result.isError, false, result.content);
  const stored = await h.store.load("agent-two");
  assert.ok(stored !== null && "record" in stored);
  assert.equal(stored.record.status, "completed");
  assert.equal(await leaseLeft(h, "agent-two"), false, "the lease file is gone");
});
