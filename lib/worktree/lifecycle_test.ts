import assert from "node:assert/strict";
import { join } from "node:path";
import { type GitRepo, gitRepo } from "../testing/git_repo.ts";
import { realFs } from "../sys/fs.ts";
import { BladeError } from "../errors.ts";
import { finishWorktree, keepReason, prepareWorktree, verifyLease } from "./lifecycle.ts";
import { worktreeNames } from "./names.ts";
import { preservedLine } from "./view.ts";

const fs = realFs();
const ID = "agent-abcdefghijklmnopqrstu";

async function exists(path: string): Promise<boolean> {
  return (await fs.lstat(path)) !== null;
}

async function branches(repo: { git(a: string[]): Promise<string> }): Promise<string[]> {
  return (await repo.git(["branch", "--format=%(refname:short)"])).trim().split("\n");
}

Deno.test("prepare makes the worktree from HEAD with the documented names and lease", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const base = (await repo.git(["rev-parse", "HEAD"])).trim();
  await repo.write("src/a.ts", "export const a = 2; // uncommitted\n");
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  const names = await worktreeNames(deps.worktreesDir, repo.root, ID);
  assert.deepEqual(lease, {
    name: `agent+${ID}`,
    branch: names.branch,
    baseCommit: base,
    originalBranch: "main",
    repositoryRoot: repo.root,
    originalWorkspaceRoot: repo.root,
    worktreeRoot: names.path,
    workspaceRoot: names.path,
    sourceHadChanges: true,
    ownerAgentId: ID,
    createdAt: deps.clock.now(),
    state: "active",
  });
  assert.match(names.branch, /^blade-worktree-agent\+agent-abcdefghijklmnopqrstu-[0-9a-f]{8}$/);
  assert.match(names.repoDir, /\/worktrees\/repo-[0-9a-f]{12}$/);
  // The worktree starts from HEAD: the parent's uncommitted edit is not in it, and main did not move.
  assert.equal(await fs.readText(join(lease.worktreeRoot, "src/a.ts")), "export const a = 1;\n");
  assert.equal((await repo.git(["rev-parse", "main"])).trim(), base);
  assert.equal((await repo.git(["symbolic-ref", "--short", "HEAD"])).trim(), "main");
});

Deno.test("prepare keeps the parent's sub-directory offset", async () => {
  await using repo = await gitRepo({ "packages/a/x.ts": "x\n", "README.md": "r\n" });
  const lease = await prepareWorktree(repo.deps(), {
    workspaceRoot: join(repo.root, "packages/a"),
    agentId: ID,
  });
  assert.equal(lease.workspaceRoot, join(lease.worktreeRoot, "packages/a"));
  assert.equal(lease.originalWorkspaceRoot, join(repo.root, "packages/a"));
  assert.equal(await fs.readText(join(lease.workspaceRoot, "x.ts")), "x\n");
});

Deno.test("a clean successful finish removes the worktree and its branch", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  assert.deepEqual(await finishWorktree(deps, lease, true), { kept: false });
  assert.equal(await exists(lease.worktreeRoot), false);
  assert.deepEqual(await branches(repo), ["main"]);
  assert.doesNotMatch(await repo.git(["worktree", "list"]), /agent\+/);
});

Deno.test("ignored files do not keep a worktree", async () => {
  await using repo = await gitRepo({ ".gitignore": "node_modules/\n", "a.txt": "a\n" });
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  await fs.ensureDir(join(lease.worktreeRoot, "node_modules"), 0o755);
  await fs.writeText(join(lease.worktreeRoot, "node_modules/x.js"), "x");
  assert.deepEqual(await finishWorktree(deps, lease, true), { kept: false });
  assert.equal(await exists(lease.worktreeRoot), false);
});

