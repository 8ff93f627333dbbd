// End-to-end: `blade hooks list` (docs/guides/hooks.md) shows what a run of this folder would fire and
// where each hook comes from: the user's and the project's settings, `--settings`, an agent file's
// `hooks:` (for that agent's runs); in an untrusted folder the project's hooks are listed as not run.

import assert from "node:assert/strict";
import { bladeSandbox } from "./support/blade.ts";

Deno.test("blade hooks list: every source with its event, matcher, command, timeout and file; untrusted project hooks not run", async () => {
  await using box = await bladeSandbox();
  const hook = (command: string, timeout?: number) => ({
    type: "command",
    command,
    ...(timeout ? { timeout } : {}),
  });
  await Deno.mkdir(`${box.home}/.claude`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.claude/settings.json`,
    JSON.stringify({ hooks: { Stop: [{ hooks: [hook("notify-done")] }] } }),
  );
  await box.write(
    ".claude/settings.json",
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook("./check.sh", 5)] }] } }),
  );
  await box.write(
    ".claude/agents/checker.md",
    "---\nname: checker\ndescription: Checks.\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: ./agent-stop.sh\n---\nYou check.\n",
  );
  await Deno.writeTextFile(
    `${box.root}/extra.json`,
    JSON.stringify({ hooks: { SessionStart: [{ matcher: "startup", hooks: [hook("echo hi")] }] } }),
  );

  const untrusted = await box.run(["hooks", "list", "--json", "--settings", `${box.root}/extra.json`]);
  assert.equal(untrusted.code, 0, untrusted.stderr);
  const shown = JSON.parse(untrusted.stdout);
  assert.equal(shown.trusted, false);
  assert.deepEqual(shown.hooks, [
    {
      event: "Stop",
      matcher: null,
      command: "notify-done",
      timeoutSeconds: 600,
      source: "user",
      where: `${box.home}/.claude/settings.json`,
    },
    {
      event: "SessionStart",
      matcher: "startup",
      command: "echo hi",
      timeoutSeconds: 600,
      source: "flag",
      where: `${box.root}/extra.json`,
    },
  ]);
  assert.deepEqual(shown.notRun, [{
    event: "PreToolUse",
    matcher: "Bash",
    command: "./check.sh",
    timeoutSeconds: 5,
    source: "project",
    where: `${box.workspace}/.claude/settings.json`,
  }]);

  const trusted = await box.run(["hooks", "list", "--trust-workspace"]);
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.equal(
    trusted.stdout,
    [
      "Stop: notify-done",
      `  timeout 600s · user · ${box.home}/.claude/settings.json`,
      "PreToolUse Bash: ./check.sh",
      `  timeout 5s · project · ${box.workspace}/.claude/settings.json`,
      "SubagentStop: ./agent-stop.sh",
      `  timeout 600s · agent checker's runs · ${box.workspace}/.claude/agents/checker.md`,
      "",
    ].join("\n"),
  );
  const usage = await box.run(["hooks", "remove"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /Unknown hooks command "remove"/);
});
