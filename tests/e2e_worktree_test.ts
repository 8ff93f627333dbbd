// End-to-end: worktree isolation and the verification agent with `blade` as a real subprocess against
// the scripted provider, in a real git repository: a coding child isolated in a worktree edits a file
// and runs the tests (the parent's checkout stays untouched, the worktree is preserved and reported),
// the verification child returns a structured pass, `blade run verification` in a failing project
// exits 1 with verdict fail, an invalid verdict object is corrected twice then rejected (no verdict,
// exit 1), and goal-verification passes on the verdict-line compatibility path.

import assert from "node:assert/strict";
import { projectFolderName } from "../lib/config/storage.ts";
import type { SidecarRecord } from "../lib/store/schema.ts";
import { type BladeSandbox, bladeSandbox, parseJsonResult, readSidecars } from "./support/blade.ts";

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

/** A Node project whose `node --test` passes (or fails), committed on main. */
async function project(sandbox: BladeSandbox, passing: boolean): Promise<void> {
  await sandbox.write("src/sum.js", `export const sum = (a, b) => a ${passing ? "+" : "-"} b;\n`);
  await sandbox.write(
    "test/sum.test.js",
    `import test from "node:test";\nimport assert from "node:assert/strict";\nimport { sum } from "../src/sum.js";\n` +
      `test("sum", () => assert.equal(sum(2, 3), 5));\n`,
  );
  await sandbox.write("package.json", `{ "type": "module" }\n`);
  await git(sandbox.workspace, "init", "--quiet", "-b", "main");
  await git(sandbox.workspace, "add", "-A");
  await git(sandbox.workspace, "commit", "--quiet", "-m", "initial");
}

async function writeScript(sandbox: BladeSandbox, script: unknown): Promise<string> {
  const path = `${sandbox.root}/script.json`;
  await Deno.writeTextFile(path, JSON.stringify(script, null, 2));
  return path;
}

const VERIFY_PASS = [{
  turns: [
    { tool_calls: [{ name: "Bash", input: { command: "node --test" } }] },
    {
      tool_calls: [{
        name: "StructuredOutput",
        input: { verdict: "pass", summary: "node --test passed.", findings: [] },
      }],
    },
    { text: "All checks passed." },
  ],
}];

