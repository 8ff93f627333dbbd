// Owns placing a remote child from its parent's side (docs/guides/remote.md): the RemotePlacement of
// lib/run/remote_child.ts over the shared NATS store. The snapshot of the parent's tree
// (snapshot.ts) goes to the bundle store as `snapshots/<agentId>.bundle`, the child's record learns
// which commits it holds, and only then is the job (job.ts) published to the work queue, with
// Nats-Msg-Id = the child's id, so a repeat is dropped and no child is queued twice.

import type { Ports } from "../sys/mod.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { ChildSpec } from "../executor/child.ts";
import type { RemotePlacement } from "../run/remote_child.ts";
import type { LazyNatsStore } from "../remote/lazy_nats_store.ts";
import { processGit } from "../worktree/git.ts";
import { BladeError } from "../errors.ts";
import { fetchResult, snapshotFiles, takeSnapshot } from "./snapshot.ts";
import { jobOf } from "./job.ts";
import { readJobSkills } from "./job_skills.ts";

/** Where a child's snapshot bundle is kept in the bundle store. */
export function snapshotObject(agentId: string): string {
  return `snapshots/${agentId}.bundle`;
}

/** Where a remote child's result bundle is kept in the bundle store. */
export function resultObject(agentId: string): string {
  return `results/${agentId}.bundle`;
}

export class NatsPlacement implements RemotePlacement {
  #shared: LazyNatsStore;
  #ports: Ports;

  constructor(shared: LazyNatsStore, ports: Ports) {
    this.#shared = shared;
    this.#ports = ports;
  }

  async submit(record: SidecarRecord, spec: ChildSpec): Promise<boolean> {
    const { fs, process, env } = this.#ports;
    const scratch = await fs.makeTempDir("blade-snapshot-");
    const git = processGit(process, env);
    try {
      const snapshot = await takeSnapshot(
        { git, fs },
        { workspace: spec.workspaceRoot, agentId: record.id, scratch },
      );
      // The child's skills: those in the snapshot by name, the others' instructions with the job.
      const skills = spec.context?.skills ?? [];
      const inSnapshot = !skills.some((s) => s.source === "project")
        ? new Set<string>()
        : await snapshotFiles(
          git,
          { workspace: spec.workspaceRoot, commit: snapshot.snapshotCommit, path: ".claude/skills" },
        );
      const job = jobOf(spec, { skills: await readJobSkills(fs, { skills, snapshotFiles: inSnapshot }) });
      await (await this.#shared.bundles()).put(snapshotObject(record.id), snapshot.bundle);
      const remote = {
        baseCommit: snapshot.baseCommit,
        snapshotCommit: snapshot.snapshotCommit,
        subdir: snapshot.subdir,
      };
      // Queued, the run is no longer this process's: its PID goes (until a worker's replaces it), so
      // recovery never takes it for an orphan of this process if this process dies before it runs.
      const placed = await this.#shared.update(record.id, (r) => {
        if (r.status !== "running") return r;
        const { processId: _pid, processIdentity: _identity, ...rest } = r;
        return { ...rest, remote };
      });
      if (placed.status !== "running") return false; // stopped meanwhile: nothing to queue
      await (await this.#shared.jobs()).publish(JSON.stringify(job), record.id);
      return true;
    } finally {
      await fs.remove(scratch, { recursive: true }).catch(() => {});
    }
  }

  watch(id: string, onChange: () => void): Promise<() => void> {
    return this.#shared.watchRecord(id, onChange);
  }
}

/**
 * `blade tasks output <id> --fetch`: brings a remote run's result branch from the bundle store into
 * the repository `workspace` is in (snapshot.ts fetchResult: never over other commits).
 */
export async function fetchRemoteBranch(
  shared: LazyNatsStore,
  o: { ports: Ports; workspace: string; record: SidecarRecord },
): Promise<{ branch: string; commit: string }> {
  const { fs, process, env } = o.ports;
  const remote = o.record.remote;
  const branch = remote?.branch;
  const git = processGit(process, env);
  if (branch !== undefined && remote?.head !== undefined && remote.head === remote.baseCommit) {
    // The child left nothing: its branch is the parent's own base commit (no bundle was made).
    return { branch, ...await fetchResult(git, { workspace: o.workspace, branch, head: remote.head }) };
  }
  const bundle = branch === undefined ? null : await (await shared.bundles()).get(resultObject(o.record.id));
  if (branch === undefined || bundle === null) {
    throw new BladeError("task_not_found", `The result of ${o.record.id} is not in the shared store`, {
      hint: "Its worker had not uploaded it (the run did not end on a worker), or it was removed.",
    });
  }
  const scratch = await fs.makeTempDir("blade-fetch-");
  try {
    const file = `${scratch}/result.bundle`;
    await fs.writeBytes(file, bundle, { mode: 0o600 });
    const { commit } = await fetchResult(git, {
      workspace: o.workspace,
      bundleFile: file,
      branch,
    });
    return { branch, commit };
  } finally {
    await fs.remove(scratch, { recursive: true }).catch(() => {});
  }
}
