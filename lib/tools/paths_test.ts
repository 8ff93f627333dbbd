import assert from "node:assert/strict";
import { join } from "node:path";
import { realFs } from "../sys/fs.ts";
import {
  canonicalPath,
  isInside,
  notWritable,
  resolveToolPath,
  resolveWritePath,
  untrustedExecution,
} from "./paths.ts";
import { sandbox } from "../testing/tool_harness.ts";

Deno.test("isInside compares whole path components", () => {
  assert.equal(isInside("/work/repo", "/work/repo"), true);
  assert.equal(isInside("/work/repo/a/b", "/work/repo"), true);
  assert.equal(isInside("/work/repo-evil/a", "/work/repo"), false);
  assert.equal(isInside("/work", "/work/repo"), false);
  assert.equal(isInside("/work/repo/..foo", "/work/repo"), true);
  assert.equal(isInside("/etc/passwd", "/"), true);
});

Deno.test("resolveToolPath resolves relative paths against the workspace and normalises ..", async () => {
  await using box = await sandbox();
  const ctx = box.ctx();
  assert.equal(resolveToolPath(ctx, "src/a.ts"), join(box.workspace, "src/a.ts"));
  assert.equal(resolveToolPath(ctx, "./src/../b.ts"), join(box.workspace, "b.ts"));
  assert.equal(resolveToolPath(ctx, "/abs/x"), "/abs/x");
});

Deno.test("canonicalPath resolves symlinks in the existing part and appends the missing rest", async () => {
  await using box = await sandbox();
  await Deno.symlink(box.outside, join(box.workspace, "link"));
  const fs = realFs();
  assert.equal(
    await canonicalPath(fs, join(box.workspace, "link/new/file.txt")),
    join(box.outside, "new/file.txt"),
  );
  assert.equal(await canonicalPath(fs, join(box.workspace, "plain.txt")), join(box.workspace, "plain.txt"));
  await Deno.symlink(join(box.outside, "missing"), join(box.workspace, "dangling"));
  await assert.rejects(() => canonicalPath(fs, join(box.workspace, "dangling")), /cannot be resolved/);
});

Deno.test("resolveWritePath allows the workspace and the storage root", async () => {
  await using box = await sandbox();
  assert.deepEqual(await resolveWritePath(box.ctx(), "a/b.txt"), {
    ok: true,
    path: join(box.workspace, "a/b.txt"),
    area: "workspace",
  });
  assert.deepEqual(await resolveWritePath(box.ctx(), join(box.storage, "plans/p.md")), {
    ok: true,
    path: join(box.storage, "plans/p.md"),
    area: "storage",
  });
});

Deno.test("resolveWritePath allows --add-dir folders like the workspace, not outside them, not from a worktree", async () => {
  await using box = await sandbox();
  const added = join(box.outside, "added");
  await Deno.mkdir(added);
  const ctx = box.ctx({ additionalDirs: [added] });
  assert.deepEqual(await resolveWritePath(ctx, join(added, "n.txt")), {
    ok: true,
    path: join(added, "n.txt"),
    area: "workspace",
  });
  const beside = await resolveWritePath(ctx, join(box.outside, "n.txt"));
  assert.equal(beside.ok, false);
  if (!beside.ok) assert.match(beside.message, /outside the workspace .*, the --add-dir folders \(.*added\)/);
  const untrusted = await resolveWritePath(
    box.ctx({ additionalDirs: [added], trusted: false }),
    join(added, "n"),
  );
  assert.equal(untrusted.ok, false);
  const isolated = box.ctx({
    additionalDirs: [added],
    worktree: { workspaceRoot: box.workspace, worktreeRoot: box.workspace, parentCheckout: box.dir },
  });
  assert.equal((await resolveWritePath(isolated, join(added, "n.txt"))).ok, false);
});

Deno.test("resolveWritePath denies .. escapes, sibling prefixes and symlinks out", async () => {
  await using box = await sandbox();
  const sibling = `${box.workspace}-evil`;
  await Deno.mkdir(sibling);
  await Deno.symlink(box.outside, join(box.workspace, "link"));
  await Deno.symlink(join(box.outside, "gone"), join(box.workspace, "dangling"));
  const cases: [string, RegExp][] = [
    ["../outside/x.txt", /is outside the workspace/],
    [join(sibling, "x.txt"), /is outside the workspace/],
    ["link/x.txt", /resolves to .*outside.*is outside the workspace/],
    ["dangling", /symbolic link that cannot be resolved/],
  ];
  for (const [path, message] of cases) {
    const target = await resolveWritePath(box.ctx(), path);
    assert.equal(target.ok, false, path);
    if (!target.ok) assert.match(target.message, message);
  }
});

Deno.test("resolveWritePath protects Blade's own state in the storage root", async () => {
  await using box = await sandbox();
  for (const path of ["trust.json", "config.json", "agents/x.md", "projects/p/s.jsonl", "worktrees/w/a.ts"]) {
    const target = await resolveWritePath(box.ctx(), join(box.storage, path));
    assert.equal(target.ok, false, path);
    if (!target.ok) assert.match(target.message, /in the storage root .* which tools may not change/);
  }
  // A session isolated in a worktree may write its own worktree.
  const worktree = join(box.storage, "worktrees/repo-abc/agent+x");
  await Deno.mkdir(worktree, { recursive: true });
  const target = await resolveWritePath(box.ctx({ workspaceRoot: worktree }), "src/a.ts");
  assert.deepEqual(target, { ok: true, path: join(worktree, "src/a.ts"), area: "storage" });
});

Deno.test("untrusted workspaces may write only into the storage root and may not execute", async () => {
  await using box = await sandbox();
  const ctx = box.ctx({ trusted: false });
  const denied = await resolveWritePath(ctx, "a.txt");
  assert.equal(denied.ok, false);
  if (!denied.ok) assert.match(denied.message, /is not trusted.*Run `blade trust`/);
  assert.equal((await resolveWritePath(ctx, join(box.storage, "notes.md"))).ok, true);
  assert.match(untrustedExecution(ctx, "Bash") ?? "", /Bash is disabled .* not trusted\. Run `blade trust`/);
  assert.equal(untrustedExecution(box.ctx(), "Bash"), undefined);
});

Deno.test("a write Deno refused reads like a read refusal, never Deno's --allow-write advice", () => {
  const denied = new Deno.errors.NotCapable(
    'Requires write access to "/etc/x", run again with --allow-write flag',
  );
  const message = notWritable(denied, "/etc/x", "/ws");
  assert.equal(
    message,
    "/etc/x is outside this agent's write access (workspace /ws): its Deno permissions let it write only its workspace and Blade's session records (NotCapable).",
  );
  assert.equal(notWritable(new Error("disk full"), "/ws/a", "/ws"), undefined);
});
