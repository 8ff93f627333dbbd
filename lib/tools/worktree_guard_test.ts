import assert from "node:assert/strict";
import { join } from "node:path";
import { realPorts } from "../sys/mod.ts";
import { gitRepo } from "../testing/git_repo.ts";
import { prepareWorktree } from "../worktree/lifecycle.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { readTool } from "./read.ts";
import { runTool } from "../testing/tool_harness.ts";
import type { ToolContext } from "./tool.ts";
import { writeTool } from "./write.ts";

async function isolated() {
  const repo = await gitRepo();
  const lease = await prepareWorktree(repo.deps(), { workspaceRoot: repo.root, agentId: "agent-guard" });
  const ctx: ToolContext = {
    ports: realPorts(),
    sessionId: "agent-guard",
    workspaceRoot: lease.workspaceRoot,
    storageRoot: repo.storage,
    trusted: true,
    mode: "yolo",
    callId: "call_1",
    signal: new AbortController().signal,
    emit: () => {},
    worktree: {
      workspaceRoot: lease.workspaceRoot,
      worktreeRoot: lease.worktreeRoot,
      parentCheckout: lease.repositoryRoot,
    },
  };
  return { repo, lease, ctx };
}

Deno.test("writes outside the active worktree are denied: parent checkout, sibling prefix, symlink, storage", async () => {
  const { repo, lease, ctx } = await isolated();
  await using _ = repo;
  const sibling = `${lease.worktreeRoot}-evil`;
  await Deno.mkdir(sibling);
  await Deno.symlink(repo.root, join(lease.worktreeRoot, "escape"));
  const targets = [
    join(repo.root, "src/a.ts"), // absolute path into the parent's checkout
    join(sibling, "x.ts"), // sibling-prefix path
    "escape/src/a.ts", // symlink into the parent's checkout
    "../agent+other/x.ts", // another worktree
    join(repo.storage, "notes.md"), // storage root: allowed without isolation, not inside a worktree
  ];
  for (const file_path of targets) {
    const result = await runTool(writeTool, { file_path, content: "evil\n" }, ctx);
    assert.equal(result.isError, true, file_path);
    assert.match(result.content, /outside the active worktree/, file_path);
  }
  const edit = await runTool(
    editTool,
    { file_path: join(repo.root, "src/a.ts"), old_string: "1", new_string: "2" },
    ctx,
  );
  assert.match(edit.content, /outside the active worktree .* in the parent's checkout/s);
  assert.equal(await Deno.readTextFile(join(repo.root, "src/a.ts")), "export const a = 1;\n");
});

Deno.test("writes inside the worktree are allowed and reads of the parent checkout stay allowed", async () => {
  const { repo, lease, ctx } = await isolated();
  await using _ = repo;
  assert.equal((await runTool(writeTool, { file_path: "src/new.ts", content: "n\n" }, ctx)).isError, false);
  assert.equal(await Deno.readTextFile(join(lease.worktreeRoot, "src/new.ts")), "n\n");
  const edit = await runTool(
    editTool,
    { file_path: join(lease.worktreeRoot, "src/a.ts"), old_string: "= 1", new_string: "= 2" },
    ctx,
  );
  assert.equal(edit.isError, false, edit.content);
  const read = await runTool(readTool, { file_path: join(repo.root, "src/a.ts") }, ctx);
  assert.equal(read.isError, false);
  assert.match(read.content, /export const a = 1/);
});

Deno.test("Bash working folders outside the active worktree are denied", async () => {
  const { repo, lease, ctx } = await isolated();
  await using _ = repo;
  await Deno.symlink(repo.root, join(lease.worktreeRoot, "escape"));
  const denied = [
    `cd ${repo.root} && touch pwned`,
    `cd escape && touch pwned`,
    `cd ${lease.worktreeRoot}-evil && touch pwned`,
    `cd .. && ls`,
    `git -C ${repo.root} commit --allow-empty -m x`,
    `git --git-dir=${repo.root}/.git --work-tree=${repo.root} checkout -- .`,
    `git --work-tree ${repo.root} status`,
    `cd && ls`,
    `cd $HOME && ls`,
  ];
  for (const command of denied) {
    const result = await runTool(bashTool, { command }, ctx);
    assert.equal(result.isError, true, command);
    assert.match(result.content, /outside the active worktree|cannot tell where it leads/, command);
  }
  assert.equal(await Deno.stat(join(repo.root, "pwned")).catch(() => null), null);
  const outside = await runTool(bashTool, { command: "pwd" }, { ...ctx, workspaceRoot: repo.root });
  assert.match(outside.content, /Cannot run a command in .*outside the active worktree/);
  const inside = await runTool(bashTool, { command: "cd src && pwd && cat ../README.md" }, ctx);
  assert.equal(inside.isError, false, inside.content);
  assert.ok(inside.content.includes(`${lease.worktreeRoot}/src`), inside.content);
});
