// End-to-end: read-only commands need no rule (docs/reference/tools.md). The README's
// `blade run review "review the staged diff"` in a trusted folder with staged changes, default mode:
// the review agent (in its Worker) runs `git diff --staged` without any --allowed-tools and sees the
// diff, while a command that changes the repository is still refused with the rule that would allow it.

import assert from "node:assert/strict";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { bladeSandbox } from "./support/blade.ts";
import { lastToolResults } from "./support/claude_conversations.ts";
import { osSandbox } from "../lib/sys/os_sandbox.ts";

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=t@blade.invalid", "-c", "user.name=t", "-c", "commit.gpgsign=false", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

Deno.test("read-only e2e: blade run review sees the staged diff in default mode; a write is still refused", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("src/app.ts", "export const answer = 41;\n");
  await git(sandbox.workspace, "init", "-q");
  await git(sandbox.workspace, "add", "-A");
  await git(sandbox.workspace, "commit", "-q", "-m", "init");
  await sandbox.write("src/app.ts", "export const answer = 42;\n");
  await git(sandbox.workspace, "add", "src/app.ts");

  const steps = [[{ command: "git diff --staged" }], [{ command: "git stash" }]];
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      const answered = req.body.messages.filter((m) => m.role === "assistant").length;
      const step = steps[answered];
      return step === undefined
        ? fakeTurn({ text: '{"findings": [], "summary": "answer changed from 41 to 42"}' })
        : fakeTurn({ toolCalls: step.map((input) => ({ name: "Bash", input })) });
    },
  });
  const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake" };
  const trust = await sandbox.run(["trust"]);
  assert.equal(trust.code, 0, trust.stderr);
  const run = await sandbox.run(["run", "review", "review the staged diff"], { env });
  assert.equal(run.code, 0, run.stderr);
  const [diff, stash] = server.requests.slice(1).map(lastToolResults);
  assert.match(diff!, /^diff --git a\/src\/app\.ts b\/src\/app\.ts/);
  assert.match(diff!, /-export const answer = 41;\n\+export const answer = 42;/);
  assert.match(stash!, /^Permission denied: Bash needs approval in permission mode "default"/);
  assert.match(
    run.stderr,
    /blade: denied Bash \(in a subagent\): .* Allow it with --allowed-tools "Bash\(git stash\)"\./,
  );
  // Nothing was stashed: the change is still staged.
  const status = await new Deno.Command("git", {
    args: ["diff", "--staged", "--stat"],
    cwd: sandbox.workspace,
  })
    .output();
  assert.match(new TextDecoder().decode(status.stdout), /src\/app\.ts \| 2 \+-/);
});

Deno.test({
  name:
    "read-only e2e: a read-only command runs in the read-only sandbox profile (a planted core.fsmonitor that git status runs writes nothing)",
  ignore: (await osSandbox()) !== "bwrap",
  async fn() {
    await using sandbox = await bladeSandbox();
    await sandbox.write("README.md", "# r\n");
    await git(sandbox.workspace, "init", "-q");
    await git(sandbox.workspace, "add", "-A");
    await git(sandbox.workspace, "commit", "-q", "-m", "init");
    // What the user's own git runs for `git status`: the read-only list trusts the command, not its config.
    const monitor = `${sandbox.root}/monitor.sh`;
    await Deno.writeTextFile(monitor, `#!/bin/sh\necho x > '${sandbox.workspace}/pwned.txt'\nexit 0\n`);
    await Deno.chmod(monitor, 0o755);
    await git(sandbox.workspace, "config", "core.fsmonitor", monitor);
    const steps = [[{ command: "git status" }], [{ command: "touch made.txt" }]];
    await using server = startFakeAnthropicServer({
      handler: (req) => {
        const answered = req.body.messages.filter((m) => m.role === "assistant").length;
        const step = steps[answered];
        return step === undefined
          ? fakeTurn({ text: "done" })
          : fakeTurn({ toolCalls: step.map((input) => ({ name: "Bash", input })) });
      },
    });
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake" };
    const run = await sandbox.run(["-p", "look", "--trust-workspace"], { env });
    assert.equal(run.code, 0, run.stderr);
    const [status, touch] = server.requests.slice(1).map(lastToolResults);
    assert.match(status!, /On branch|nothing to commit/, status);
    assert.match(touch!, /^Permission denied: Bash needs approval/);
    assert.equal(await Deno.stat(`${sandbox.workspace}/pwned.txt`).then(() => true, () => false), false);
  },
});
