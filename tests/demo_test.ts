// End-to-end: `blade demo` as a real subprocess (docs/reference/cli.md): the whole parent → Task → Explore child →
// edit flow against the built-in scripted model, in a throwaway folder that is removed afterwards
// unless --keep is given.

import assert from "node:assert/strict";
import { bladeSandbox, listFiles, transcriptEvents } from "./support/blade.ts";

Deno.test("demo: delegates to Explore, fixes the typo, exits 0 and leaves nothing behind", async () => {
  await using sandbox = await bladeSandbox();
  const tmp = `${sandbox.root}/tmp`;
  await Deno.mkdir(tmp);
  const run = await sandbox.run(["demo"], { env: { TMPDIR: tmp } });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "");
  const lines = run.stdout.split("\n");
  const index = (pattern: RegExp) => {
    const i = lines.findIndex((line) => pattern.test(line));
    assert.ok(i >= 0, `no line matches ${pattern} in:\n${run.stdout}`);
    return i;
  };
  const order = [
    index(/^● Task\(Explore: Find the greeting text\)$/),
    index(/^ {2}↳ Explore started: Find the greeting text \(agent-[\w-]{21}\)$/),
    index(/^ {4}agent-[\w-]{8} ● Grep\(Helo\)$/),
    index(/^ {2}↳ Explore completed: The greeting is built in src\/greet\.ts, line 2/),
    index(/^● Edit\(src\/greet\.ts\)$/),
    index(/^ {2}- return "Helo, " \+ name \+ "!";$/),
    index(/^ {2}\+ return "Hello, " \+ name \+ "!";$/),
    index(
      /^completed in \d+ ms: 4 model turns, 3 tool calls, 1 subagent \(Explore\); session session-[\w-]{21}$/,
    ),
  ];
  assert.deepEqual(order, [...order].sort((a, b) => a - b), "the lines appear in the order things happened");
  assert.ok(!run.stdout.includes("\x1b["), "NO_COLOR: no escape sequences");
  assert.deepEqual(await listFiles(tmp), [], "the throwaway folder is removed");
  assert.equal(
    await Deno.stat(sandbox.storage).then(() => true, () => false),
    false,
    "the user's storage is untouched",
  );
});

Deno.test("demo --keep: the kept folder holds the fixed file and both transcripts", async () => {
  await using sandbox = await bladeSandbox();
  const tmp = `${sandbox.root}/tmp`;
  await Deno.mkdir(tmp);
  const run = await sandbox.run(["demo", "--keep"], { env: { TMPDIR: tmp } });
  assert.equal(run.code, 0, run.stderr);
  const kept = /^kept: (\S+) \(transcripts under storage\/projects\/\)$/m.exec(run.stdout)?.[1];
  assert.ok(kept !== undefined && kept.startsWith(`${tmp}/blade-demo-`), run.stdout);
  assert.equal(
    await Deno.readTextFile(`${kept}/project/src/greet.ts`),
    'export function greet(name: string): string {\n  return "Hello, " + name + "!";\n}\n',
  );
  const transcripts = (await listFiles(`${kept}/storage/projects`)).filter((f) => f.endsWith(".jsonl"));
  const headers = await Promise.all(transcripts.map(async (f) => (await transcriptEvents(f))[0]));
  assert.deepEqual(
    headers.map((e) => (e?.type === "session_created" ? [e.data.agentType, e.data.relation ?? null] : null))
      .sort(),
    [["Explore", "subagent"], ["main", null]],
  );
  // Records only: the store keeps a dot-named lock file beside each record.
  const sidecars = (await listFiles(`${kept}/storage/agents/sessions`)).filter((f) => f.endsWith(".json"));
  assert.equal(sidecars.length, 1);
  assert.equal(JSON.parse(await Deno.readTextFile(sidecars[0]!)).status, "completed");
});
