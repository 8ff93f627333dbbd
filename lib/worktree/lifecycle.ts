// Owns the lifecycle of a child's git worktree (docs/reference/worktrees.md): prepare one from the
// parent's HEAD (or refuse clearly, leaving nothing half-made), decide at the end whether it can go
// (success, nothing changed, no commits) or must be kept, remove it, and check a stored lease against
// git before a resumed child uses it again. git runs through the Git port (git.ts); files through Fs.
// Does not decide where a child may write (guard.ts) or prune old worktrees (prune.ts).

import { join } from "../path.ts";
import { BladeError, type BladeErrorCode } from "../errors.ts";
import type { Clock } from "../sys/clock.ts";
import type { Fs } from "../sys/fs.ts";
import type { WorktreeLease } from "../store/schema.ts";
import { type Git, gitReason, nulList } from "./git.ts";
import { isManagedWorktreePath, MANAGED_BRANCH_PREFIX, workspaceOffset, worktreeNames } from "./names.ts";

export interface WorktreeDeps {
  git: Git;
  fs: Fs;
  clock: Clock;
  /** `<storage>/worktrees`. */
  worktreesDir: string;
}

export interface PrepareInput {
  /** The parent's canonical workspace (a folder inside a git checkout). */
  workspaceRoot: string;
  agentId: string;
}

function refuse(code: BladeErrorCode, message: string, hint: string): BladeError {
  return new BladeError(code, message, { hint });
}

/**
 * `git worktree add -b <branch> <path> <HEAD>` for a new child. Throws a BladeError for a folder
 * that is not in a git checkout, a bare repository, a repository without a commit, or a failed add;
 * in every such case nothing is left behind (no folder, no branch, no worktree entry).
 */
export async function prepareWorktree(deps: WorktreeDeps, input: PrepareInput): Promise<WorktreeLease> {
  const { git, fs } = deps;
  const ws = input.workspaceRoot;
  // Only recorded in the lease (sourceHadChanges), so it runs beside everything else; it never takes
  // the index lock (GIT_OPTIONAL_LOCKS=0, git.ts), so it cannot disturb the add.
  const status = git.run(ws, ["status", "--porcelain", "-z", "--untracked-files=normal"]);
  try {
    const [{ repositoryRoot, baseCommit }, symbolic] = await Promise.all([
      repositoryBase(deps, ws),
      git.run(ws, ["symbolic-ref", "--quiet", "--short", "HEAD"]),
    ]);
    const offset = workspaceOffset(repositoryRoot, ws) ?? "";
    const names = await worktreeNames(deps.worktreesDir, repositoryRoot, input.agentId);
    if (await fs.lstat(names.path) !== null) {
      throw refuse(
        "worktree_exists",
        `Cannot create the worktree for ${input.agentId}: ${names.path} already exists.`,
        "Remove it (git worktree remove) or choose another agent id.",
      );
    }
    await fs.ensureDir(names.repoDir, 0o700);
    const add = await git.run(repositoryRoot, [
      ...CHECKOUT_CONFIG,
      "worktree",
      "add",
      "--quiet",
      "-b",
      names.branch,
      names.path,
      baseCommit,
    ]);
    if (!add.ok) {
      await undoAdd(deps, repositoryRoot, names.path, names.branch, baseCommit);
      throw gitFailure(`create the worktree ${names.path}`, add);
    }
    try {
      const worktreeRoot = await fs.realPath(names.path);
      const workspace = offset === "" ? worktreeRoot : join(worktreeRoot, offset);
      // A parent folder git does not track (e.g. an empty or ignored one) does not exist in the worktree.
      if (await fs.stat(workspace) === null) await fs.ensureDir(workspace, 0o755);
      await requireInside(fs, worktreeRoot, workspace);
      const source = await status;
      return {
        name: names.name,
        branch: names.branch,
        baseCommit,
        originalBranch: symbolic.ok && symbolic.stdout.trim() !== "" ? symbolic.stdout.trim() : null,
        repositoryRoot,
        originalWorkspaceRoot: ws,
        worktreeRoot,
        workspaceRoot: workspace,
        sourceHadChanges: !source.ok || source.stdout !== "",
        ownerAgentId: input.agentId,
        createdAt: deps.clock.now(),
        state: "active",
      };
    } catch (e) {
      await undoAdd(deps, repositoryRoot, names.path, names.branch, baseCommit);
      throw e;
    }
  } finally {
    await status; // never left running behind a refusal
  }
}

