// Worktree isolation around a launch with real git: a fresh isolated plan gets its worktree, a
// resumed plan takes over its source's kept worktree after the lease is checked, and a lease that no
// longer matches git (branch switched) is refused with the reason.

import assert from "node:assert/strict";
import { join } from "node:path";
import { agentDefinitionSchema } from "../registry/schema.ts";
import { RegistrySnapshot } from "../registry/snapshot.ts";
import { gitRepo } from "../testing/git_repo.ts";
import { isolate, settleWorktree } from "./isolation.ts";
import { type LaunchParent, planLaunch } from "../launch/launch_plan.ts";
import type { TaskRequest } from "../tools/task.ts";

const registry = new RegistrySnapshot("/work", [
  agentDefinitionSchema.parse({
    name: "coder",
    description: "Codes.",
    systemPrompt: "You code.",
    source: "flag",
    path: "--agents",
    isolation: "worktree",
  }),
]);

function parentIn(root: string): LaunchParent {
  return {
    sessionId: "session-iso",
    projectPath: root,
    workspaceRoot: root,
    model: "m",
    mode: "yolo",
    depth: 0,
    trusted: true,
    maxDepth: 3,
    aliases: {},
    process: { pid: 1, identity: null },
    auditEnv: {},
  };
}

const call = (fields: Partial<TaskRequest>): TaskRequest => ({
  description: "code it",
  prompt: "Change the code please.",
  subagent_session_id: "agent-first",
  ...fields,
});

Deno.test("isolate: a resumed child works in its source's kept worktree; a switched branch is refused", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const parent = parentIn(repo.root);
  const fresh = planLaunch(call({ subagent_type: "coder" }), { registry, parent, now: 1 });
  assert.ok(fresh.ok);
  const isolated = await isolate(deps, fresh, repo.root);
  assert.ok(!("refusal" in isolated));
  const lease = isolated.record.worktree!;
  assert.equal(isolated.spec.workspaceRoot, lease.workspaceRoot);
  await Deno.writeTextFile(join(lease.worktreeRoot, "src/a.ts"), "export const a = 7;\n");
  const kept = await settleWorktree(deps, lease, true);
  assert.equal(kept.state, "kept");

  const source = {
    ...isolated.record,
    status: "completed" as const,
    result: { success: true, message: "changed" },
    worktree: kept,
    messages: [{
      role: "user" as const,
      content: [{ type: "text" as const, text: "Change the code please." }],
    }],
  };
  const resumeCall = call({ resume_from: "agent-first", subagent_session_id: "agent-second" });
  const lookup = { source: { record: source, legacy: false }, newIdTaken: false };
  const resumed = planLaunch(resumeCall, { registry, parent, now: 2, resume: lookup });
  assert.ok(resumed.ok, resumed.ok ? "" : resumed.refusal);
  const restored = await isolate(deps, resumed, repo.root);
  assert.ok(!("refusal" in restored), "refusal" in restored ? restored.refusal : "");
  assert.equal(restored.spec.workspaceRoot, lease.worktreeRoot, "same real path");
  assert.equal(restored.record.worktree?.ownerAgentId, "agent-first", "the lease keeps its owner");
  assert.equal(restored.record.worktree?.state, "active");
  assert.equal(
    await Deno.readTextFile(join(restored.spec.workspaceRoot, "src/a.ts")),
    "export const a = 7;\n",
  );

  await repo.git(["switch", "--quiet", "-c", "elsewhere"], lease.worktreeRoot);
  const tampered = await isolate(deps, resumed, repo.root);
  assert.ok("refusal" in tampered);
  assert.match(
    tampered.refusal,
    /Cannot restore the worktree of agent-first .*: it is on elsewhere, not on its branch/,
  );
});

Deno.test("isolate: a folder outside git is refused with the reason and nothing is made", async () => {
  await using repo = await gitRepo();
  await Deno.remove(join(repo.root, ".git"), { recursive: true });
  const plan = planLaunch(call({ subagent_type: "coder" }), {
    registry,
    parent: parentIn(repo.root),
    now: 1,
  });
  assert.ok(plan.ok);
  const out = await isolate(repo.deps(), plan, repo.root);
  assert.ok("refusal" in out);
  assert.match(out.refusal, /is not inside a git repository.*isolation: none/);
  assert.equal(await Deno.stat(join(repo.storage, "worktrees")).catch(() => null), null);
});
