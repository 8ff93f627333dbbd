// Owns how a worktree lease is shown to a parent (Task metadata, TaskOutput) and to the user
// (`blade tasks list|output`): path, branch, state, and for a kept worktree what it holds. Pure.

import type { WorktreeLease } from "../store/schema.ts";

export interface WorktreeView {
  path: string;
  branch: string;
  state: WorktreeLease["state"];
  base_commit: string;
  changed_files?: number;
  commits?: number;
  kept_because?: string;
}

export function worktreeView(lease: WorktreeLease): WorktreeView {
  return {
    path: lease.worktreeRoot,
    branch: lease.branch,
    state: lease.state,
    base_commit: lease.baseCommit,
    ...(lease.changedFiles === undefined ? {} : { changed_files: lease.changedFiles }),
    ...(lease.commits === undefined ? {} : { commits: lease.commits }),
    ...(lease.keptBecause === undefined ? {} : { kept_because: lease.keptBecause }),
  };
}

/** `Worktree preserved at <path> on branch <branch> (…)` for a kept lease, else undefined. */
export function preservedLine(lease: WorktreeLease): string | undefined {
  if (lease.state !== "kept") return undefined;
  const n = (count: number | undefined, word: string) =>
    count === undefined ? undefined : `${count} ${word}${count === 1 ? "" : "s"}`;
  const facts = [n(lease.changedFiles, "changed file"), n(lease.commits, "commit")].filter((f) =>
    f !== undefined
  );
  const why = lease.keptBecause === undefined ? "" : `; kept because ${lease.keptBecause}`;
  const detail = facts.length === 0 && why === "" ? "" : ` (${facts.join(", ")}${why})`;
  return `Worktree preserved at ${lease.worktreeRoot} on branch ${lease.branch}${detail}.`;
}
