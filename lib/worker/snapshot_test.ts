// Moving a remote child's tree as git bundles (lib/worker/snapshot.ts), with real git: the snapshot
// holds HEAD plus the uncommitted and untracked changes (not ignored files) and leaves the user's index,
// HEAD and branches alone; a worker's checkout of it; the result bundle (none when nothing changed); and
// fetching the branch back, never over a branch of that name holding other commits.

import assert from "node:assert/strict";
import { realPorts } from "../sys/mod.ts";
import { processGit } from "../worktree/git.ts";
import { bundleResult, checkoutSnapshot, fetchResult, takeSnapshot } from "./snapshot.ts";

const ports = realPorts();
const git = processGit(ports.process, ports.env);

async function sh(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@t", ...args],
    cwd,
  })
    .output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("snapshot → checkout → result bundle → fetch, with real git", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-snapshot-" }));
  try {
    const repo = `${root}/parent`;
    await Deno.mkdir(`${repo}/pkg`, { recursive: true });
    await Deno.writeTextFile(`${repo}/pkg/a.txt`, "one\n");
    await Deno.writeTextFile(`${repo}/.gitignore`, ".env\n");
    await sh(repo, "init", "-q");
    await sh(repo, "add", "-A");
    await sh(repo, "commit", "-q", "-m", "init");
    const head = await sh(repo, "rev-parse", "HEAD");
    await Deno.writeTextFile(`${repo}/pkg/a.txt`, "one\ntwo (uncommitted)\n");
    await Deno.writeTextFile(`${repo}/pkg/new.txt`, "untracked\n");
    await Deno.writeTextFile(`${repo}/.env`, "SECRET=1\n");
    const statusBefore = await sh(repo, "status", "--porcelain");

    await Deno.mkdir(`${root}/scratch`);
    const snap = await takeSnapshot({ git, fs: ports.fs }, {
      workspace: `${repo}/pkg`,
      agentId: "agent-x",
      scratch: `${root}/scratch`,
    });
    assert.equal(snap.baseCommit, head);
    assert.notEqual(snap.snapshotCommit, head);
    assert.equal(snap.subdir, "pkg/");
    // The user's repository is as it was: same HEAD, same status, no new ref.
    assert.equal(await sh(repo, "rev-parse", "HEAD"), head);
    assert.equal(await sh(repo, "status", "--porcelain"), statusBefore);
    assert.doesNotMatch(await sh(repo, "for-each-ref"), /blade/);

    // The worker's checkout has the uncommitted and untracked changes, not the ignored file.
    await Deno.writeFile(`${root}/snapshot.bundle`, snap.bundle);
    const work = `${root}/worker`;
    await checkoutSnapshot({ git, fs: ports.fs }, {
      dir: work,
      bundleFile: `${root}/snapshot.bundle`,
      snapshotCommit: snap.snapshotCommit,
      branch: "blade/agent-x",
    });
    assert.equal(await Deno.readTextFile(`${work}/pkg/a.txt`), "one\ntwo (uncommitted)\n");
    assert.equal(await Deno.readTextFile(`${work}/pkg/new.txt`), "untracked\n");
    await assert.rejects(Deno.stat(`${work}/.env`), Deno.errors.NotFound);

    // The child changes a file; the result bundle carries it as one commit after the snapshot.
    await Deno.writeTextFile(`${work}/pkg/a.txt`, "changed by the child\n");
    const result = await bundleResult(git, {
      dir: work,
      branch: "blade/agent-x",
      baseCommit: head,
      snapshotCommit: snap.snapshotCommit,
      bundleFile: `${root}/result.bundle`,
    });
    assert.deepEqual([result.commits, result.bundled], [1, true]);
    const fetched = await fetchResult(git, {
      workspace: `${repo}/pkg`,
      bundleFile: `${root}/result.bundle`,
      branch: "blade/agent-x",
    });
    assert.equal(fetched.commit, result.head);
    assert.equal(await sh(repo, "show", "blade/agent-x:pkg/a.txt"), "changed by the child");
    assert.equal(await sh(repo, "status", "--porcelain"), statusBefore);

    // A branch of that name with other commits is never moved.
    await sh(repo, "branch", "-f", "blade/agent-x", head);
    await sh(repo, "checkout", "-q", "-b", "tmp", head);
    await sh(repo, "commit", "-q", "--allow-empty", "-m", "someone else's");
    await sh(repo, "branch", "-f", "blade/agent-x", "tmp");
    await assert.rejects(
      fetchResult(git, { workspace: repo, bundleFile: `${root}/result.bundle`, branch: "blade/agent-x" }),
      /exists here with other commits/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a clean tree's snapshot is HEAD itself, and a child that changed nothing leaves no bundle", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-snapshot-" }));
  try {
    const repo = `${root}/parent`;
    await Deno.mkdir(repo);
    await Deno.writeTextFile(`${repo}/a.txt`, "one\n");
    await sh(repo, "init", "-q");
    await sh(repo, "add", "-A");
    await sh(repo, "commit", "-q", "-m", "init");
    await Deno.mkdir(`${root}/scratch`);
    const snap = await takeSnapshot({ git, fs: ports.fs }, {
      workspace: repo,
      agentId: "agent-y",
      scratch: `${root}/scratch`,
    });
    assert.equal(snap.snapshotCommit, snap.baseCommit);
    assert.equal(snap.subdir, "");
    await Deno.writeFile(`${root}/s.bundle`, snap.bundle);
    const work = `${root}/worker`;
    await checkoutSnapshot({ git, fs: ports.fs }, {
      dir: work,
      bundleFile: `${root}/s.bundle`,
      snapshotCommit: snap.snapshotCommit,
      branch: "blade/agent-y",
    });
    const result = await bundleResult(git, {
      dir: work,
      branch: "blade/agent-y",
      baseCommit: snap.baseCommit,
      snapshotCommit: snap.snapshotCommit,
      bundleFile: `${root}/r.bundle`,
    });
    assert.deepEqual(result, { head: snap.baseCommit, commits: 0, bundled: false });
    await assert.rejects(Deno.stat(`${root}/r.bundle`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a folder outside any repository, or a repository without a commit, is refused with why", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-snapshot-" }));
  try {
    await Deno.mkdir(`${root}/scratch`);
    const at = (workspace: string) =>
      takeSnapshot({ git, fs: ports.fs }, { workspace, agentId: "agent-z", scratch: `${root}/scratch` });
    await assert.rejects(at(root), /is not in a git repository/);
    await sh(root, "init", "-q");
    await assert.rejects(at(root), /has no commit yet/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
