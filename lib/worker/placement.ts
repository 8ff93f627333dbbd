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
import { takeSnapshot } from "./snapshot.ts";
import { jobOf } from "./job.ts";

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

  async submit(record: SidecarRecord, spec: ChildSpec): Promise<void> {
    const { fs, process, env } = this.#ports;
    const scratch = await fs.makeTempDir("blade-snapshot-");
    try {
      const snapshot = await takeSnapshot(
        { git: processGit(process, env), fs },
        { workspace: spec.workspaceRoot, agentId: record.id, scratch },
      );
      await (await this.#shared.bundles()).put(snapshotObject(record.id), snapshot.bundle);
      const remote = {
        baseCommit: snapshot.baseCommit,
        snapshotCommit: snapshot.snapshotCommit,
        subdir: snapshot.subdir,
      };
      const placed = await this.#shared.update(
        record.id,
        (r) => r.status === "running" ? { ...r, remote } : r,
      );
      if (placed.status !== "running") return; // stopped meanwhile: nothing to queue
      await (await this.#shared.jobs()).publish(JSON.stringify(jobOf(spec)), record.id);
    } finally {
      await fs.remove(scratch, { recursive: true }).catch(() => {});
    }
  }
}