Deno.test("a coding child in a worktree edits and tests; the parent's checkout is untouched; verification passes", async () => {
  await using sandbox = await bladeSandbox();
  await project(sandbox, true);
  const before = await Deno.readTextFile(`${sandbox.workspace}/src/sum.js`);
  const script = await writeScript(sandbox, {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [{
              name: "Task",
              input: {
                subagent_type: "general-purpose",
                description: "Add a doc comment",
                prompt: "Document the sum function and run the tests.",
                isolation: "worktree",
              },
            }],
          },
          {
            tool_calls: [{
              name: "Task",
              input: { subagent_type: "verification", description: "Verify", prompt: "Verify the project." },
            }],
          },
          { text: "Done." },
        ],
      }],
      "general-purpose": [{
        turns: [
          {
            tool_calls: [{
              name: "Write",
              input: {
                file_path: "src/sum.js",
                content: "/** Adds. */\nexport const sum = (a, b) => a + b;\n",
              },
            }],
          },
          { tool_calls: [{ name: "Bash", input: { command: "node --test" } }] },
          { text: "Documented sum; tests pass." },
        ],
      }],
      verification: VERIFY_PASS,
    },
  });
  const result = await sandbox.run([
    "-p",
    "Document and verify",
    "--provider",
    "scripted",
    "--script",
    script,
    "--output-format",
    "json",
    "--permission-mode",
    "yolo",
    "--trust-workspace",
  ]);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  assert.equal(
    await Deno.readTextFile(`${sandbox.workspace}/src/sum.js`),
    before,
    "parent checkout untouched",
  );
  assert.equal((await git(sandbox.workspace, "status", "--porcelain")).trim(), "");

  const sidecars = await readSidecars(sandbox.storage);
  const coder = sidecars.find((r) => r.subagentType === "general-purpose") as SidecarRecord;
  const verifier = sidecars.find((r) => r.subagentType === "verification") as SidecarRecord;
  assert.equal(coder.status, "completed");
  const lease = coder.worktree!;
  assert.equal(lease.state, "kept");
  assert.equal(lease.changedFiles, 1);
  assert.equal(lease.commits, 0);
  assert.equal(lease.ownerAgentId, coder.id);
  assert.equal(lease.originalBranch, "main");
  assert.equal(coder.workspaceRoot, lease.worktreeRoot);
  assert.ok(lease.worktreeRoot.startsWith(`${sandbox.storage}/worktrees/work-`), lease.worktreeRoot);
  assert.match(await Deno.readTextFile(`${lease.worktreeRoot}/src/sum.js`), /\/\*\* Adds\. \*\//);
  assert.match(
    await git(sandbox.workspace, "worktree", "list"),
    new RegExp(lease.branch.replace(/[+]/g, "\\+")),
  );
  assert.deepEqual(coder.result.modifiedFiles, ["src/sum.js"]);
  assert.deepEqual(coder.result.verificationCommands, ["node --test"]);
  assert.match(coder.result.message, /Documented sum/);

  assert.equal(verifier.status, "completed");
  assert.equal(verifier.isolation, "none");
  assert.deepEqual(verifier.result.verificationVerdict, {
    verdict: "pass",
    summary: "node --test passed.",
    findings: [],
  });
  assert.deepEqual(verifier.result.verificationCommands, ["node --test"]);

  // The parent's Task result names the preserved worktree.
  const transcript = await Deno.readTextFile(
    `${sandbox.storage}/projects/${projectFolderName(sandbox.workspace)}/${
      String(parseJsonResult(result)["session_id"])
    }.jsonl`,
  );
  assert.ok(
    transcript.includes(`Worktree preserved at ${lease.worktreeRoot} on branch ${lease.branch}`),
    "the Task result names the kept worktree",
  );

  // `blade tasks list` shows where the kept worktree is; `tasks clean --worktrees` leaves a fresh one alone.
  const listed = await sandbox.run(["tasks", "list"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(
    listed.stdout.includes(`worktree kept: ${lease.worktreeRoot} (branch ${lease.branch})`),
    listed.stdout,
  );
  const cleaned = await sandbox.run(["tasks", "clean", "--worktrees", "--json"]);
  assert.equal(cleaned.code, 0, cleaned.stderr);
  assert.deepEqual(JSON.parse(cleaned.stdout)["worktrees"], {
    removed: [],
    kept: [{ path: lease.worktreeRoot, reason: "last used 0 days ago" }],
  });
  assert.match(await Deno.readTextFile(`${lease.worktreeRoot}/src/sum.js`), /\/\*\* Adds\. \*\//);

  // Once the worktree is clean and unused for 31 days, clean --worktrees removes it, and the run that
  // kept it says so: tasks list no longer names a worktree that is gone.
  await git(lease.worktreeRoot, "checkout", "--quiet", "--", ".");
  const admin = (await git(lease.worktreeRoot, "rev-parse", "--absolute-git-dir")).trim();
  const monthAgo = new Date(Date.now() - 31 * 86_400_000);
  for (const p of [lease.worktreeRoot, `${admin}/HEAD`, `${admin}/index`, `${admin}/logs/HEAD`]) {
    await Deno.utime(p, monthAgo, monthAgo);
  }
  const pruned = await sandbox.run(["tasks", "clean", "--worktrees", "--json"]);
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.deepEqual(JSON.parse(pruned.stdout)["worktrees"], {
    removed: [{ path: lease.worktreeRoot, branch: lease.branch }],
    kept: [],
  });
  const after = (await readSidecars(sandbox.storage)).find((r) => r.id === coder.id) as SidecarRecord;
  assert.equal(after.worktree?.state, "removed");
  const relisted = await sandbox.run(["tasks", "list"]);
  assert.equal(relisted.code, 0, relisted.stderr);
  assert.ok(!relisted.stdout.includes("worktree kept"), relisted.stdout);
});

Deno.test("blade run verification in a failing project exits 1 with verdict fail", async () => {
  await using sandbox = await bladeSandbox();
  await project(sandbox, false);
  const script = await writeScript(sandbox, {
    agents: {
      verification: [{
        turns: [
          { tool_calls: [{ name: "Bash", input: { command: "node --test 2>&1 | tail -n 20" } }] },
          { tool_calls: [{ name: "Bash", input: { command: "echo pwned > out.txt" } }] },
          {
            tool_calls: [{
              name: "StructuredOutput",
              input: {
                verdict: "fail",
                summary: "node --test fails: sum(2, 3) is -1.",
                findings: ["src/sum.js:1 subtracts"],
              },
            }],
          },
          { text: "The tests fail.\n\n## Verification Result: FAIL" },
        ],
      }],
    },
  });
  const result = await sandbox.run([
    "run",
    "verification",
    "Verify the project",
    "--provider",
    "scripted",
    "--script",
    script,
    "--output-format",
    "json",
    "--permission-mode",
    "yolo",
    "--trust-workspace",
  ]);
  assert.equal(result.code, 1, result.stderr + result.stdout);
  const json = parseJsonResult(result);
  assert.equal(json["verdict"], "fail");
  assert.equal(json["summary"], "node --test fails: sum(2, 3) is -1.");
  assert.deepEqual(json["findings"], ["src/sum.js:1 subtracts"]);
  assert.equal(json["is_error"], true);
  assert.equal(
    await Deno.stat(`${sandbox.workspace}/out.txt`).catch(() => null),
    null,
    "the auditor wrote nothing",
  );
});

Deno.test("blade run verification: an invalid verdict object is corrected twice, then rejected: no verdict, exit 1", async () => {
  await using sandbox = await bladeSandbox();
  await project(sandbox, true);
  const invalid = { tool_calls: [{ name: "StructuredOutput", input: { verdict: "ok", summary: "" } }] };
  const script = await writeScript(sandbox, {
    agents: { verification: [{ turns: [invalid, invalid, invalid, { text: "I could not decide." }] }] },
  });
  const result = await sandbox.run([
    "run",
    "verification",
    "Verify the project",
    "--provider",
    "scripted",
    "--script",
    script,
    "--output-format",
    "json",
  ]);
  assert.equal(result.code, 1, result.stderr + result.stdout);
  const json = parseJsonResult(result);
  assert.equal(json["verdict"], null);
  assert.equal((json["error"] as { code: string }).code, "no_verdict");
  const [record] = await readSidecars(sandbox.storage);
  assert.equal(record?.result.verificationVerdict, undefined);
  const results = record!.messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result");
  assert.deepEqual(
    results.map((b) => (b as { content: string }).content.split("\n")[0]),
    [
      "The object does not match the schema (correction 1 of 2):",
      "The object does not match the schema (correction 2 of 2):",
      "Structured output rejected: it still does not match the schema and no corrections are left.",
    ],
  );
});

Deno.test("blade run goal-verification passes on exactly one verdict line (compatibility path)", async () => {
  await using sandbox = await bladeSandbox();
  await project(sandbox, true);
  const text = { text: "Every requirement is met.\n\n## Verification Result: PASS" };
  // Without a StructuredOutput call the agent is asked twice more; then the verdict line counts.
  const script = await writeScript(sandbox, {
    agents: { "goal-verification": [{ turns: [text, text, text] }] },
  });
  const result = await sandbox.run([
    "run",
    "goal-verification",
    "Goal: sum adds",
    "--provider",
    "scripted",
    "--script",
    script,
    "--output-format",
    "json",
  ]);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  const json = parseJsonResult(result);
  assert.equal(json["verdict"], "pass");
  assert.equal(json["summary"], "Every requirement is met.");
});

Deno.test("a verification child's verdict and evidence reach TaskOutput, the completion notice and stream-json; its commands get no API key", async () => {
  await using sandbox = await bladeSandbox();
  await project(sandbox, true);
  // The auditor's commands run in a minimal environment: this test fails if a key or token leaks in.
  await sandbox.write(
    "test/env.test.js",
    `import test from "node:test";\nimport assert from "node:assert/strict";\n` +
      `test("no secrets", () => { assert.equal(process.env.ANTHROPIC_API_KEY, undefined); ` +
      `assert.equal(process.env.PROBE_TOKEN, undefined); assert.equal(process.env.CI, "true"); });\n`,
  );
  const verdict = (which: string) => ({
    match: `^${which}:`,
    turns: [
      { tool_calls: [{ name: "Bash", input: { command: "node --test" } }] },
      {
        tool_calls: [{
          name: "StructuredOutput",
          input: { verdict: "partial", summary: `${which} half done.`, findings: ["README.md is missing"] },
        }],
      },
      { text: `${which} audited.` },
    ],
  });
  const verify = (which: string, background: boolean) => ({
    name: "Task",
    input: {
      subagent_type: "verification",
      description: `Verify ${which}`,
      prompt: `${which}: verify the project.`,
      run_in_background: background,
    },
  });
  const script = await writeScript(sandbox, {
    agents: {
      main: [{
        turns: [
          { tool_calls: [verify("FG", false)] },
          {
            tool_calls: [{
              name: "TaskOutput",
              input: { task_id: "{{match:(agent-[\\w-]+)}}", block: false },
            }],
          },
          { tool_calls: [verify("BG", true)] },
          { text: "Waiting for the background audit." },
          { text: "NOTICE {{last_user}}" },
        ],
      }],
      verification: [verdict("FG"), verdict("BG")],
    },
  });
  const result = await sandbox.run([
    "-p",
    "Audit twice",
    "--provider",
    "scripted",
    "--script",
    script,
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "yolo",
    "--trust-workspace",
  ], { env: { ANTHROPIC_API_KEY: "sk-ant-probe-0123456789", PROBE_TOKEN: "probe-token-0123456789" } });
  assert.equal(result.code, 0, result.stderr + result.stdout);
  const lines = result.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const expected = (which: string) => ({
    verdict: "partial",
    summary: `${which} half done.`,
    findings: ["README.md is missing"],
  });

  // stream-json: each child's task_notification carries its verdict.
  const notifications = lines.filter((l) => l["subtype"] === "task_notification");
  assert.deepEqual(notifications.map((n) => n["verdict"]), [expected("FG"), expected("BG")]);

  // The sidecars: the verdict and the verification commands that passed (the env test passed too).
  const sidecars = await readSidecars(sandbox.storage);
  const fg = sidecars.find((r) => r.description === "Verify FG")!;
  assert.deepEqual(fg.result.verificationVerdict, expected("FG"));
  assert.deepEqual(fg.result.verificationCommands, ["node --test"], "node --test passed without secrets");

  // TaskOutput of the finished foreground child.
  const toolResults = lines.filter((l) => l["type"] === "user" && l["parent_tool_use_id"] === null)
    .flatMap((l) => (l["message"] as { content: { type: string; content?: string }[] }).content)
    .filter((b) => b.type === "tool_result").map((b) => String(b.content));
  const taskOutput = JSON.parse(toolResults[1]!) as Record<string, unknown>;
  assert.equal(taskOutput["task_id"], fg.id);
  assert.deepEqual(taskOutput["verification_verdict"], expected("FG"));
  assert.deepEqual(taskOutput["verification_commands"], ["node --test"]);

  // The completion notice of the background child, as the parent's next turn saw it.
  const final = String(lines.at(-1)!["result"]);
  assert.match(final, /^NOTICE /);
  assert.match(final, /"verification_verdict":\{"verdict":"partial","summary":"BG half done\./);
  assert.match(final, /"verification_commands":\["node --test"\]/);
});
