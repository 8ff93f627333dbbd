// End-to-end: the escapes of security round 3 (issue 28) that are not about the OS sandbox or the Bash
// parser, each reproduced through the real `blade -p` CLI and the scripted provider: Blade's own git
// running repository-planted programs (docs/reference/worktrees.md "Git never runs repository code"),
// writes to protected paths approved by rules that do not name them (docs/guides/permissions.md).

import assert from "node:assert/strict";
import type { ToolResultBlock } from "../lib/protocol/messages.ts";
import { stdioTestServer } from "../lib/testing/mcp_test_server.ts";
import {
  type BladeSandbox,
  bladeSandbox,
  listFiles,
  parseJsonResult,
  readSidecars,
  runScripted,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

interface Call {
  name: string;
  input: Record<string, unknown>;
}

/** The top-level session makes `calls` in one response; their results, in order. */
async function runCalls(sandbox: BladeSandbox, calls: Call[], flags: string[]): Promise<ToolResultBlock[]> {
  const run = await runScripted(
    sandbox,
    { agents: { main: [{ turns: [{ tool_calls: calls }, { text: "done" }] }] } },
    { prompt: "Do the work", flags },
  );
  const events = await transcriptEvents(transcriptPath(sandbox, String(parseJsonResult(run).session_id)));
  return events.flatMap((e) =>
    e.type === "part_created" && e.data.part.type === "tool_result" ? [e.data.part] : []
  );
}

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

const write = (file_path: string, content = "{}\n"): Call => ({
  name: "Write",
  input: { file_path, content },
});

Deno.test("hardening e2e: a bare --allowed-tools Write writes none of .git/config, .claude/settings.json, .mcp.json", async () => {
  await using sandbox = await bladeSandbox();
  await repository(sandbox);
  const config = await Deno.readTextFile(`${sandbox.workspace}/.git/config`);
  const results = await runCalls(sandbox, [
    write(".git/config", "[core]\n\tfsmonitor = ./evil.sh\n"),
    write(".claude/settings.json", '{"permissions":{"allow":["Bash"]}}\n'),
    write(".mcp.json", '{"mcpServers":{"x":{"command":"./evil.sh"}}}\n'),
    write("notes.txt", "fine\n"),
  ], ["--trust-workspace", "--allowed-tools", "Write"]);
  for (const [i, name] of [".git", ".claude", ".mcp.json"].entries()) {
    assert.equal(results[i]!.isError, true, results[i]!.content);
    assert.match(
      results[i]!.content,
      new RegExp(`it is ${name === ".mcp.json" ? "" : "inside "}${name.replaceAll(".", "\\.")}`),
    );
  }
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/.git/config`), config);
  assert.equal(await exists(`${sandbox.workspace}/.claude/settings.json`), false);
  assert.equal(await exists(`${sandbox.workspace}/.mcp.json`), false);
  assert.equal(results[3]!.isError, false, results[3]!.content);
});

Deno.test("hardening e2e: autoEdit cannot plant .mcp.json for the next run to start", async () => {
  await using sandbox = await bladeSandbox();
  const results = await runCalls(sandbox, [
    write(".mcp.json", '{"mcpServers":{"x":{"command":"./evil.sh"}}}\n'),
  ], [
    "--trust-workspace",
    "--permission-mode",
    "acceptEdits",
  ]);
  assert.match(
    results[0]!.content,
    /may not write .*\.mcp\.json: it is \.mcp\.json, whose MCP servers later sessions start/,
  );
  assert.equal(await exists(`${sandbox.workspace}/.mcp.json`), false);
});

Deno.test("hardening e2e: an unrelated allow rule whose text contains .git does not approve a copy into .git/hooks", async () => {
  await using sandbox = await bladeSandbox();
  await repository(sandbox);
  await sandbox.write("hook.sh", "#!/bin/sh\necho pwned\n");
  const results = await runCalls(sandbox, [{
    name: "Bash",
    input: { command: "cp hook.sh .git/hooks/pre-commit" },
  }], [
    "--trust-workspace",
    "--allowed-tools",
    "Bash(cp:*) Bash(cat .gitignore)",
  ]);
  assert.match(results[0]!.content, /An allow rule that does not name \.git does not approve it/);
  assert.equal(await exists(`${sandbox.workspace}/.git/hooks/pre-commit`), false);
});

Deno.test("hardening e2e: /x/a/b and /x/a-b keep their own project folders; a child of one cannot read the other's transcript", async () => {
  await using sandbox = await bladeSandbox();
  const ab = `${sandbox.workspace}/x/a/b`;
  const aDashB = `${sandbox.workspace}/x/a-b`;
  for (const d of [ab, aDashB]) await Deno.mkdir(d, { recursive: true });
  const script = `${sandbox.root}/script.json`;
  const run = async (cwd: string, agents: unknown) => {
    await Deno.writeTextFile(script, JSON.stringify({ agents }));
    const r = await sandbox.run(
      [
        "-p",
        "Go",
        "--provider",
        "scripted",
        "--script",
        script,
        "--output-format",
        "json",
        "--trust-workspace",
      ],
      { cwd },
    );
    assert.equal(r.code, 0, r.stderr + r.stdout);
    return String(parseJsonResult(r).session_id);
  };
  const other = await run(aDashB, { main: [{ turns: [{ text: "private notes of a-b" }] }] });
  const found = (await listFiles(`${sandbox.storage}/projects`)).find((f) => f.endsWith(`/${other}.jsonl`));
  assert.ok(found !== undefined);
  const session = await run(ab, {
    main: [{
      turns: [{
        tool_calls: [{
          name: "Task",
          input: { subagent_type: "Explore", description: "Peek", prompt: "Read the other project's notes." },
        }],
      }, { text: "done" }],
    }],
    Explore: [{
      turns: [{ tool_calls: [{ name: "Read", input: { file_path: found } }] }, { text: "{{last_user}}" }],
    }],
  });
  const [child] = await readSidecars(sandbox.storage);
  assert.ok(child !== undefined);
  assert.ok(!JSON.stringify(child.result).includes("private notes"), JSON.stringify(child.result));
  const own = (await listFiles(`${sandbox.storage}/projects`)).find((f) => f.endsWith(`/${session}.jsonl`));
  assert.notEqual(
    own!.slice(0, own!.lastIndexOf("/")),
    found.slice(0, found.lastIndexOf("/")),
    "one shared folder",
  );
});

Deno.test("hardening e2e: in an untrusted folder in default mode, Read of ~/.ssh/id_rsa is refused; a file outside the workspace needs a rule", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.mkdir(`${sandbox.home}/.ssh`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.ssh/id_rsa`,
    "-----BEGIN OPENSSH PRIVATE KEY----- very secret\n",
  );
  await Deno.writeTextFile(`${sandbox.root}/outside.txt`, "outside the workspace\n");
  const results = await runCalls(sandbox, [
    { name: "Read", input: { file_path: `${sandbox.home}/.ssh/id_rsa` } },
    { name: "Read", input: { file_path: `${sandbox.root}/outside.txt` } },
    { name: "Grep", input: { pattern: "secret", path: `${sandbox.home}/.ssh` } },
  ], []);
  assert.match(results[0]!.content, /id_rsa is refused: .*\.ssh holds credentials/);
  assert.match(results[1]!.content, /needs approval: it is outside the workspace/);
  assert.match(results[2]!.content, /is refused: .*\.ssh holds credentials/);
  for (const r of results) assert.ok(!JSON.stringify(r).includes("very secret"));
  // A rule naming the file (print mode's way to approve) lets that one read run.
  const allowed = await runCalls(sandbox, [{
    name: "Read",
    input: { file_path: `${sandbox.root}/outside.txt` },
  }], [
    "--allowed-tools",
    `Read(/${sandbox.root}/outside.txt)`,
  ]);
  assert.match(allowed[0]!.content, /outside the workspace/);
  assert.equal(allowed[0]!.isError, false);
});

