// `blade run <agent> "prompt"` in the foreground: the child's answer and its token usage (input and
// output counted apart) in the json result, and the ad-hoc parent session's transcript recording the
// delegation like a Task call.

import assert from "node:assert/strict";
import { bladeSandbox, parseJsonResult, transcriptEvents, transcriptPath } from "./support/blade.ts";

const SCRIPT = `agents:
  "*":
    - turns:
        - tool_calls: [{ name: Glob, input: { pattern: "*" } }]
          usage: { input_tokens: 100, output_tokens: 7 }
        - text: "Two files here."
          usage: { input_tokens: 130, output_tokens: 5 }
`;

Deno.test("run --output-format json: input and output tokens of the child are reported apart", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("count.yaml", SCRIPT);
  const run = await sandbox.run([
    "run",
    "Explore",
    "count the files here",
    "--provider",
    "scripted",
    "--script",
    "count.yaml",
    "--output-format",
    "json",
  ]);
  assert.equal(run.code, 0, run.stderr);
  const json = parseJsonResult(run);
  assert.equal(json.result, "Two files here.");
  assert.equal(json.is_error, false);
  const usage = json.usage as Record<string, unknown>;
  assert.deepEqual([usage.input_tokens, usage.output_tokens], [230, 12]);

  const events = await transcriptEvents(
    transcriptPath({ storage: sandbox.storage, workspace: sandbox.workspace }, String(json.session_id)),
  );
  assert.deepEqual(events.map((e) => e.type), [
    "session_created",
    "turn_started",
    "message_created",
    "part_created",
    "message_created",
    "part_created",
    "message_created",
    "part_created",
    "part_created",
    "turn_completed",
  ]);
  // The ad-hoc parent made no model request of its own: its turn used no tokens.
  assert.deepEqual(events.at(-1)!.data, {
    turn: 1,
    turns: 0,
    toolCalls: 1,
    durationMs: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
  });
});

Deno.test("run in an untrusted folder: the Workspace Trust warning is printed at start, as with -p", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("count.yaml", SCRIPT);
  await sandbox.write(".blade/agents/fixer.md", "---\nname: fixer\ndescription: Fixes things\n---\nFix.");
  // The user's own settings grant nothing in an untrusted folder; the command line's flags do.
  await Deno.mkdir(`${sandbox.home}/.claude`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.claude/settings.json`,
    JSON.stringify({ permissions: { allow: ["Edit"] } }),
  );
  const args = ["run", "Explore", "count the files here", "--provider", "scripted", "--script", "count.yaml"];
  const run = await sandbox.run([...args, "--permission-mode", "acceptEdits", "--allowedTools", "Bash"]);
  assert.equal(run.code, 0, run.stderr);
  const warnings = run.stderr.split("\n").filter((l) => l.startsWith("blade: warning:"));
  assert.equal(warnings.length, 2, run.stderr);
  assert.match(
    warnings[0]!,
    /not trusted, so only the command line grants.*allow rules Edit do not apply.*--trust-workspace.*BLADE_TRUST_WORKSPACE=1.*blade trust/,
  );
  assert.match(warnings[1]!, /project agents not loaded \(untrusted folder\): fixer\./);

  const trusted = await sandbox.run([...args, "--permission-mode", "acceptEdits", "--trust-workspace"]);
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.doesNotMatch(trusted.stderr, /not trusted/);
});
