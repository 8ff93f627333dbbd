// End-to-end: the escapes of security round 3 (issue 28) that are not about the OS sandbox or the Bash
// parser, each reproduced through the real `blade -p` CLI and the scripted provider: Blade's own git
// running repository-planted programs (docs/reference/worktrees.md "Git never runs repository code").

import assert from "node:assert/strict";
import { type BladeSandbox, bladeSandbox, parseJsonResult } from "./support/blade.ts";

const GIT_ID = [
  "-c",
  "user.name=Blade Test",
  "-c",
  "user.email=test@blade.invalid",
  "-c",
  "commit.gpgsign=false",
];

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-C", cwd, ...GIT_ID, ...args],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function repository(sandbox: BladeSandbox): Promise<void> {
  await sandbox.write("README.md", "# r\n");
  await git(sandbox.workspace, "init", "--quiet", "-b", "main");
  await git(sandbox.workspace, "add", "-A");
  await git(sandbox.workspace, "commit", "--quiet", "-m", "initial");
}

/** An executable script that leaves `marker` behind when anything runs it. */
async function planted(path: string, marker: string): Promise<void> {
  await Deno.writeTextFile(path, `#!/bin/sh\ntouch '${marker}'\nexit 0\n`);
  await Deno.chmod(path, 0o755);
}

const ISOLATED = {
  name: "Task",
  input: {
    subagent_type: "Explore",
    description: "Look",
    prompt: "Look around the repository.",
    isolation: "worktree",
  },
};

async function runIsolatedChild(sandbox: BladeSandbox, flags: string[]) {
  const path = `${sandbox.root}/script.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      agents: {
        main: [{ turns: [{ tool_calls: [ISOLATED] }, { text: "Done." }] }],
        Explore: [{ turns: [{ text: "Nothing to see." }] }],
      },
    }),
  );
  const result = await sandbox.run(
    [
      "-p",
      "Look",
      "--provider",
      "scripted",
      "--script",
      path,
      "--output-format",
      "json",
      "--trust-workspace",
      ...flags,
    ],
  );
  assert.equal(result.code, 0, result.stderr + result.stdout);
  return parseJsonResult(result);
}

Deno.test("hardening e2e: in plan mode, making a child's worktree does not run the repository's post-checkout hook", async () => {
  await using sandbox = await bladeSandbox();
  await repository(sandbox);
  const marker = `${sandbox.root}/post-checkout-ran`;
  await planted(`${sandbox.workspace}/.git/hooks/post-checkout`, marker);
  await runIsolatedChild(sandbox, ["--permission-mode", "plan"]);
  assert.equal(await exists(marker), false, "the post-checkout hook ran");
});

Deno.test("hardening e2e: a core.fsmonitor planted in .git/config is not run by Blade's git (status, diff)", async () => {
  await using sandbox = await bladeSandbox();
  await repository(sandbox);
  const marker = `${sandbox.root}/fsmonitor-ran`;
  await planted(`${sandbox.root}/monitor.sh`, marker);
  // What a Write-only session could leave behind (it can no longer write there: see the protected-path tests).
  await Deno.writeTextFile(
    `${sandbox.workspace}/.git/config`,
    (await Deno.readTextFile(`${sandbox.workspace}/.git/config`)) +
      `[core]\n\tfsmonitor = ${sandbox.root}/monitor.sh\n`,
  );
  await runIsolatedChild(sandbox, ["--permission-mode", "yolo"]);
  assert.equal(await exists(marker), false, "core.fsmonitor ran");
});