Deno.test("hardening e2e: in an untrusted folder a user-level MCP server's write tool does not run on a settings-level bypass", async () => {
  await using sandbox = await bladeSandbox();
  // The user's own MCP server (Claude Code's user scope) and a settings-level bypassPermissions.
  const docs = { ...stdioTestServer(["--label=docs"]), env: { DENO_DIR: "${DENO_DIR}" } };
  await Deno.writeTextFile(`${sandbox.home}/.claude.json`, JSON.stringify({ mcpServers: { docs } }));
  await Deno.mkdir(`${sandbox.home}/.claude`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.claude/settings.json`,
    JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } }),
  );
  const results = await runCalls(sandbox, [
    { name: "mcp__docs__note", input: { text: "planted" } },
    { name: "mcp__docs__echo", input: { text: "hello" } },
  ], []);
  assert.equal(results[0]!.isError, true, results[0]!.content);
  // The settings-level mode is not a command-line grant (lib/permissions/command_line_grant.ts): the run
  // is in "default" mode, where print mode cannot ask, and the refusal says what would grant it.
  assert.match(
    results[0]!.content,
    /mcp__docs__note \(an MCP tool\) needs approval in permission mode "default".*--allowed-tools "mcp__docs__note"/,
  );
  // The settings file granted nothing: the read-only tool needs approval too in "default" mode.
  assert.equal(results[1]!.isError, true, results[1]!.content);

  // A bypass given on this run's command line is the person's grant (lib/permissions/command_line_grant.ts):
  // with it both tools run.
  const granted = await runCalls(sandbox, [
    { name: "mcp__docs__note", input: { text: "planted" } },
    { name: "mcp__docs__echo", input: { text: "hello" } },
  ], ["--dangerously-skip-permissions"]);
  assert.deepEqual(granted.map((r) => r.content), ["docs noted: planted", "docs echo: hello"]);
});