/**
 * Refuses a workspace that resolves outside its worktree: the child is granted and guarded on that
 * folder, so a sub-folder that HEAD has as a symlink (to the parent's checkout, a home folder) would
 * hand it whatever the link names.
 */
async function requireInside(fs: Fs, worktreeRoot: string, workspace: string): Promise<void> {
  const real = await fs.realPath(workspace);
  if (real === workspace && workspaceOffset(worktreeRoot, real) !== undefined) return;
  throw refuse(
    "worktree_workspace_outside",
    `Cannot isolate the agent in a git worktree: its workspace ${workspace} resolves to ${real}, outside the worktree ${worktreeRoot}.`,
    "Start the agent from a folder the repository does not have as a symlink (e.g. the repository root), or use isolation: none.",
  );
}

/** Refuses a folder that is not inside a git working tree (not a repository, or a bare one). */
async function requireWorkTree(git: Git, ws: string): Promise<void> {
  const inside = await git.run(ws, ["rev-parse", "--is-inside-work-tree"]);
  if (!inside.ok) {
    throw refuse(
      "worktree_not_git",
      `Cannot isolate the agent in a git worktree: ${ws} is not inside a git repository (${
        gitReason(inside)
      }).`,
      "Run Blade inside a git checkout, or start the agent with isolation: none.",
    );
  }
  if (inside.stdout.trim() !== "true") {
    throw refuse(
      "worktree_bare_repository",
      `Cannot isolate the agent in a git worktree: ${ws} is not a working tree (a bare repository or a .git folder).`,
      "Run Blade in a checkout with a working tree, or start the agent with isolation: none.",
    );
  }
}

/**
 * The repository's real root and the commit HEAD names. One git call when all is well; when it fails,
 * the checks run one by one so the refusal says exactly what is wrong (not a repository, a bare one,
 * no commit yet).
 */
