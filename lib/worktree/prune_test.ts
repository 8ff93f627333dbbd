import assert from "node:assert/strict";
import { join } from "node:path";
import { realFs } from "../sys/fs.ts";
import { gitRepo } from "../testing/git_repo.ts";
import { prepareWorktree } from "./lifecycle.ts";
import { pruneStaleWorktrees } from "./prune.ts";

const fs = realFs();
const DAY = 86_400_000;
/** Past the documented 30 days (docs/guides/isolation.md), pinned by its value, not by the constant. */
const LATER = Date.now() + 31 * DAY;

Deno.test("clean --worktrees removes only old, clean worktrees without unpushed commits", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const make = (id: string) => prepareWorktree(deps, { workspaceRoot: repo.root, agentId: id });
  const clean = await make("agent-clean");
  const dirty = await make("agent-dirty");
  const ahead = await make("agent-ahead");
  const merged = await make("agent-merged");
  await fs.writeText(join(dirty.worktreeRoot, "new.txt"), "n\n");
  for (const w of [ahead, merged]) {
    await fs.writeText(join(w.worktreeRoot, "src/a.ts"), `export const a = "${w.ownerAgentId}";\n`);
    await repo.git(["commit", "--quiet", "-am", "child work"], w.worktreeRoot);
  }
  await repo.git(["merge", "--quiet", "--ff-only", merged.branch]);

  const young = await pruneStaleWorktrees(deps, { now: Date.now() });
  assert.equal(young.removed.length, 0);
  assert.ok(young.kept.every((k) => /last used 0 days ago/.test(k.reason)), JSON.stringify(young.kept));
  // 29 days unused is not stale yet.
  const almost = await pruneStaleWorktrees(deps, { now: Date.now() + 29 * DAY });
  assert.equal(almost.removed.length, 0);
  assert.ok(almost.kept.every((k) => /last used 29 days ago/.test(k.reason)), JSON.stringify(almost.kept));

  const report = await pruneStaleWorktrees(deps, { now: LATER });
  assert.deepEqual(
    report.removed.map((r) => r.path).sort(),
    [clean.worktreeRoot, merged.worktreeRoot].sort(),
  );
  assert.deepEqual(
    Object.fromEntries(report.kept.map((k) => [k.path, k.reason])),
    {
      [dirty.worktreeRoot]: "it has changed or untracked files",
      [ahead.worktreeRoot]: "1 commit on no other branch, tag or remote",
    },
  );
  const branches = (await repo.git(["branch", "--format=%(refname:short)"])).trim().split("\n").sort();
  assert.deepEqual(branches, [ahead.branch, dirty.branch, "main"].sort());
  assert.equal(await fs.lstat(clean.worktreeRoot), null);
  assert.notEqual(await fs.lstat(dirty.worktreeRoot), null);
});

Deno.test("clean --worktrees leaves a folder that is not a managed worktree alone", async () => {
  await using repo = await gitRepo();
  const deps = repo.deps();
  const stray = join(deps.worktreesDir, "repo-000000000000", "agent+stray");
  await fs.ensureDir(stray, 0o700);
  const report = await pruneStaleWorktrees(deps, { now: LATER });
  assert.equal(report.removed.length, 0);
  assert.equal(report.kept.length, 1);
  assert.equal(await fs.lstat(stray) !== null, true);
  assert.deepEqual(
    await pruneStaleWorktrees({ ...deps, worktreesDir: join(repo.dir, "none") }, { now: LATER }),
    {
      removed: [],
      kept: [],
    },
  );
});