Deno.test("a changed tracked file keeps the worktree; the parent's checkout is unchanged", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  await fs.writeText(join(lease.worktreeRoot, "src/a.ts"), "export const a = 42;\n");
  const out = await finishWorktree(deps, lease, true);
  assert.equal(out.kept, true);
  if (!out.kept) return;
  assert.equal(out.changedFiles, 1);
  assert.equal(out.commits, 0);
  assert.equal(out.lease.state, "kept");
  assert.equal(await fs.readText(join(lease.worktreeRoot, "src/a.ts")), "export const a = 42;\n");
  assert.equal(await fs.readText(join(repo.root, "src/a.ts")), "export const a = 1;\n");
  assert.equal(
    preservedLine(out.lease),
    `Worktree preserved at ${lease.worktreeRoot} on branch ${lease.branch} (1 changed file, 0 commits; kept because 1 file changed).`,
  );
});

Deno.test("an untracked file keeps the worktree", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  await fs.writeText(join(lease.worktreeRoot, "new.txt"), "n\n");
  const out = await finishWorktree(deps, lease, true);
  assert.equal(out.kept && out.changedFiles, 1);
});

Deno.test("untracked files keep the worktree even when the user's git hides them (status.showUntrackedFiles=no)", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  // Without the override, `git worktree remove` would see a clean tree and delete the file.
  await repo.git(["config", "status.showUntrackedFiles", "no"]);
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  await fs.writeText(join(lease.worktreeRoot, "notes.txt"), "the child's only work\n");
  const out = await finishWorktree(deps, lease, true);
  assert.equal(out.kept && out.changedFiles, 1);
  assert.equal(await fs.readText(join(lease.worktreeRoot, "notes.txt")), "the child's only work\n");
});

Deno.test("a staged change the working tree undid still keeps the worktree", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  const file = join(lease.worktreeRoot, "src/a.ts");
  await fs.writeText(file, "export const a = 5;\n");
  await repo.git(["add", "src/a.ts"], lease.worktreeRoot);
  await fs.writeText(file, "export const a = 1;\n");
  const out = await finishWorktree(deps, lease, true);
  assert.equal(out.kept, true);
  assert.match(out.kept ? out.reason : "", /removing it failed \(.*contains modified or untracked files/);
  assert.equal(await exists(lease.worktreeRoot), true);
});

Deno.test("a branch reset behind its base keeps the worktree", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const first = (await repo.git(["rev-parse", "HEAD"])).trim();
  await repo.write("src/b.ts", "export const b = 1;\n");
  await repo.commitAll("second");
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  await repo.git(["reset", "--quiet", "--hard", first], lease.worktreeRoot);
  const out = await finishWorktree(deps, lease, true);
  assert.equal(out.kept, true, "the tree no longer matches its base");
  assert.equal(await exists(lease.worktreeRoot), true);
});

Deno.test("a new commit keeps the worktree", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  await fs.writeText(join(lease.worktreeRoot, "src/a.ts"), "export const a = 3;\n");
  await repo.git(["add", "-A"], lease.worktreeRoot);
  await repo.git(["commit", "--quiet", "-m", "child"], lease.worktreeRoot);
  const out = await finishWorktree(deps, lease, true);
  assert.equal(out.kept, true);
  if (!out.kept) return;
  assert.equal(out.commits, 1);
  assert.equal(out.changedFiles, 1);
  assert.ok((await branches(repo)).includes(lease.branch));
});

Deno.test("a failure on a clean tree keeps the worktree", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  const out = await finishWorktree(deps, lease, false);
  assert.equal(out.kept, true);
  assert.equal(out.kept && out.reason, "the agent did not finish successfully");
  assert.equal(await exists(lease.worktreeRoot), true);
});

Deno.test("a git failure while checking counts as changed", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  // A base commit git does not know makes the diff fail.
  const out = await finishWorktree(deps, { ...lease, baseCommit: "0".repeat(40) }, true);
  assert.equal(out.kept, true);
  assert.match(out.kept ? out.reason : "", /could not be checked/);
  assert.equal(await exists(lease.worktreeRoot), true);
});