async function repositoryBase(
  deps: WorktreeDeps,
  ws: string,
): Promise<{ repositoryRoot: string; baseCommit: string }> {
  const { git, fs } = deps;
  const probe = await git.run(ws, [
    "rev-parse",
    "--is-inside-work-tree",
    "--show-toplevel",
    "--verify",
    "--quiet",
    "HEAD^{commit}",
  ]);
  const lines = probe.stdout.split("\n").filter((l) => l !== "");
  if (probe.ok && lines.length === 3 && lines[0] === "true") {
    return { repositoryRoot: await fs.realPath(lines[1]!), baseCommit: lines[2]! };
  }
  await requireWorkTree(git, ws);
  const top = await git.run(ws, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) throw gitFailure("find the repository root", top);
  const repositoryRoot = await fs.realPath(top.stdout.trim());
  const head = await git.run(ws, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (!head.ok || head.stdout.trim() === "") {
    throw refuse(
      "worktree_no_commit",
      `Cannot isolate the agent in a git worktree: the repository ${repositoryRoot} has no commit yet, so there is nothing to check out.`,
      "Make a first commit (git commit), or start the agent with isolation: none.",
    );
  }
  return { repositoryRoot, baseCommit: head.stdout.trim() };
}

/** Takes back a worktree add that failed half-way: its entry, its folder, and the branch if it is still at base. */
async function undoAdd(deps: WorktreeDeps, repoRoot: string, path: string, branch: string, base: string) {
  await deps.git.run(repoRoot, ["worktree", "remove", "--force", path]);
  await deps.fs.remove(path, { recursive: true }).catch(() => {});
  await deps.git.run(repoRoot, ["worktree", "prune"]);
  const at = await deps.git.run(repoRoot, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
  if (at.ok && at.stdout.trim() === base) await deps.git.run(repoRoot, ["branch", "-D", branch]);
}

function gitFailure(what: string, r: { code: number; stdout: string; stderr: string; ok: boolean }) {
  return new BladeError("worktree_git_failed", `Cannot ${what}: git failed (${gitReason(r)}).`, {
    hint: "Check the repository with `git status` and `git worktree list`, then try again.",
  });
}

/** What the worktree holds that the base commit does not. `uncertain` when a git check failed. */
export interface WorktreeChanges {
  changedFiles: number;
  commits: number;
  uncertain?: string;
}

/** Changed files (diff against the base, plus untracked; ignored files excluded) and new commits. */
export async function inspectWorktree(git: Git, lease: WorktreeLease): Promise<WorktreeChanges> {
  const wt = lease.worktreeRoot;
  const [diff, untracked, commits, branch] = await Promise.all([
    git.run(wt, ["diff", "--name-only", "-z", lease.baseCommit, "--"]),
    git.run(wt, ["ls-files", "--others", "--exclude-standard", "-z"]),
    git.run(wt, ["rev-list", "--count", `${lease.baseCommit}..HEAD`]),
    git.run(wt, ["rev-parse", "--verify", "--quiet", `refs/heads/${lease.branch}`]),
  ]);
  const files = new Set([...nulList(diff.stdout), ...nulList(untracked.stdout)]);
  const count = Number.parseInt(commits.stdout.trim(), 10);
  const failed = [diff, untracked, commits, branch].find((r) => !r.ok);
  const changes: WorktreeChanges = {
    changedFiles: files.size,
    commits: Number.isFinite(count) ? count : 0,
  };
  if (failed !== undefined) changes.uncertain = gitReason(failed);
  else if (branch.stdout.trim() !== lease.baseCommit && changes.commits === 0) {
    // The branch moved while HEAD did not (the child switched branches): its commits count too.
    changes.commits = 1;
  }
  return changes;
}

/**
 * Parallel checkout for `git worktree add`: one checkout worker per core (`checkout.workers=0`) once at
 * least 100 files are written (git's own threshold; fewer stay sequential). Writing the files is nearly
 * all of a worktree's cost, and on a busy disk two workers roughly halve it (docs/guides/isolation.md,
 * "Cost"). Needs git 2.32; an older git ignores the setting.
 */
const CHECKOUT_CONFIG: readonly string[] = ["-c", "checkout.workers=0"];

export type FinishOutcome =
  | { kept: false }
  | { kept: true; lease: WorktreeLease; changedFiles: number; commits: number; reason: string };

/** Why a finished child's worktree must be kept, or undefined when it can be removed. Pure. */
export function keepReason(success: boolean, changes: WorktreeChanges): string | undefined {
  if (changes.uncertain !== undefined) return `its state could not be checked (${changes.uncertain})`;
  if (!success) return "the agent did not finish successfully";
  if (changes.commits > 0) return `the branch has ${plural(changes.commits, "new commit")}`;
  if (changes.changedFiles > 0) return `${plural(changes.changedFiles, "file")} changed`;
  return undefined;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The end of a child's run: a successful run that changed nothing and committed nothing loses its
 * worktree and branch; anything else (failure, changes, commits, a git check that failed, a removal
 * that failed) keeps both and says why.
 */
export async function finishWorktree(
  deps: WorktreeDeps,
  lease: WorktreeLease,
  success: boolean,
): Promise<FinishOutcome> {
  let removal: string | undefined;
  if (success) {
    const attempt = await removeIfUnchanged(deps, lease);
    if (attempt.removed) return { kept: false };
    removal = attempt.failure;
  }
  const changes = await inspectWorktree(deps.git, lease);
  const why = keepReason(success, changes) ?? removal ?? "its state could not be checked";
  return {
    kept: true,
    lease: {
      ...lease,
      state: "kept",
      changedFiles: changes.changedFiles,
      commits: changes.commits,
      keptBecause: why,
    },
    changedFiles: changes.changedFiles,
    commits: changes.commits,
    reason: why,
  };
}

/**
 * Removes the worktree of a successful child when HEAD and its branch are still at the base commit and
 * the tree is clean. The clean check is `git worktree remove`'s own (never forced): it refuses a worktree
 * with modified, staged or untracked files (ignored ones do not count), submodules or a lock. With HEAD
 * at the base that is the same as "no changed files against the base, none untracked" (and stricter), so
 * the clean path costs one status, not two. The user's `status.showUntrackedFiles=no` would hide
 * untracked files from that check (and `git worktree remove` would delete them), and an fsmonitor
 * could answer from stale data, so both are overridden for this call.
 */
async function removeIfUnchanged(
  deps: WorktreeDeps,
  lease: WorktreeLease,
): Promise<{ removed: true } | { removed: false; failure?: string }> {
  const heads = await deps.git.run(lease.worktreeRoot, ["rev-parse", "HEAD", `refs/heads/${lease.branch}`]);
  const [head, branch] = heads.stdout.split("\n");
  if (!heads.ok || head !== lease.baseCommit || branch !== lease.baseCommit) return { removed: false };
  const failure = await removeWorktree(deps, lease);
  return failure === undefined ? { removed: true } : { removed: false, failure };
}

/** Options for every call that decides or removes on git's view of the tree (see removeIfUnchanged). */
const CLEAN_CHECK_CONFIG = ["-c", "status.showUntrackedFiles=normal", "-c", "core.fsmonitor=false"];

/**
 * `git worktree remove` (never forced: git refuses a tree with changes) and the managed branch deleted
 * only while it still names the base commit; the reason when either failed.
 */
export async function removeWorktree(deps: WorktreeDeps, lease: WorktreeLease): Promise<string | undefined> {
  const remove = await deps.git.run(lease.repositoryRoot, [
    ...CLEAN_CHECK_CONFIG,
    "worktree",
    "remove",
    lease.worktreeRoot,
  ]);
  if (!remove.ok) return `removing it failed (${gitReason(remove)})`;
  if (!lease.branch.startsWith(MANAGED_BRANCH_PREFIX)) return undefined;
  const branch = await deps.git.run(lease.repositoryRoot, [
    "update-ref",
    "-d",
    `refs/heads/${lease.branch}`,
    lease.baseCommit,
  ]);
  if (!branch.ok) return `deleting its branch failed (${gitReason(branch)})`;
  return undefined;
}

/**
 * Checks a stored lease against git before a resumed child works in it again: the folder exists and
 * is that worktree's top level, it is on the lease's branch, the base commit is in its history, and
 * the repository still lists it. Throws a BladeError saying what no longer matches.
 */
export async function verifyLease(deps: WorktreeDeps, lease: WorktreeLease): Promise<WorktreeLease> {
  const mismatch = (what: string) =>
    new BladeError(
      "worktree_lease_mismatch",
      `Cannot restore the worktree of ${lease.ownerAgentId} at ${lease.worktreeRoot}: ${what}.`,
      {
        hint: `Inspect it with \`git -C ${lease.repositoryRoot} worktree list\`; restore the branch ` +
          `${lease.branch} there, or start a new agent instead of resuming.`,
      },
    );
  const managedDir = await deps.fs.realPath(deps.worktreesDir).catch(() => deps.worktreesDir);
  if (
    !isManagedWorktreePath(managedDir, lease.worktreeRoot) || !lease.branch.startsWith(MANAGED_BRANCH_PREFIX)
  ) {
    throw mismatch(
      `it is not a worktree Blade manages (under ${managedDir}, on a ${MANAGED_BRANCH_PREFIX}… branch)`,
    );
  }
  if (await deps.fs.stat(lease.worktreeRoot) === null) throw mismatch("the folder no longer exists");
  const workspace = await deps.fs.realPath(lease.workspaceRoot).catch(() => undefined);
  if (workspace !== lease.workspaceRoot || workspaceOffset(lease.worktreeRoot, workspace) === undefined) {
    throw mismatch(`its workspace ${lease.workspaceRoot} is not a folder inside it`);
  }
  const top = await deps.git.run(lease.worktreeRoot, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) throw mismatch(`it is no longer a git worktree (${gitReason(top)})`);
  const real = await deps.fs.realPath(top.stdout.trim()).catch(() => top.stdout.trim());
  if (real !== lease.worktreeRoot) throw mismatch(`git reports its top level as ${real}`);
  const branch = await deps.git.run(lease.worktreeRoot, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
  const on = branch.ok ? branch.stdout.trim() : "a detached HEAD";
  if (on !== lease.branch) throw mismatch(`it is on ${on}, not on its branch ${lease.branch}`);
  const base = await deps.git.run(lease.worktreeRoot, [
    "merge-base",
    "--is-ancestor",
    lease.baseCommit,
    "HEAD",
  ]);
  if (!base.ok) {
    throw mismatch(`its base commit ${lease.baseCommit.slice(0, 12)} is not in the branch's history`);
  }
  const list = await deps.git.run(lease.repositoryRoot, ["worktree", "list", "--porcelain", "-z"]);
  if (!list.ok) throw mismatch(`the repository cannot list its worktrees (${gitReason(list)})`);
  if (!(await listsWorktree(deps.fs, list.stdout, lease))) {
    throw mismatch(`the repository ${lease.repositoryRoot} no longer lists it on branch ${lease.branch}`);
  }
  return { ...lease, state: "active" };
}

/** Whether `git worktree list --porcelain -z` output has the lease's folder on the lease's branch. */
async function listsWorktree(fs: Fs, porcelain: string, lease: WorktreeLease): Promise<boolean> {
  let path: string | undefined;
  for (const field of porcelain.split("\0")) {
    if (field.startsWith("worktree ")) path = field.slice("worktree ".length);
    else if (field === `branch refs/heads/${lease.branch}` && path !== undefined) {
      const real = await fs.realPath(path).catch(() => path!);
      if (real === lease.worktreeRoot) return true;
    }
  }
  return false;
}
