// Owns applying worktree isolation around a child run (docs/guides/isolation.md): before the run,
// make the worktree for an isolated launch plan (or refuse with git's reason, nothing half-made), or
// check a resumed child's lease against git and take it over; after
// it, keep or remove the worktree by the run's outcome. The decisions are lib/worktree/'s; this file
// only connects them to the launch plan (`inWorktree` moves a plan into its worktree, pure) and the
// runtime's ports.

import type { Ports } from "../sys/mod.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { WorktreeLease } from "../store/schema.ts";
import type { ActiveWorktree } from "../tools/tool.ts";
import { BladeError, describeError } from "../errors.ts";
import { processGit } from "../worktree/git.ts";
import {
  finishWorktree,
  prepareWorktree,
  removeWorktree,
  verifyLease,
  type WorktreeDeps,
} from "../worktree/lifecycle.ts";
import type { LaunchPlan } from "../launch/launch_plan.ts";

type Planned = Extract<LaunchPlan, { ok: true }>;

export function worktreeDeps(ports: Ports, layout: StorageLayout): WorktreeDeps {
  return {
    git: processGit(ports.process, ports.env),
    fs: ports.fs,
    clock: ports.clock,
    worktreesDir: layout.worktreesDir,
  };
}

/** The plan with its worktree made when it asks for one; a refusal text when that fails. */
export async function isolate(
  deps: WorktreeDeps,
  plan: Planned,
  parentWorkspace: string,
): Promise<Planned | { refusal: string }> {
  const restore = plan.restoreIsolation;
  if (restore.kind === "worktree") {
    // A resumed child works in its source's worktree again, once the lease still matches git.
    if (restore.lease === undefined) {
      return { refusal: `Cannot resume in a worktree: the source run has no worktree lease to restore.` };
    }
    try {
      return inWorktree(plan, await verifyLease(deps, restore.lease));
    } catch (e) {
      const hint = e instanceof BladeError && e.hint !== undefined ? ` ${e.hint}` : "";
      return { refusal: `${describeError(e)}${hint}` };
    }
  }
  if (plan.record.isolation !== "worktree") return plan;
  try {
    const lease = await prepareWorktree(deps, { workspaceRoot: parentWorkspace, agentId: plan.record.id });
    return inWorktree(plan, lease);
  } catch (e) {
    const hint = e instanceof BladeError && e.hint !== undefined ? ` ${e.hint}` : "";
    return { refusal: `${describeError(e)}${hint}` };
  }
}

/** Takes back a worktree made for a launch that then could not be recorded. */
export async function abandon(deps: WorktreeDeps, lease: WorktreeLease | undefined): Promise<void> {
  if (lease !== undefined) await removeWorktree(deps, lease).catch(() => {});
}

/** The lease after the run: removed when it succeeded and left nothing, else kept with why. */
export async function settleWorktree(
  deps: WorktreeDeps,
  lease: WorktreeLease,
  success: boolean,
): Promise<WorktreeLease> {
  try {
    const out = await finishWorktree(deps, lease, success);
    return out.kept ? out.lease : { ...lease, state: "removed" };
  } catch (e) {
    return { ...lease, state: "kept", keptBecause: `its state could not be checked (${describeError(e)})` };
  }
}

/**
 * The plan of an isolated launch once its worktree exists: the record holds the lease, and the child
 * works in the worktree (its workspace keeps the parent's sub-directory offset).
 */
export function inWorktree(
  plan: Extract<LaunchPlan, { ok: true }>,
  lease: WorktreeLease,
): Extract<LaunchPlan, { ok: true }> {
  const worktree: ActiveWorktree = {
    workspaceRoot: lease.workspaceRoot,
    worktreeRoot: lease.worktreeRoot,
    parentCheckout: lease.repositoryRoot,
  };
  return {
    ...plan,
    record: { ...plan.record, workspaceRoot: lease.workspaceRoot, worktree: lease },
    spec: { ...plan.spec, workspaceRoot: lease.workspaceRoot, worktree },
  };
}