Deno.test("keepReason table", () => {
  const clean = { changedFiles: 0, commits: 0 };
  assert.equal(keepReason(true, clean), undefined);
  assert.equal(keepReason(false, clean), "the agent did not finish successfully");
  assert.equal(keepReason(true, { changedFiles: 2, commits: 0 }), "2 files changed");
  assert.equal(keepReason(true, { changedFiles: 0, commits: 3 }), "the branch has 3 new commits");
  assert.match(keepReason(true, { ...clean, uncertain: "boom" }) ?? "", /could not be checked \(boom\)/);
});

Deno.test("a non-git folder, a bare repository and a repository without commits fail clearly, leaving nothing", async (t) => {
  const cases: [string, () => Promise<GitRepo>, string][] = [
    ["non-git", async () => {
      const repo = await gitRepo();
      await fs.remove(join(repo.root, ".git"), { recursive: true });
      return repo;
    }, "worktree_not_git"],
    ["bare", () => gitRepo({}, { bare: true }), "worktree_bare_repository"],
    ["no commit", () => gitRepo({ "a.txt": "a" }, { commit: false }), "worktree_no_commit"],
  ];
  for (const [name, make, code] of cases) {
    await t.step(name, async () => {
      await using repo = await make();
      await assert.rejects(
        () => prepareWorktree(repo.deps(), { workspaceRoot: repo.root, agentId: ID }),
        (e) => e instanceof BladeError && e.code === code && e.hint !== undefined,
      );
      assert.equal(await exists(join(repo.storage, "worktrees")), false, "nothing half-made");
    });
  }
});

Deno.test("verifyLease accepts an intact lease and names what no longer matches", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  assert.deepEqual(await verifyLease(deps, { ...lease, state: "kept" }), lease);
  await repo.git(["switch", "--quiet", "-c", "other"], lease.worktreeRoot);
  await assert.rejects(
    () => verifyLease(deps, lease),
    (e) => e instanceof BladeError && /is on other, not on its branch/.test(e.message),
  );
  await repo.git(["switch", "--quiet", lease.branch], lease.worktreeRoot);
  await repo.git(["worktree", "remove", "--force", lease.worktreeRoot]);
  await assert.rejects(
    () => verifyLease(deps, lease),
    (e) =>
      e instanceof BladeError && e.code === "worktree_lease_mismatch" && /no longer exists/.test(e.message),
  );
});

Deno.test("a workspace sub-folder that HEAD has as a symlink out of the worktree is refused, leaving nothing", async () => {
  await using repo = await gitRepo();
  const outside = join(repo.dir, "outside");
  await fs.ensureDir(outside, 0o755);
  await Deno.symlink(outside, join(repo.root, "pkg"));
  await repo.commitAll("pkg is a link");
  // The parent works in a real folder there (uncommitted), so its offset is pkg/.
  await Deno.remove(join(repo.root, "pkg"));
  await fs.ensureDir(join(repo.root, "pkg"), 0o755);
  await assert.rejects(
    () => prepareWorktree(repo.deps(), { workspaceRoot: join(repo.root, "pkg"), agentId: ID }),
    (e) => e instanceof BladeError && e.code === "worktree_workspace_outside" && e.message.includes(outside),
  );
  assert.doesNotMatch(await repo.git(["worktree", "list"]), /agent\+/);
  assert.deepEqual(await branches(repo), ["main"]);
});

Deno.test("verifyLease refuses a lease whose folders were tampered with", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  const refused = (e: unknown, what: RegExp) =>
    e instanceof BladeError && e.code === "worktree_lease_mismatch" && what.test(e.message);
  // The workspace (what the child is granted) must be inside the worktree.
  await assert.rejects(
    () => verifyLease(deps, { ...lease, workspaceRoot: repo.root }),
    (e) => refused(e, /its workspace .* is not a folder inside it/),
  );
  // The parent's own checkout on main is a git worktree too, but not one Blade manages.
  await assert.rejects(
    () => verifyLease(deps, { ...lease, worktreeRoot: repo.root, workspaceRoot: repo.root, branch: "main" }),
    (e) => refused(e, /not a worktree Blade manages/),
  );
});
