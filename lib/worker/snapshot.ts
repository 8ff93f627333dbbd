// Owns moving a remote child's tree between machines as git bundles (docs/guides/remote.md): the
// parent's snapshot (HEAD plus every uncommitted change, untracked files included, as one commit on
// top of HEAD, made with a scratch index so the user's index, HEAD and branches are never touched),
// the worker's checkout of it on the branch `blade/<agentId>`, the result bundle of that branch, and
// bringing the branch into the parent's repository (`blade tasks output <id> --fetch`). Every git call
// goes through lib/worktree/git.ts (no hooks, filters or transports of the repository run); bundles
// are read with `git bundle unbundle`, never fetched through a transport.

import { BladeError } from "../errors.ts";
import type { Fs } from "../sys/fs.ts";
import { type Git, gitReason, type GitResult, nulList } from "../worktree/git.ts";

/** The parent's tree as a worker gets it. */
export interface Snapshot {
  /** The parent's HEAD (the result bundle's prerequisite). */
  baseCommit: string;
  /** HEAD plus the uncommitted changes, or HEAD itself when there are none. */
  snapshotCommit: string;
  /** The parent's folder inside its repository, "" or ending in "/". */
  subdir: string;
  /** A bundle of the ref `refs/blade/snapshot` at snapshotCommit (with its history). */
  bundle: Uint8Array;
}

const SNAPSHOT_REF = "refs/blade/snapshot";
/** Who the commits Blade makes name (a snapshot, a remote child's leftover changes). */
const IDENTITY = ["-c", "user.name=Blade", "-c", "user.email=blade@localhost"];

/** The branch a remote child's work is on. */
export function resultBranch(agentId: string): string {
  return `blade/${agentId}`;
}

function failed(what: string, r: GitResult): BladeError {
  return new BladeError("worktree_git_failed", `${what}: ${gitReason(r)}`, {
    hint: "Check the repository with `git status`; the run was not started.",
  });
}

async function ok(git: Git, o: { cwd: string; what: string; env?: Record<string, string>; args: string[] }) {
  const r = await git.run(o.cwd, o.args, o.env === undefined ? undefined : { env: o.env });
  if (!r.ok) throw failed(o.what, r);
  return r.stdout.trim();
}

/** Takes the snapshot of the repository `workspace` is in; `scratch` is an empty folder of this process's. */
export async function takeSnapshot(
  deps: { git: Git; fs: Fs },
  o: { workspace: string; agentId: string; scratch: string },
): Promise<Snapshot> {
  const { git, fs } = deps;
  const { workspace, scratch } = o;
  const top = await git.run(workspace, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) {
    throw new BladeError(
      "worktree_not_git",
      `Cannot place a child remotely: ${workspace} is not in a git repository`,
      {
        hint: "A remote child starts from a snapshot of the repository; run it with isolation: none here.",
      },
    );
  }
  const root = top.stdout.trim();
  const head = await git.run(root, ["rev-parse", "--verify", "HEAD^{commit}"]);
  if (!head.ok) {
    throw new BladeError("worktree_no_commit", `Cannot place a child remotely: ${root} has no commit yet`, {
      hint: "Commit once (git commit --allow-empty -m init), then start it again.",
    });
  }
  const baseCommit = head.stdout.trim();
  const subdir = await ok(git, {
    cwd: workspace,
    what: "Reading the folder's place in its repository",
    args: [
      "rev-parse",
      "--show-prefix",
    ],
  });
  // A scratch index: HEAD's tree, then every change of the work tree (untracked too, ignored files not).
  const env = { GIT_INDEX_FILE: `${scratch}/index` };
  const step = (what: string) => ({ cwd: root, what, env });
  await ok(git, { ...step("Reading HEAD into a scratch index"), args: ["read-tree", "HEAD"] });
  await ok(git, { ...step("Adding the uncommitted changes"), args: ["add", "-A", "--", "."] });
  const tree = await ok(git, { ...step("Writing the snapshot's tree"), args: ["write-tree"] });
  const headTree = await ok(git, { ...step("Reading HEAD's tree"), args: ["rev-parse", "HEAD^{tree}"] });
  const snapshotCommit = tree === headTree ? baseCommit : await ok(git, {
    ...step("Making the snapshot commit"),
    args: [...IDENTITY, "commit-tree", tree, "-p", baseCommit, "-m", `Blade snapshot for ${o.agentId}`],
  });
  const file = `${scratch}/snapshot.bundle`;
  const ref = `${SNAPSHOT_REF}/${o.agentId}`;
  await ok(git, { ...step("Naming the snapshot"), args: ["update-ref", ref, snapshotCommit] });
  try {
    await ok(git, { ...step("Bundling the snapshot"), args: ["bundle", "create", "-q", file, ref] });
  } finally {
    await git.run(root, ["update-ref", "-d", ref]);
  }
  return { baseCommit, snapshotCommit, subdir, bundle: await fs.readBytes(file) };
}

