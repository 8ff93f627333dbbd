// Owns pruning stale managed worktrees (`blade tasks clean --worktrees`, docs/guides/isolation.md):
// every `agent+…` folder under `<storage>/worktrees/<repo>-<hash>/` that is a git worktree on a Blade
// branch, unused for longer than the age limit (30 days by default), clean (no changed or untracked
// files; ignored ones do not count) and without commits that no other branch, tag or remote has, is
// removed with its branch. Anything else is left alone and reported with the reason. git through the
// Git port; never forced.

import { join } from "../path.ts";
import type { Fs } from "../sys/fs.ts";
import { type Git, gitReason, nulList } from "./git.ts";
import { MANAGED_BRANCH_PREFIX } from "./names.ts";

export const STALE_WORKTREE_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export interface PruneDeps {
  git: Git;
  fs: Fs;
  worktreesDir: string;
}

export interface PruneReport {
  removed: { path: string; branch: string }[];
  kept: { path: string; reason: string }[];
}

/** The newest of the times git and the files record for the worktree's use. */
async function lastUsed(deps: PruneDeps, path: string): Promise<number | undefined> {
  const dir = await deps.git.run(path, ["rev-parse", "--absolute-git-dir"]);
  const candidates = [path];
  if (dir.ok) {
    const admin = dir.stdout.trim();
    candidates.push(join(admin, "HEAD"), join(admin, "index"), join(admin, "logs", "HEAD"));
  }
  let newest: number | undefined;
  for (const c of candidates) {
    const t = (await deps.fs.stat(c))?.mtimeMs ?? null;
    if (t !== null && (newest === undefined || t > newest)) newest = t;
  }
  return newest;
}

/** Why the worktree at `path` must stay, or its branch and main checkout when it may go. */
async function assess(
  deps: PruneDeps,
  path: string,
  now: number,
  maxAgeMs: number,
): Promise<{ keep: string } | { branch: string; main: string }> {
  const { git } = deps;
  const top = await git.run(path, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) return { keep: `not a git worktree (${gitReason(top)})` };
  const real = await deps.fs.realPath(top.stdout.trim()).catch(() => top.stdout.trim());
  if (real !== path) return { keep: `git reports its top level as ${real}` };
  const head = await git.run(path, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
  const branch = head.ok ? head.stdout.trim() : "";
  if (!branch.startsWith(MANAGED_BRANCH_PREFIX)) return { keep: "it is not on a Blade worktree branch" };
  const used = await lastUsed(deps, path);
  if (used === undefined) return { keep: "its age cannot be read" };
  const days = Math.floor((now - used) / 86_400_000);
  if (now - used < maxAgeMs) return { keep: `last used ${days} day${days === 1 ? "" : "s"} ago` };
  const status = await git.run(path, ["status", "--porcelain", "-z", "--untracked-files=all"]);
  if (!status.ok) return { keep: `its state cannot be checked (${gitReason(status)})` };
  if (nulList(status.stdout).length > 0) return { keep: "it has changed or untracked files" };
  const unpushed = await git.run(path, [
    "rev-list",
    "--count",
    "HEAD",
    "--not",
    `--exclude=${branch}`,
    "--branches",
    "--remotes",
    "--tags",
  ]);
  const count = Number.parseInt(unpushed.stdout.trim(), 10);
  if (!unpushed.ok || !Number.isFinite(count)) return { keep: "its commits cannot be checked" };
  if (count > 0) {
    return { keep: `${count} commit${count === 1 ? "" : "s"} on no other branch, tag or remote` };
  }
  const list = await git.run(path, ["worktree", "list", "--porcelain", "-z"]);
  const main = nulList(list.stdout).find((f) => f.startsWith("worktree "))?.slice("worktree ".length);
  if (!list.ok || main === undefined) return { keep: "its repository cannot be found" };
  return { branch, main };
}

export async function pruneStaleWorktrees(
  deps: PruneDeps,
  options: { now: number; maxAgeMs?: number },
): Promise<PruneReport> {
  const report: PruneReport = { removed: [], kept: [] };
  const maxAgeMs = options.maxAgeMs ?? STALE_WORKTREE_AGE_MS;
  if ((await deps.fs.stat(deps.worktreesDir)) === null) return report;
  for (const repo of await deps.fs.readDir(deps.worktreesDir)) {
    if (!repo.isDirectory || repo.isSymlink) continue;
    const repoDir = join(deps.worktreesDir, repo.name);
    for (const entry of await deps.fs.readDir(repoDir)) {
      if (!entry.isDirectory || entry.isSymlink || !entry.name.startsWith("agent+")) continue;
      const path = await deps.fs.realPath(join(repoDir, entry.name));
      const verdict = await assess(deps, path, options.now, maxAgeMs);
      if ("keep" in verdict) {
        report.kept.push({ path, reason: verdict.keep });
        continue;
      }
      const removed = await deps.git.run(verdict.main, ["worktree", "remove", path]);
      if (!removed.ok) {
        report.kept.push({ path, reason: `removing it failed (${gitReason(removed)})` });
        continue;
      }
      await deps.git.run(verdict.main, ["branch", "-D", verdict.branch]);
      report.removed.push({ path, branch: verdict.branch });
    }
  }
  return report;
}
