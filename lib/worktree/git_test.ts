import assert from "node:assert/strict";
import { join } from "node:path";
import { gitRepo } from "../testing/git_repo.ts";
import { realFs } from "../sys/fs.ts";
import { filterDrivers, gitCommandLine, needsFilterGuard, SAFE_GIT_CONFIG } from "./git.ts";
import { finishWorktree, prepareWorktree } from "./lifecycle.ts";

const fs = realFs();
const ID = "agent-plantedconfigxxxxxx";

Deno.test("gitCommandLine: no pager, every safe value, emptied filters, no external diff on diffs", () => {
  const line = gitCommandLine("/w", ["status", "--porcelain"], ["lfs", "a.b"]);
  assert.deepEqual(line.slice(0, 3), ["--no-pager", "-C", "/w"]);
  const config = line.filter((_, i) => line[i - 1] === "-c");
  for (const value of SAFE_GIT_CONFIG) assert.ok(config.includes(value), value);
  for (const name of ["lfs", "a.b"]) {
    for (const key of ["clean", "smudge", "process"]) assert.ok(config.includes(`filter.${name}.${key}=`));
  }
  assert.deepEqual(line.slice(-2), ["status", "--porcelain"]);
  const table: [string[], string[]][] = [
    [["diff", "--name-only", "x"], ["diff", "--no-ext-diff", "--no-textconv", "--name-only", "x"]],
    [["-c", "a=b", "log", "-p"], ["-c", "a=b", "log", "--no-ext-diff", "--no-textconv", "-p"]],
    [["show", "HEAD"], ["show", "--no-ext-diff", "--no-textconv", "HEAD"]],
    [["rev-parse", "HEAD"], ["rev-parse", "HEAD"]],
  ];
  for (const [args, tail] of table) assert.deepEqual(gitCommandLine("/w", args).slice(-tail.length), tail);
});

Deno.test("needsFilterGuard: every call that may read work-tree files, not ref-only ones", () => {
  const table: [string[], boolean][] = [
    [["status"], true],
    [["diff", "--name-only"], true],
    [["-c", "checkout.workers=0", "worktree", "add", "x"], true],
    [["worktree", "remove", "x"], true],
    [["worktree", "list"], false],
    [["worktree", "prune"], false],
    [["rev-parse", "HEAD"], false],
    [["symbolic-ref", "HEAD"], false],
    [["branch", "-D", "x"], false],
    [["ls-files", "--others"], true],
    [["commit", "-m", "x"], true],
  ];
  for (const [args, want] of table) assert.equal(needsFilterGuard(args), want, args.join(" "));
});

Deno.test("filterDrivers reads driver names from `git config -z --get-regexp` output", () => {
  assert.deepEqual(
    filterDrivers("filter.lfs.clean\ngit-lfs clean -- %f\0filter.lfs.smudge\nx\0filter.a.b.process\ny\0"),
    ["lfs", "a.b"],
  );
  assert.deepEqual(filterDrivers(""), []);
});

/** A program that leaves `MARK-<name>` in `dir` when run (a filter passes its input through). */
async function plant(dir: string, name: string, passThrough = false): Promise<string> {
  const path = join(dir, `${name}.sh`);
  await fs.writeText(path, `#!/bin/sh\ntouch '${dir}/MARK-${name}'\n${passThrough ? "cat\n" : ""}exit 0\n`);
  await fs.chmod(path, 0o755);
  return path;
}

Deno.test("Blade's git runs none of the programs a repository plants (worktree add, status, diff, remove)", async () => {
  await using repo = await gitRepo({
    "README.md": "# r\n",
    "a.txt": "a\n",
    ".gitattributes": "a.txt filter=evil diff=evil\n",
  });
  const marks = join(repo.dir, "marks");
  await fs.ensureDir(marks, 0o755);
  const hooks = join(repo.root, ".git", "hooks");
  for (const hook of ["post-checkout", "reference-transaction", "post-index-change", "pre-auto-gc"]) {
    await fs.writeText(join(hooks, hook), `#!/bin/sh\ntouch '${marks}/MARK-hook-${hook}'\n`);
    await fs.chmod(join(hooks, hook), 0o755);
  }
  const hooksPath = join(repo.dir, "hookspath");
  await fs.ensureDir(hooksPath, 0o755);
  await fs.writeText(join(hooksPath, "post-checkout"), `#!/bin/sh\ntouch '${marks}/MARK-hookspath'\n`);
  await fs.chmod(join(hooksPath, "post-checkout"), 0o755);
  // What a Write-only session could plant in .git/config.
  const config: [string, string][] = [
    ["core.fsmonitor", await plant(marks, "fsmonitor")],
    ["core.hooksPath", hooksPath],
    ["core.pager", await plant(marks, "pager")],
    ["pager.diff", await plant(marks, "pager-diff")],
    ["pager.status", await plant(marks, "pager-status")],
    ["diff.external", await plant(marks, "external-diff")],
    ["diff.evil.command", await plant(marks, "diff-command")],
    ["diff.evil.textconv", await plant(marks, "textconv", true)],
    ["filter.evil.clean", await plant(marks, "clean", true)],
    ["filter.evil.smudge", await plant(marks, "smudge", true)],
    ["core.sshCommand", await plant(marks, "ssh")],
    ["protocol.ext.allow", "always"],
    ["protocol.file.allow", "always"],
    ["submodule.recurse", "true"],
    ["gc.auto", "1"],
  ];
  for (const [key, value] of config) await repo.git(["config", key, value]);
  // Planting alone ran nothing (the test's own git calls are Blade's git too).
  assert.deepEqual(
    await fs.readDir(marks).then((e) => e.map((x) => x.name).filter((n) => n.startsWith("MARK"))),
    [],
  );

  const deps = repo.deps();
  const lease = await prepareWorktree(deps, { workspaceRoot: repo.root, agentId: ID });
  // The smudge filter did not run: the file is checked out as committed.
  assert.equal(await fs.readText(join(lease.worktreeRoot, "a.txt")), "a\n");
  await fs.writeText(join(lease.worktreeRoot, "a.txt"), "changed\n");
  await fs.writeText(join(lease.worktreeRoot, "new.txt"), "new\n");
  const kept = await finishWorktree(deps, lease, true);
  assert.equal(kept.kept, true);
  // Back to the base, then finish again: the clean worktree is removed.
  await fs.writeText(join(lease.worktreeRoot, "a.txt"), "a\n");
  await fs.remove(join(lease.worktreeRoot, "new.txt"));
  const removed = await finishWorktree(deps, lease, true);
  assert.equal(removed.kept, false);

  const ran = (await fs.readDir(marks)).map((e) => e.name).filter((n) => n.startsWith("MARK")).sort();
  assert.deepEqual(ran, []);
});
