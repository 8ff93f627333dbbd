// End-to-end: issue 28's reproduced Bash escapes, each sent by the model through the real `blade -p` CLI
// with the OS sandbox turned off (BLADE_SANDBOX=0), so the rule layer alone must hold
// (docs/guides/permissions.md "Rules"): past an allow rule (`Bash(echo:*)`, `Bash(printf:*)`,
// `Bash(test:*)`, `Bash(cp:*)` with `$'.git'`), nothing runs in print mode; past a deny rule
// (`Bash(touch:*)`), nothing runs even in yolo. Each escape leaves its own file if it got through. The
// decision tables are lib/protocol/tool_rule_test.ts; this proves the CLI decides with them.

import assert from "node:assert/strict";
import type { ToolResultBlock } from "../lib/protocol/messages.ts";
import {
  type BladeSandbox,
  bladeSandbox,
  parseJsonResult,
  runScripted,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

/** The session runs `commands` as Bash calls in one response; their results, in order. */
async function runCommands(
  sandbox: BladeSandbox,
  commands: string[],
  flags: string[],
): Promise<ToolResultBlock[]> {
  const calls = commands.map((command) => ({ name: "Bash", input: { command } }));
  const run = await runScripted(
    sandbox,
    { agents: { main: [{ turns: [{ tool_calls: calls }, { text: "done" }] }] } },
    { prompt: "Do the work", flags: ["--trust-workspace", ...flags], env: { BLADE_SANDBOX: "0" } },
  );
  assert.equal(run.code, 0, run.stderr);
  const events = await transcriptEvents(transcriptPath(sandbox, String(parseJsonResult(run).session_id)));
  const results = events.flatMap((e) =>
    e.type === "part_created" && e.data.part.type === "tool_result" ? [e.data.part] : []
  );
  assert.equal(results.length, commands.length);
  return results;
}

/** Files the escapes left in the workspace (each escape names its own `pwnedN`). */
async function pwned(sandbox: BladeSandbox): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(sandbox.workspace)) if (e.name.startsWith("pwned")) found.push(e.name);
  return found.sort();
}

/** Each escape of the issue with its own marker file. */
const numbered = (escapes: string[]) => escapes.map((e, i) => e.replaceAll("pwned", `pwned${i}`));

Deno.test("escapes e2e: past Bash(echo:*), Bash(printf:*) and Bash(test:*) nothing runs (rule layer alone)", async () => {
  await using sandbox = await bladeSandbox();
  const escapes = numbered([
    "echo $'\\'' ; touch pwned #'",
    "echo ${x:-'}'};touch pwned #'",
    "echo ${x:=a[\\$\\(touch pwned\\)]}$[x]",
    "echo ${x:=\\$\\(touch pwned\\)}${x@P}",
    "printf -v 'a[$(touch pwned)]' hi",
    "test -v 'a[$(touch pwned)]'",
  ]);
  const results = await runCommands(sandbox, ["echo allowed", ...escapes], [
    "--allowed-tools",
    "Bash(echo:*) Bash(printf:*) Bash(test:*)",
  ]);
  assert.equal(results[0]!.isError, false, results[0]!.content);
  for (const [i, result] of results.slice(1).entries()) {
    assert.equal(result.isError, true, escapes[i]);
    assert.match(result.content, /Permission denied: Bash needs approval/, escapes[i]);
  }
  assert.deepEqual(await pwned(sandbox), []);
});

Deno.test("escapes e2e: past --disallowed-tools Bash(touch:*) nothing runs, even in yolo (rule layer alone)", async () => {
  await using sandbox = await bladeSandbox();
  const escapes = numbered([
    "case x in x) touch pwned;; esac",
    "f() { touch pwned; }; f",
    "$'touch' pwned",
    "env -C . touch pwned",
    "timeout -s KILL 10 touch pwned",
    "echo pwned | xargs -I {} touch {}",
    "bash -c -- 'touch pwned'",
    "coproc touch pwned; wait",
    "command -- touch pwned",
    `echo ${"$(echo ".repeat(12)}$(touch pwned)${")".repeat(12)}`,
  ]);
  const results = await runCommands(sandbox, [...escapes, "echo still runs"], [
    "--permission-mode",
    "yolo",
    "--disallowed-tools",
    "Bash(touch:*)",
  ]);
  for (const [i, result] of results.slice(0, -1).entries()) {
    assert.equal(result.isError, true, escapes[i]);
    assert.match(result.content, /matches the deny rule Bash\(touch:\*\)/, escapes[i]);
  }
  assert.match(results.at(-1)!.content, /still runs/);
  assert.deepEqual(await pwned(sandbox), []);
});

Deno.test("escapes e2e: Bash(cp:*) does not plant .git/hooks/pre-commit through $'.git' (rule layer alone)", async () => {
  await using sandbox = await bladeSandbox();
  await new Deno.Command("git", { args: ["init", "-q", sandbox.workspace] }).output();
  await sandbox.write("hook.sh", "#!/bin/sh\necho pwned\n");
  await Deno.chmod(`${sandbox.workspace}/hook.sh`, 0o755);
  const results = await runCommands(sandbox, [
    "cp hook.sh $'.git'/hooks/pre-commit",
    "cp hook.sh $'.git/hooks/pre-push'",
    "cp hook.sh copy.sh",
  ], ["--allowed-tools", "Bash(cp:*)"]);
  for (const result of results.slice(0, 2)) {
    assert.equal(result.isError, true, result.content);
    assert.match(result.content, /not a literal/);
  }
  assert.equal(results[2]!.isError, false, results[2]!.content);
  for (const hook of ["pre-commit", "pre-push"]) {
    const path = `${sandbox.workspace}/.git/hooks/${hook}`;
    assert.equal(await Deno.lstat(path).then(() => true, () => false), false, `${hook} was planted`);
  }
});
