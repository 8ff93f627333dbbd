// End-to-end: the permission rules through the real `blade -p` CLI and the scripted provider
// (docs/guides/permissions.md). Each bypass found against the old rule parsers is a call here that
// must now be refused, with the refusal visible in the tool result, and the side effect absent.

import assert from "node:assert/strict";
import type { ToolResultBlock } from "../lib/protocol/messages.ts";
import {
  type BladeResult,
  type BladeSandbox,
  bladeSandbox,
  parseJsonResult,
  runScripted,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

interface Call {
  name: string;
  input: Record<string, unknown>;
}

/** Runs the top-level session with one response making `calls`, then a final text. */
async function runCalls(sandbox: BladeSandbox, calls: Call[], flags: string[]): Promise<{
  run: BladeResult;
  results: ToolResultBlock[];
}> {
  const run = await runScripted(
    sandbox,
    { agents: { main: [{ turns: [{ tool_calls: calls }, { text: "done" }] }] } },
    { prompt: "Do the work", flags: ["--trust-workspace", ...flags] },
  );
  const events = await transcriptEvents(transcriptPath(sandbox, String(parseJsonResult(run).session_id)));
  const results = events.flatMap((e) =>
    e.type === "part_created" && e.data.part.type === "tool_result" ? [e.data.part] : []
  );
  assert.equal(results.length, calls.length);
  // A run all of whose work was refused fails (a read alone is no work: Read, Glob, Grep).
  const work = calls.map((c, i) => [c, results[i]!] as const).filter(([c]) =>
    !["Read", "Glob", "Grep"].includes(c.name)
  );
  const refusedAll = work.length > 0 &&
    work.every(([, r]) => r.isError && /^Permission denied/.test(r.content));
  assert.equal(run.code, refusedAll ? 1 : 0, run.stderr);
  return { run, results };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

const bash = (command: string): Call => ({ name: "Bash", input: { command } });

Deno.test("rules e2e: Bash(echo:*) approves echo and nothing chained, substituted or merely prefixed", async () => {
  await using sandbox = await bladeSandbox();
  const bypasses = ["echo hi; touch x1", "echo hi && touch x2", "echo $(touch x3)", "echox_not_echo"];
  const { results } = await runCalls(sandbox, [bash("echo allowed"), ...bypasses.map(bash)], [
    "--allowed-tools",
    "Bash(echo:*)",
  ]);
  assert.equal(results[0]!.isError, false, results[0]!.content);
  assert.match(results[0]!.content, /allowed/);
  for (const [i, result] of results.slice(1).entries()) {
    assert.equal(result.isError, true, bypasses[i]);
    assert.match(result.content, /Permission denied: Bash needs approval/, bypasses[i]);
  }
  for (const name of ["x1", "x2", "x3"]) {
    assert.equal(await exists(`${sandbox.workspace}/${name}`), false, name);
  }
});

Deno.test("rules e2e: Write(docs/*) matches the real path, so docs/../escaped.txt is refused", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.mkdir(`${sandbox.workspace}/docs`);
  const { results } = await runCalls(sandbox, [
    { name: "Write", input: { file_path: "docs/ok.md", content: "ok\n" } },
    { name: "Write", input: { file_path: "docs/../escaped.txt", content: "escaped\n" } },
  ], ["--allowed-tools", "Write(docs/*)"]);
  assert.equal(results[0]!.isError, false, results[0]!.content);
  assert.equal(results[1]!.isError, true);
  assert.match(results[1]!.content, /Permission denied: Write needs approval/);
  assert.equal(await exists(`${sandbox.workspace}/escaped.txt`), false);
});

Deno.test("rules e2e: --disallowed-tools Bash(rm:*) refuses rm even in yolo, however it is spelled", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("victim.txt", "keep me\n");
  const spellings = [
    "rm victim.txt",
    "echo a && rm victim.txt",
    "/bin/rm victim.txt",
    "sh -c 'rm victim.txt'",
  ];
  const { results } = await runCalls(sandbox, [...spellings.map(bash), bash("echo still runs")], [
    "--permission-mode",
    "yolo",
    "--disallowed-tools",
    "Bash(rm:*)",
  ]);
  for (const [i, result] of results.slice(0, -1).entries()) {
    assert.equal(result.isError, true, spellings[i]);
    assert.match(result.content, /matches the deny rule Bash\(rm:\*\)/, spellings[i]);
  }
  assert.equal(results.at(-1)!.isError, false);
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/victim.txt`), "keep me\n");
});

Deno.test("rules e2e: dontAsk refuses what no rule allows (it is not yolo); manual is default", async () => {
  await using sandbox = await bladeSandbox();
  const { results } = await runCalls(sandbox, [
    { name: "Write", input: { file_path: "a.txt", content: "a\n" } },
    bash("touch b.txt"),
    bash("echo approved"),
  ], ["--permission-mode", "dontAsk", "--allowed-tools", "Bash(echo *)"]);
  assert.match(results[0]!.content, /not pre-approved by an allow rule, and permission mode "dontAsk"/);
  assert.match(results[1]!.content, /not pre-approved/);
  assert.equal(results[2]!.isError, false);
  assert.equal(await exists(`${sandbox.workspace}/a.txt`), false);
  assert.equal(await exists(`${sandbox.workspace}/b.txt`), false);
  const manual = await runCalls(sandbox, [bash("touch c.txt")], ["--permission-mode", "manual"]);
  assert.match(manual.results[0]!.content, /needs approval in permission mode "default"/);
});

Deno.test("rules e2e: a rule that is not a rule is a usage error; an unknown tool name a warning", async () => {
  await using sandbox = await bladeSandbox();
  const bad = await sandbox.run(["-p", "x", "--provider", "scripted", "--allowed-tools", "Bash(npm"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--allowed-tools: "Bash\(npm" is not a rule/);
  const { run } = await runCalls(sandbox, [bash("echo hi")], ["--allowed-tools", "Bsah(echo:*)"]);
  assert.match(run.stderr, /warning: --allowed-tools names no Blade tool: Bsah/);
});

Deno.test("rules e2e: --disallowed-tools Read(./secrets/**) also keeps Grep and Glob of the parent out of it", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("secrets/prod.env", "TOKEN=hunter2\n");
  await sandbox.write("src/app.ts", "const TOKEN = read();\n");
  const { results } = await runCalls(sandbox, [
    { name: "Grep", input: { pattern: "TOKEN", output_mode: "content" } },
    { name: "Glob", input: { pattern: "**/*" } },
    { name: "Read", input: { file_path: "secrets/prod.env" } },
  ], ["--disallowed-tools", "Read(./secrets/**)"]);
  const [grep, glob, read] = results;
  assert.match(grep!.content, /src\/app\.ts:1:const TOKEN/);
  for (const result of [grep!, glob!]) {
    assert.equal(result.isError, false, result.content);
    assert.ok(!result.content.includes("hunter2") && !result.content.includes("prod.env"), result.content);
    assert.match(result.content, /Not searched: 1 path refused by the deny rule Read\(\.\/secrets\/\*\*\)/);
  }
  assert.equal(read!.isError, true);
  assert.match(read!.content, /matches the deny rule Read\(\.\/secrets\/\*\*\)/);
});

Deno.test("rules e2e: a prefix rule does not approve a Bash command that writes .git/, .claude/ or git config", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("payload.sh", "#!/bin/sh\necho pwned\n");
  await Deno.mkdir(`${sandbox.workspace}/.git/hooks`, { recursive: true });
  const { results } = await runCalls(sandbox, [
    bash("cp payload.sh .git/hooks/pre-commit"),
    bash("cp payload.sh .claude/agents/evil.md"),
    bash("cp payload.sh copy.sh"),
  ], ["--allowed-tools", "Bash(cp:*)"]);
  for (const [i, path] of [".git/hooks/pre-commit", ".claude/agents/evil.md"].entries()) {
    assert.equal(results[i]!.isError, true, results[i]!.content);
    assert.match(
      results[i]!.content,
      new RegExp(`may write ${sandbox.workspace}/${path.replaceAll(".", "\\.")}`),
    );
    assert.match(results[i]!.content, /An allow rule that does not name \.(git|claude) does not approve it/);
    assert.equal(await exists(`${sandbox.workspace}/${path}`), false, path);
  }
  assert.equal(results[2]!.isError, false, results[2]!.content);
  assert.equal(await exists(`${sandbox.workspace}/copy.sh`), true);
});

Deno.test("rules e2e: text mode says each refusal on stderr with the rule that allows it; json lists them", async () => {
  await using sandbox = await bladeSandbox();
  const script = {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [bash("git push origin main"), {
              name: "Write",
              input: { file_path: "out.txt", content: "x" },
            }],
          },
          { text: "done" },
        ],
      }],
    },
  };
  const path = `${sandbox.root}/refusals.json`;
  await Deno.writeTextFile(path, JSON.stringify(script));
  const base = ["-p", "Do the work", "--provider", "scripted", "--script", path, "--trust-workspace"];
  const text = await sandbox.run(base);
  // Both calls refused: the run did none of the work it asked for, so it fails (exit 1, as issue 33 asks).
  assert.equal(text.code, 1, text.stderr);
  assert.equal(
    text.stdout,
    "done\nError: Every change the run asked for was refused: Bash, Write (permission_denials lists the " +
      "2 calls; the refusals say what grants them).\n",
  );
  assert.deepEqual(text.stderr.split("\n").filter((l) => l.startsWith("blade: denied")), [
    'blade: denied Bash: Bash needs approval in permission mode "default", and ' +
    'print mode cannot ask. Allow it with --allowed-tools "Bash(git push origin main)".',
    `blade: denied Write: Write needs approval in permission mode "default", and print mode cannot ask. ` +
    'Allow it with --allowed-tools "Edit(/out.txt)".',
  ]);
  const json = await sandbox.run([...base, "--output-format", "json"]);
  assert.equal(json.stderr.includes("blade: denied"), false);
  const denials = parseJsonResult(json).permission_denials as { tool_name: string }[];
  assert.deepEqual(denials.map((d) => d.tool_name), ["Bash", "Write"]);
  // The suggested rules do allow the calls.
  const allowed = await sandbox.run([
    ...base,
    "--allowed-tools",
    "Bash(git push origin main)",
    "Edit(/out.txt)",
  ]);
  assert.equal(
    allowed.stderr.split("\n").filter((l) => l.startsWith("blade: denied Write")).length,
    0,
    allowed.stderr,
  );
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/out.txt`), "x");
});