/** The files of `commit` under `path` (relative to `workspace`, as the result is): what a worker's checkout holds there. */
export async function snapshotFiles(
  git: Git,
  o: { workspace: string; commit: string; path: string },
): Promise<Set<string>> {
  const listed = await ok(git, {
    cwd: o.workspace,
    what: "Listing the snapshot's files",
    args: ["ls-tree", "-r", "-z", "--name-only", o.commit, "--", o.path],
  });
  return new Set(nulList(listed));
}

/**
 * Makes `dir` a repository holding the snapshot in `bundleFile`, checked out on `branch` at
 * `snapshotCommit`. `dir` must not exist yet or be empty.
 */
export async function checkoutSnapshot(
  deps: { git: Git; fs: Fs },
  o: { dir: string; bundleFile: string; snapshotCommit: string; branch: string },
): Promise<void> {
  const { git, fs } = deps;
  await fs.ensureDir(o.dir, 0o700);
  const at = (what: string) => ({ cwd: o.dir, what });
  await ok(git, { ...at("Making the worker's repository"), args: ["init", "-q"] });
  await ok(git, { ...at("Reading the snapshot bundle"), args: ["bundle", "unbundle", o.bundleFile] });
  await ok(git, {
    ...at("Checking out the snapshot"),
    args: ["checkout", "-q", "-b", o.branch, o.snapshotCommit],
  });
}

/**
 * Commits what the child left uncommitted on `branch` in `dir`, and bundles the branch's commits after
 * `baseCommit` into `bundleFile` — none when the branch is still at `baseCommit` (nothing to carry:
 * the parent has that commit). Returns the branch's commit and how many commits follow `snapshotCommit`.
 */
export async function bundleResult(
  git: Git,
  o: { dir: string; branch: string; baseCommit: string; snapshotCommit: string; bundleFile: string },
): Promise<{ head: string; commits: number; bundled: boolean }> {
  const at = (what: string) => ({ cwd: o.dir, what });
  await ok(git, { ...at("Adding the child's changes"), args: ["add", "-A", "--", "."] });
  const staged = await git.run(o.dir, ["diff", "--cached", "--quiet"]);
  if (!staged.ok) {
    const message = `Blade: the work of ${o.branch.slice("blade/".length)}`;
    await ok(git, {
      ...at("Committing the child's changes"),
      args: [...IDENTITY, "commit", "-q", "--no-verify", "-m", message],
    });
  }
  const count = await ok(git, {
    ...at("Counting the child's commits"),
    args: ["rev-list", "--count", `${o.snapshotCommit}..${o.branch}`],
  });
  const commits = Number(count);
  const head = await ok(git, {
    ...at("Reading the result branch"),
    args: ["rev-parse", `refs/heads/${o.branch}`],
  });
  if (head === o.baseCommit) return { head, commits, bundled: false };
  await ok(git, {
    ...at("Bundling the result"),
    args: ["bundle", "create", "-q", o.bundleFile, o.branch, `^${o.baseCommit}`],
  });
  return { head, commits, bundled: true };
}

/**
 * Brings `branch` into the repository `workspace` is in: from `bundleFile`, or — the child left
 * nothing — at `head`, a commit the repository has. Never over a branch of that name that holds
 * other commits (that is an error saying so).
 */
export async function fetchResult(
  git: Git,
  o: { workspace: string; bundleFile?: string; branch: string; head?: string },
): Promise<{ commit: string }> {
  const at = (what: string) => ({ cwd: o.workspace, what });
  const commit = o.bundleFile === undefined
    ? o.head!
    : await unbundled(git, { ...o, bundleFile: o.bundleFile });
  const existing = await git.run(o.workspace, ["rev-parse", "--verify", "-q", `refs/heads/${o.branch}`]);
  if (existing.ok && existing.stdout.trim() !== commit) {
    const ancestor = await git.run(o.workspace, [
      "merge-base",
      "--is-ancestor",
      existing.stdout.trim(),
      commit,
    ]);
    if (!ancestor.ok) {
      throw new BladeError("worktree_exists", `The branch ${o.branch} exists here with other commits`, {
        hint: `Rename or delete it (git branch -m ${o.branch} <other>), then fetch again.`,
      });
    }
  }
  await ok(git, {
    ...at("Setting the result branch"),
    args: ["update-ref", `refs/heads/${o.branch}`, commit],
  });
  return { commit };
}

/** Reads `bundleFile` into the repository; the commit it holds for `branch`. */
async function unbundled(
  git: Git,
  o: { workspace: string; bundleFile: string; branch: string },
): Promise<string> {
  const heads = await ok(git, {
    cwd: o.workspace,
    what: "Reading the result bundle",
    args: ["bundle", "unbundle", o.bundleFile],
  });
  const line = heads.split("\n").find((l) => l.endsWith(` refs/heads/${o.branch}`));
  if (line === undefined) {
    throw new BladeError("worktree_git_failed", `The result bundle holds no branch ${o.branch}`, {
      hint: "The worker uploaded something else; run the child again.",
    });
  }
  return line.split(" ")[0]!;
}
