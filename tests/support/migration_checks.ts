// The behaviour behind each row of docs/guides/migrating-from-claude-code.md's table, keyed by the
// row's kind and name cell exactly as written (tests/migration_table_test.ts runs one per row and fails
// on a row without a check or a check without a row). A check runs Blade with what the row names
// (tests/support/migration_probe.ts) and asserts what the row says: "same" rows what Claude Code does,
// "different" rows the difference the row describes, "not yet" rows that the run goes on and says so.
// Runs several rows share are made once (`once`).

import assert from "node:assert/strict";
import { fakeStatus, fakeTurn } from "../../lib/testing/fake_anthropic_server.ts";
import { stdioTestServer } from "../../lib/testing/mcp_test_server.ts";
import { MAIN_HELP } from "../../lib/cli/main.ts";
import { VERSION } from "../../lib/version.ts";
import {
  calling,
  delegating,
  keepProbe,
  probe,
  type ProbeOptions,
  type ProbeRun,
} from "./migration_probe.ts";
import { FLAG_CASES } from "./flag_cases.ts";
import { commandSetup } from "./blade.ts";
import { type CompactionCase, compactionFiles, compactionHandler } from "./claude_compaction_cases.ts";
import { CONTINUATION_OPENING } from "../../lib/executor/compaction_text.ts";

/** A row of the table. */
export interface Row {
  kind: string;
  /** The name cell as written. */
  name: string;
  /** Its backquoted names. */
  names: string[];
  status: string;
}

export type Check = (row: Row) => Promise<void>;

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A run made once, for the rows that read it. */
function once(make: () => Promise<ProbeRun>): () => Promise<ProbeRun> {
  let run: Promise<ProbeRun> | undefined;
  return () => (run ??= make().then(keepProbe));
}

const json = (prompt: string, ...flags: string[]) => ["-p", prompt, "--output-format", "json", ...flags];
const stream = (prompt: string, ...flags: string[]) => [
  "-p",
  prompt,
  "--output-format",
  "stream-json",
  "--verbose",
  ...flags,
];

function ok(run: ProbeRun, code = 0): void {
  assert.equal(run.code, code, `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
}

/** The stderr lines that name `flag`. */
function warningsNaming(run: ProbeRun, flag: string): string[] {
  return run.stderr.split("\n").filter((l) => l.includes(flag));
}

/** A Claude Code flag's sweep case (its sample value), else the flag alone. */
function sweepCase(flag: string): string[] {
  // Claude Code refuses --tmux without --worktree, as Blade does.
  if (flag === "--tmux") return ["--worktree", "wt1", "--tmux"];
  return FLAG_CASES.find((c) => c.args[0] === flag || c.args[0]!.startsWith(`${flag}=`))?.args ?? [flag];
}

const write = { name: "Write", input: { file_path: "made.txt", content: "made\n" } };
const bash = (command: string) => ({ name: "Bash", input: { command } });
const read = (file_path: string) => ({ name: "Read", input: { file_path } });

/** The run's project folder under its storage root (transcripts, session names); `.layout` is the store's. */
function projectDir(run: ProbeRun): string {
  const folders = [...Deno.readDirSync(`${run.storage}/projects`)].filter((e) => !e.name.startsWith("."));
  assert.equal(folders.length, 1, folders.map((e) => e.name).join());
  return `${run.storage}/projects/${folders[0]!.name}`;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Deno's module cache, for the test MCP server started by Blade (with a HOME of the run's own). */
const { denoDir } = await commandSetup();

/** A JSON `--mcp-config` (or .mcp.json) with the test MCP server under each name. */
function mcpServers(...names: string[]): string {
  return JSON.stringify({
    mcpServers: Object.fromEntries(
      names.map((n) => [n, stdioTestServer([`--label=${n}`], { DENO_DIR: denoDir })]),
    ),
  });
}

// Runs several rows read.
const plain = once(() => probe(json("Say hi", "--model", "opus")));
const failed = once(() =>
  probe(json("Say hi", "--max-turns", "1"), { answers: calling([bash("echo one"), bash("echo two")]) })
);
const refusedWrite = once(() => probe(json("Make a file"), { answers: calling([write]) }));
const apiRefused = once(() =>
  probe(json("Say hi"), { answers: [fakeStatus(400, { message: "prompt is too long" })] })
);
const delegation = once(() =>
  probe(stream("Delegate", "--forward-subagent-text"), { answers: delegating() })
);
const background = once(() =>
  probe(stream("Delegate"), {
    answers: delegating({ background: true }),
    env: { BLADE_BACKGROUND_WAIT: "60" },
  })
);
const structured = once(() =>
  probe(
    json("Count", "--json-schema", JSON.stringify({ type: "object", properties: { n: { type: "number" } } })),
    {
      answers: calling([{ name: "StructuredOutput", input: { n: 4 } }], { text: "unused" }),
    },
  )
);
/** Stream-json input as the Agent SDK writes it: initialize (MCP servers), two user messages. */
const sdkInput = once(() => {
  const line = (value: unknown) => JSON.stringify(value) + "\n";
  const user = (text: string) =>
    line({
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
      session_id: "",
    });
  return probe([
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--await-initialize",
    "--replay-user-messages",
  ], {
    stdin: line({
      type: "control_request",
      request_id: "r1",
      request: { subtype: "initialize", mcpServers: JSON.parse(mcpServers("sdk")).mcpServers },
    }) + user("First") + user("Second"),
    env: { CLAUDE_CODE_SDK_READS_SESSION_STATE: "1" },
  });
});

/** The first request's body for `flags` (and `o`), after a successful run. */
async function sent(flags: string[], o: ProbeOptions = {}): Promise<ProbeRun> {
  const run = await probe(json("Say hi", ...flags), o);
  ok(run);
  return run;
}

/** One warning line naming each flag, and the run goes on (exit 0, its answer printed). */
async function warnsAndRuns(row: Row): Promise<void> {
  for (const flag of row.names) {
    const run = await probe(json("Say hi", ...sweepCase(flag)), { git: true });
    ok(run);
    assert.equal(run.result().result, "Hi.", flag);
    assert.equal(warningsNaming(run, flag).length, 1, `one warning naming ${flag}:\n${run.stderr}`);
  }
}

const FLAGS: Record<string, Check> = {
  "`-p`, `--print`": async () => {
    for (const flag of ["-p", "--print"]) {
      const run = await probe([flag, "Say hi"]);
      ok(run);
      assert.equal(run.stdout, "Hi.\n");
      assert.match(run.said(), /Say hi/);
    }
  },
  "`--output-format`": async () => {
    const text = await probe(["-p", "Say hi", "--output-format", "text"]);
    assert.equal(text.stdout, "Hi.\n");
    const one = (await plain()).lines();
    assert.equal(one.length, 1);
    assert.equal(one[0]!.type, "result");
    const lines = (await delegation()).lines();
    assert.deepEqual([lines[0]!.type, lines[0]!.subtype, lines.at(-1)!.type], ["system", "init", "result"]);
  },
  "`--input-format`": async () => {
    const run = await sdkInput();
    ok(run);
    const results = run.lines().filter((l) => l.type === "result");
    assert.equal(results.length, 2, "one result per user message");
    assert.match(run.said(1), /First[\s\S]*Hi\.[\s\S]*Second/, "one session: the second turn sees the first");
  },
  "`--verbose`": async () => {
    const run = await probe(json("Say hi", "--verbose"));
    ok(run);
    const array = JSON.parse(run.stdout) as Json[];
    assert.ok(Array.isArray(array), "json --verbose prints one array");
    assert.deepEqual([array[0]!.subtype, array.at(-1)!.type], ["init", "result"]);
    assert.ok(array.some((m) => m.type === "assistant"));
  },
  "`--include-partial-messages`": async () => {
    const run = await probe(stream("Say hi", "--include-partial-messages"));
    ok(run);
    const events = run.lines().filter((l) => l.type === "stream_event").map((l) => l.event.type);
    assert.ok(events.includes("message_start") && events.includes("content_block_delta"), events.join());
    assert.ok(!(await delegation()).lines().some((l) => l.type === "stream_event"), "none without the flag");
  },
  "`--replay-user-messages`": async () => {
    const replayed = (await sdkInput()).lines().filter((l) =>
      l.type === "user" && l.parent_tool_use_id === null
    );
    assert.deepEqual(replayed.map((l) => l.message.content[0].text), ["First", "Second"]);
  },
  "`--model`": async () => {
    assert.equal((await plain()).body().model, "claude-opus-5-5");
    assert.equal((await sent(["--model", "claude-sonnet-4-5"])).body().model, "claude-sonnet-4-5");
  },
  "`--effort`": async () => {
    assert.deepEqual((await sent(["--model", "opus", "--effort", "low"])).body().output_config, {
      effort: "low",
    });
  },
  "`--fallback-model`": async () => {
    const run = await probe(json("Say hi", "--model", "opus", "--fallback-model", "haiku"), {
      answers: [fakeStatus(529, { message: "Overloaded" }), fakeTurn({ text: "Hi." })],
      env: { CLAUDE_CODE_MAX_RETRIES: "0" },
    });
    ok(run);
    assert.deepEqual(run.requests.map((r) => (r.body as unknown as Json).model), [
      "claude-opus-5-5",
      "claude-haiku-5-5",
    ]);
  },
  "`--permission-mode`": async () => {
    const refused = await refusedWrite();
    ok(refused, 1);
    const run = await probe(json("Make a file", "--permission-mode", "acceptEdits"), {
      answers: calling([write]),
    });
    ok(run);
    assert.equal(await Deno.readTextFile(`${run.ws}/made.txt`), "made\n");
  },
  "`--allowedTools`, `--allowed-tools`": async () => {
    for (const flag of ["--allowedTools", "--allowed-tools"]) {
      const run = await probe(json("Echo", flag, "Bash(echo allowed)"), {
        answers: calling([bash("echo allowed")], { text: "{{result}}" }),
      });
      ok(run);
      assert.match(run.result().result, /^allowed/);
    }
  },
  "`--disallowedTools`, `--disallowed-tools`": async () => {
    for (const flag of ["--disallowedTools", "--disallowed-tools"]) {
      const run = await sent([flag, "Bash"]);
      assert.ok(!run.tools().includes("Bash") && run.tools().includes("Read"), run.tools().join());
    }
  },
  "`--tools`": async () => {
    assert.deepEqual((await sent(["--tools", "Read,Glob"])).tools(), ["Read", "Glob"]);
    assert.deepEqual((await sent(["--tools", ""])).tools(), []);
  },
  "`--system-prompt`": async () => {
    assert.equal((await sent(["--system-prompt", "You are terse."])).system(), "You are terse.");
  },
  "`--system-prompt-file`": async () => {
    const run = await sent(["--system-prompt-file", "sys.md"], {
      files: { "sys.md": "You are from a file." },
    });
    assert.equal(run.system(), "You are from a file.");
  },
  "`--append-system-prompt`": async () => {
    const system = (await sent(["--append-system-prompt", "Answer in French."])).system();
    assert.match(system, /^You are Blade[\s\S]*Answer in French\.$/);
  },
  "`--append-system-prompt-file`": async () => {
    const run = await sent(["--append-system-prompt-file", "extra.md"], {
      files: { "extra.md": "Be kind." },
    });
    assert.match(run.system(), /^You are Blade[\s\S]*Be kind\.$/);
  },
  "`--max-turns`": async () => {
    const run = await failed();
    ok(run, 1);
    const r = run.result();
    assert.deepEqual([r.subtype, r.num_turns, r.terminal_reason], ["error_max_turns", 2, "max_turns"]);
    assert.equal(run.requests.length, 1);
  },
  "`--max-budget-usd`": async () => {
    const run = await probe(json("Say hi", "--max-budget-usd", "0.000001"));
    ok(run, 1);
    assert.deepEqual([run.result().subtype, run.result().terminal_reason], [
      "error_max_budget_usd",
      "max_budget_usd",
    ]);
  },
  "`-c`, `--continue`": async () => {
    const first = await probe(json("Remember 7"));
    for (const flag of ["-c", "--continue"]) {
      const next = await probe(json("What number?", flag), { after: first });
      ok(next);
      assert.equal(next.result().session_id, first.result().session_id);
      assert.match(next.said(), /Remember 7[\s\S]*What number\?/);
    }
    const fresh = await probe(json("Nothing before", "--continue"));
    ok(fresh);
    assert.doesNotMatch(fresh.said(), /Remember/, "nothing to continue: a new session");
  },
  "`-r`, `--resume`": async () => {
    const first = await probe(json("Remember 7"));
    const id = first.result().session_id;
    for (const flag of ["-r", "--resume"]) {
      const next = await probe(json("What number?", flag, id), { after: first });
      ok(next);
      assert.equal(next.result().session_id, id);
      assert.match(next.said(), /Remember 7/);
    }
  },
  "`--session-id`": async () => {
    const id = "0b9c4c1e-4a57-4f8e-9d49-6c1f0d2a7e11";
    assert.equal((await sent(["--session-id", id])).result().session_id, id);
  },
  "`--fork-session`": async () => {
    const first = await probe(json("Remember 7"));
    const id = first.result().session_id;
    const fork = await probe(json("What number?", "--resume", id, "--fork-session"), { after: first });
    ok(fork);
    assert.notEqual(fork.result().session_id, id);
    assert.match(fork.said(), /Remember 7/);
    const again = await probe(json("Again", "--resume", id), { after: first });
    assert.doesNotMatch(again.said(), /What number\?/, "the original session is untouched");
  },
  "`--settings`": async () => {
    assert.equal((await sent(["--settings", '{"model":"haiku"}'])).body().model, "claude-haiku-5-5");
    const file = await sent(["--settings", "s.json"], { files: { "s.json": '{"model":"haiku"}' } });
    assert.equal(file.body().model, "claude-haiku-5-5");
  },
  "`--setting-sources`": async () => {
    const files = { "~/.claude/settings.json": '{"model":"haiku"}' };
    assert.equal((await sent([], { files })).body().model, "claude-haiku-5-5");
    assert.equal(
      (await sent(["--setting-sources", "project,local"], { files })).body().model,
      "claude-sonnet-5-5",
    );
  },
  "`--agents`": async () => {
    const agents = '{"reviewer":{"description":"Reviews diffs","prompt":"You review."}}';
    const run = await probe(stream("Say hi", "--agents", agents));
    ok(run);
    assert.ok(run.lines()[0]!.agents.includes("reviewer"));
    assert.match(run.system(), /reviewer: Reviews diffs/);
  },
  "`--agent`": async () => {
    const agents =
      '{"reviewer":{"description":"Reviews diffs","prompt":"You review diffs only.","tools":["Read"]}}';
    const run = await sent(["--agents", agents, "--agent", "reviewer"]);
    assert.match(run.system(), /You review diffs only\./);
    assert.deepEqual(run.tools(), ["Read"]);
  },
  "`--dangerously-skip-permissions`": async () => {
    const run = await probe(json("Run it", "--dangerously-skip-permissions"), {
      trusted: false,
      answers: calling([bash("touch by-bash"), write]),
    });
    ok(run);
    assert.ok(
      await exists(`${run.ws}/by-bash`) && await exists(`${run.ws}/made.txt`),
      "granted in an untrusted folder",
    );
  },
  "`--allow-dangerously-skip-permissions`": async () => {
    const run = await probe(json("Make a file", "--allow-dangerously-skip-permissions"), {
      answers: calling([write]),
    });
    ok(run, 1);
    assert.equal(await exists(`${run.ws}/made.txt`), false, "grants nothing by itself");
  },
  "`--mcp-config`": async () => {
    const run = await probe(
      json("Echo", "--mcp-config", mcpServers("docs"), "--allowedTools", "mcp__docs__echo"),
      {
        answers: calling([{ name: "mcp__docs__echo", input: { text: "hi" } }], { text: "{{result}}" }),
      },
    );
    ok(run);
    assert.equal(run.result().result, "docs echo: hi");
  },
  "`--strict-mcp-config`": async () => {
    const files = { ".mcp.json": mcpServers("project") };
    const both = await sent(["--mcp-config", mcpServers("flag")], { files });
    assert.ok(both.tools().includes("mcp__project__echo") && both.tools().includes("mcp__flag__echo"));
    const strict = await sent(["--strict-mcp-config", "--mcp-config", mcpServers("flag")], { files });
    assert.ok(!strict.tools().includes("mcp__project__echo") && strict.tools().includes("mcp__flag__echo"));
  },
  "`--add-dir`": async () => {
    const first = await probe(json("Say hi"));
    const extra = `${first.root}/extra`;
    await Deno.mkdir(extra);
    await Deno.writeTextFile(`${extra}/notes.txt`, "extra notes");
    const answers = calling([read(`${extra}/notes.txt`)], { text: "{{result}}" });
    const refused = await probe(json("Read it"), { after: first, answers });
    assert.doesNotMatch(
      refused.result().result,
      /extra notes/,
      "outside the workspace: refused in print mode",
    );
    const run = await probe(json("Read it", "--add-dir", extra), { after: first, answers });
    ok(run);
    assert.match(run.result().result, /extra notes/);
    const missing = await probe(json("Say hi", "--add-dir", `${first.root}/missing`), { after: first });
    ok(missing, 2);
  },
  "`--json-schema`": async () => {
    const run = await structured();
    ok(run);
    const r = run.result();
    assert.deepEqual(r.structured_output, { n: 4 });
    assert.equal(r.result, '{"n":4}');
    assert.equal(run.requests.length, 1, "ends at the accepted StructuredOutput, one request");
  },
  "`--permission-prompt-tool`": async () => {
    for (const [tool, written] of [["mcp__auth__approve", true], ["mcp__auth__refuse", false]] as const) {
      const run = await probe(
        json("Make a file", "--mcp-config", mcpServers("auth"), "--permission-prompt-tool", tool),
        {
          answers: calling([write], { text: "{{result}}" }),
        },
      );
      assert.equal(await exists(`${run.ws}/made.txt`), written, tool);
      if (!written) assert.match(run.toolResults(1)[0]!.content, /auth refused Write\./);
    }
  },
  "`--permission-prompts`": async () => {
    const run = await probe(
      json(
        "Make a file",
        "--mcp-config",
        mcpServers("auth"),
        "--permission-prompt-tool",
        "mcp__auth__approve",
        "--permission-prompts",
        "none",
      ),
      { answers: calling([write]) },
    );
    ok(run, 1);
    assert.equal(await exists(`${run.ws}/made.txt`), false, "nobody is asked: refused");
  },
  "`-n`, `--name`": async () => {
    const first = await probe(json("Remember 7", "--name", "nightly fix"));
    ok(first);
    const next = await probe(json("What number?", "--resume", "nightly fix"), { after: first });
    ok(next);
    assert.equal(next.result().session_id, first.result().session_id);
    const short = await probe(json("Remember 8", "-n", "other"), { after: first });
    ok(short);
    const names = await Deno.readTextFile(`${projectDir(first)}/session-names.json`);
    assert.match(names, /nightly fix[\s\S]*other|other[\s\S]*nightly fix/);
  },
  "`-w`, `--worktree`": async () => {
    const run = await probe(json("Make a file", "-w", "feat", "--permission-mode", "acceptEdits"), {
      git: true,
      answers: calling([write]),
    });
    ok(run);
    assert.equal(await exists(`${run.ws}/made.txt`), false, "the checkout is untouched");
    const kept = run.stderr.match(
      /the session's worktree is kept: (\S+) \(branch blade-worktree-agent\+feat-/,
    );
    assert.ok(kept !== null && kept[1]!.startsWith(`${run.storage}/worktrees/`), run.stderr);
    assert.equal(await Deno.readTextFile(`${kept[1]}/made.txt`), "made\n");
  },
  "`-d`, `--debug`": async () => {
    for (const flags of [["-d"], ["--debug"], ["--debug=api"], ["-d", "api"]]) {
      const run = await sent(flags);
      assert.match(run.stderr, /\[debug\]/, flags.join(" "));
    }
  },
  "`--debug-file`": async () => {
    const run = await sent(["--debug-file", "debug.log"]);
    assert.doesNotMatch(run.stderr, /\[debug\]/);
    assert.match(await Deno.readTextFile(`${run.ws}/debug.log`), /\S/);
  },
  "`--bare`": async () => {
    const files = {
      "CLAUDE.md": "Always use tabs.",
      ".claude/skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets\n---\nSay hello.",
    };
    const full = await sent([], { files });
    assert.match(full.said(), /Always use tabs\./);
    const bare = await sent(["--bare"], { files });
    assert.doesNotMatch(bare.said(), /Always use tabs\.|greet/);
  },
  "`--betas`": async () => {
    const run = await sent(["--betas", "context-1m-2025-08-07"]);
    assert.ok(run.requests[0]!.headers["anthropic-beta"]!.split(",").includes("context-1m-2025-08-07"));
  },
  "`--disable-slash-commands`": async () => {
    const files = {
      ".claude/skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets people\n---\nSay hello.",
    };
    assert.match((await sent([], { files })).said(), /greet: Greets people/);
    const off = await sent(["--disable-slash-commands"], { files });
    assert.doesNotMatch(off.said(), /greet/);
    assert.ok(!off.tools().includes("Skill"));
  },
  "`--output-style`": async () => {
    assert.match((await sent(["--output-style", "Explanatory"])).system(), /Explanatory/);
  },
  "`--forward-subagent-text`": async () => {
    const run = await delegation();
    ok(run);
    assert.equal(warningsNaming(run, "--forward-subagent-text").length, 0, "honoured: no warning");
    const child = run.lines().filter((l) => l.type === "assistant" && l.parent_tool_use_id !== null);
    assert.ok(
      child.some((l) =>
        l.message.content.some((b: Json) => b.type === "text" && b.text === "Child found the files.")
      ),
    );
  },
  "`--restricted`": async () => {
    const files = { "~/.claude/settings.json": '{"model":"haiku"}' };
    const run = await sent(["--restricted"], { files });
    assert.ok(!run.tools().includes("Bash") && run.tools().includes("Read"), run.tools().join());
    assert.equal(run.body().model, "claude-sonnet-5-5", "no settings files");
    assert.ok((await sent(["--restricted", "--tools", "Bash,Read"])).tools().includes("Bash"));
    ok(await probe(json("Say hi", "--restricted", "--dangerously-skip-permissions")), 2);
  },
  "`--await-initialize`, `--thinking`, `--max-thinking-tokens`, `--thinking-display`": async () => {
    const init = (await sdkInput()).lines().find((l) => l.type === "control_response")!;
    assert.equal(init.response.response.mcp_servers_applied, true);
    const sdk = await sdkInput();
    assert.ok(sdk.tools().includes("mcp__sdk__echo"), sdk.stderr);
    const model = ["--model", "claude-sonnet-4-5"];
    assert.deepEqual((await sent([...model, "--thinking", "disabled"])).body().thinking, {
      type: "disabled",
    });
    assert.deepEqual((await sent([...model, "--max-thinking-tokens", "5000"])).body().thinking, {
      type: "enabled",
      budget_tokens: 5000,
      display: "omitted",
    });
    assert.deepEqual((await sent(["--model", "opus", "--thinking-display", "summarized"])).body().thinking, {
      type: "adaptive",
      display: "summarized",
    });
  },
  "`--include-hook-events`": async () => {
    // Claude Code's hook lines (tests/fixtures/claude/hooks_events), only with the flag.
    const files = {
      ".claude/settings.json": JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo prompt context" }] }] },
      }),
    };
    const run = await probe(stream("Say hi", "--include-hook-events"), { files });
    ok(run);
    const hooks = run.lines().filter((l) => l.subtype === "hook_started" || l.subtype === "hook_response");
    assert.deepEqual(hooks.map((l) => [l.subtype, l.hook_name, l.hook_event]), [
      ["hook_started", "UserPromptSubmit", "UserPromptSubmit"],
      ["hook_response", "UserPromptSubmit", "UserPromptSubmit"],
    ]);
    assert.deepEqual(
      [hooks[1]!.output, hooks[1]!.stdout, hooks[1]!.stderr, hooks[1]!.exit_code, hooks[1]!.outcome],
      ["prompt context\n", "prompt context\n", "", 0, "success"],
    );
    assert.equal(hooks[0]!.hook_id, hooks[1]!.hook_id);
    // Claude Code prints the prompt's hook lines before system/init.
    assert.deepEqual(run.lines().slice(0, 3).map((l) => l.subtype), [
      "hook_started",
      "hook_response",
      "init",
    ]);
    const quiet = await probe(stream("Say hi"), { files });
    ok(quiet);
    assert.ok(
      !quiet.lines().some((l) => String(l.subtype).startsWith("hook_")),
      "no hook lines without the flag",
    );
  },
  "`--no-session-persistence`": async (row) => {
    await warnsAndRuns(row);
    const run = await sent(["--no-session-persistence"]);
    assert.ok(JSON.stringify([...Deno.readDirSync(run.storage)]).length > 2, "the transcript is kept");
  },
  "`--bg`, `--background`, `--cloud`, `--desktop`, `--environment`, `--file`, `--teleport`, `--resume-session-at`, `--resume-drops-turn`":
    async (row) => {
      for (const flag of row.names) {
        const run = await probe(json("Say hi", ...sweepCase(flag)));
        ok(run, 2);
        assert.match(run.stdout + run.stderr, new RegExp(flag), flag);
        assert.equal(run.requests.length, 0);
      }
    },
  "`-h`, `--help`, `-v`, `--version`": async () => {
    for (const flag of ["-h", "--help"]) assert.equal((await probe([flag])).stdout, MAIN_HELP);
    for (const flag of ["-v", "--version"]) {
      assert.match((await probe([flag])).stdout, new RegExp(VERSION.replaceAll(".", "\\.")));
    }
  },
};

/** Every flag of a "not yet" list: one warning line naming it, and the run goes on. */
const NOT_YET_LISTS = [
  "`--autocompact`, `--ax-screen-reader`, `--brief`, `--chrome`, `--no-chrome`, `--exclude-dynamic-system-prompt-sections`, `--ide`, `--plugin-dir`, `--plugin-url`, `--remote-control`, `--remote-control-session-name-prefix`, `--from-pr`, `--prompt-suggestions`, `--safe-mode`, `--system-prompt-snapshot`, `--tmux`",
  "`--task-budget`, `--session-mirror`, `--project-config-root`, `--plugin-dir-no-mcp`, `--managed-settings`, `--managed-settings-in-initialize`, `--initialize-fields`, `--channels`, `--sdk-url`",
];
for (const list of NOT_YET_LISTS) FLAGS[list] = warnsAndRuns;

const EXIT: Record<string, Check> = {
  "usage errors": async () => {
    const run = await probe(json("Say hi", "--max-turns", "many"));
    ok(run, 2);
    assert.equal(run.requests.length, 0);
    ok(await probe(["-p", "Say hi", "--no-such-flag"]), 2);
  },
  "errors in text mode": async () => {
    const run = await probe(["-p", "Say hi"], {
      answers: [fakeStatus(401, { message: "invalid x-api-key" })],
    });
    ok(run, 1);
    assert.match(run.stdout, /^Error: /, "on stdout when it is not a terminal");
    assert.match(run.stderr, /invalid x-api-key/);
  },
  "all work refused": async () => {
    const run = await refusedWrite();
    ok(run, 1);
    assert.deepEqual([run.result().is_error, run.result().error.code], [true, "permission_denied"]);
  },
};

const FIELDS: Record<string, Check> = {
  "`type`": async () => assert.equal((await plain()).result().type, "result"),
  "`subtype`": async () => {
    assert.equal((await plain()).result().subtype, "success");
    assert.equal((await failed()).result().subtype, "error_max_turns");
  },
  "`is_error`": async () => {
    assert.equal((await plain()).result().is_error, false);
    assert.equal((await failed()).result().is_error, true);
  },
  "`result`": async () => assert.equal((await plain()).result().result, "Hi."),
  "`errors`": async () => {
    const r = (await failed()).result();
    assert.deepEqual(r.errors, [r.result]);
  },
  "`session_id`": async () => {
    const run = await plain();
    const id = run.result().session_id as string;
    assert.ok(await exists(`${projectDir(run)}/${id}.jsonl`), "the transcript's name");
  },
  "`num_turns`": async () => {
    assert.equal((await plain()).result().num_turns, 1);
    assert.equal((await delegation()).result().num_turns, 2);
  },
  "`duration_ms`": async () => {
    const r = (await plain()).result();
    assert.ok(Number.isInteger(r.duration_ms) && r.duration_ms >= r.duration_api_ms);
  },
  "`duration_api_ms`": async () => {
    const r = (await plain()).result();
    assert.ok(Number.isInteger(r.duration_api_ms) && r.duration_api_ms >= 0);
  },
  "`total_cost_usd`": async () => {
    const r = (await plain()).result();
    const sum = Object.values(r.modelUsage as Json).reduce((s: number, m: Json) => s + m.costUSD, 0);
    assert.ok(r.total_cost_usd > 0);
    assert.equal(r.total_cost_usd, sum);
  },
  "`usage`": async () => {
    const u = (await plain()).result().usage;
    assert.deepEqual([u.input_tokens, u.output_tokens, u.cache_read_input_tokens], [10, 1, 0]);
  },
  "`modelUsage`": async () => {
    const m = (await plain()).result().modelUsage;
    assert.deepEqual(Object.keys(m), ["claude-opus-5-5"]);
    assert.deepEqual([m["claude-opus-5-5"].inputTokens, m["claude-opus-5-5"].outputTokens], [10, 1]);
  },
  "`permission_denials`": async () => {
    assert.deepEqual((await plain()).result().permission_denials, []);
    const denials = (await refusedWrite()).result().permission_denials;
    assert.deepEqual(denials.map((d: Json) => [d.tool_name, d.tool_input.file_path]), [[
      "Write",
      "made.txt",
    ]]);
  },
  "`stop_reason`": async () => assert.equal((await plain()).result().stop_reason, "end_turn"),
  "`terminal_reason`": async () => {
    assert.equal((await plain()).result().terminal_reason, "completed");
    assert.equal((await apiRefused()).result().terminal_reason, "api_error");
  },
  "`api_error_status`": async () => assert.equal((await apiRefused()).result().api_error_status, 400),
  "`api_error_type`": async () =>
    assert.equal((await apiRefused()).result().api_error_type, "invalid_request_error"),
  "`uuid`": async () => assert.match((await plain()).result().uuid, UUID),
  "`structured_output`": async () =>
    assert.deepEqual((await structured()).result().structured_output, { n: 4 }),
  "`subagent_stats`": async () => {
    const r = (await delegation()).result();
    assert.equal(r.subagent_stats, undefined);
    assert.deepEqual([r.subagents.spawned, r.subagents.completed], [1, 1]);
  },
  "`error`": async () => {
    assert.equal((await plain()).result().error, undefined);
    assert.equal((await failed()).result().error.code, "max_turns_exceeded");
  },
  "`agent_id`": async () => {
    const run = await probe(["run", "general-purpose", "Say hi", "--output-format", "json"]);
    ok(run);
    assert.match(run.result().agent_id, /^agent-/);
  },
  "`tool_calls`": async () => {
    assert.equal((await plain()).result().tool_calls, 0);
    assert.equal((await failed()).result().tool_calls, 1);
  },
  "`cost_unknown`": async () => {
    assert.equal((await plain()).result().cost_unknown, undefined);
    assert.equal((await sent(["--model", "my-gateway-model"])).result().cost_unknown, true);
  },
  "`fast_mode_state`, `ttft_ms`, `result_index`, `origin` …": async (row) => {
    const r = (await plain()).result();
    for (const name of row.names) assert.equal(r[name], undefined, name);
  },
};

/** The stream-json lines of a run, by `type` or `system/<subtype>`. */
/** A session reading parts until it compacts (tests/support/claude_compaction_cases.ts), in stream-json. */
function compacting(c: CompactionCase, env: Record<string, string> = {}): Promise<ProbeRun> {
  return probe(stream("Read the parts."), {
    files: compactionFiles(c),
    answers: compactionHandler(c, "."),
    env,
  });
}

/** Its compact_boundary lines. */
function boundaries(run: ProbeRun): Json[] {
  return run.lines().filter((l) => l.type === "system" && l.subtype === "compact_boundary");
}

/** Where request `i`'s cache_control marks are: system blocks, tools, [message, block] from the end. */
function breakpoints(run: ProbeRun, i = 0): { system: number; tools: number; tail: boolean } {
  const body = run.body(i);
  const marked = (b: Json) => b.cache_control !== undefined;
  const last = body.messages.at(-1);
  return {
    system: (body.system ?? []).filter(marked).length,
    tools: (body.tools ?? []).filter(marked).length,
    tail: marked(last.content.at(-1)),
  };
}

const tooLong = once(() => compacting({ trigger: "too long", parts: 5 }));

async function kinds(run: () => Promise<ProbeRun>): Promise<Map<string, Json[]>> {
  const out = new Map<string, Json[]>();
  for (const l of (await run()).lines()) {
    const kind = l.type === "system" ? `system/${l.subtype}` : l.type;
    out.set(kind, [...out.get(kind) ?? [], l]);
  }
  return out;
}

const STREAM: Record<string, Check> = {
  "`system/init`": async () => {
    const [init] = (await kinds(delegation)).get("system/init")!;
    assert.ok(init!.tools.includes("Task") && init!.agents.includes("general-purpose"));
    assert.equal(init!.permissionMode, "default");
    assert.equal(init!.model, "claude-sonnet-5-5");
  },
  "`assistant`": async () => {
    const lines = (await kinds(delegation)).get("assistant")!;
    assert.ok(lines.every((l) => l.message.role === "assistant" && l.message.content.length === 1));
  },
  "`user`": async () => {
    const lines = (await kinds(delegation)).get("user")!;
    assert.ok(lines.some((l) => l.message.content[0].type === "tool_result"));
  },
  "`parent_tool_use_id`": async () => {
    const lines = (await delegation()).lines();
    const task = lines.find((l) => l.type === "assistant" && l.message.content[0].name === "Task")!;
    const id = task.message.content[0].id;
    assert.ok(lines.some((l) => l.type === "assistant" && l.parent_tool_use_id === id));
  },
  "`system/permission_denied`": async () => {
    const run = await probe(stream("Make a file"), { answers: calling([write]) });
    const [line] = (await kinds(() => Promise.resolve(run))).get("system/permission_denied")!;
    assert.equal(line!.tool_name, "Write");
  },
  "`system/task_started`": async () => {
    const [line] = (await kinds(delegation)).get("system/task_started")!;
    assert.deepEqual([line!.description, line!.task_type], ["Look around", "local_agent"]);
  },
  "`system/task_progress`": async () => {
    const [line] = (await kinds(delegation)).get("system/task_progress")!;
    assert.equal(line!.last_tool_name, "Glob");
  },
  "`system/task_updated`": async () => {
    const [line] = (await kinds(delegation)).get("system/task_updated")!;
    assert.equal(line!.patch.status, "completed");
  },
  "`system/task_notification`": async () => {
    const [line] = (await kinds(delegation)).get("system/task_notification")!;
    assert.deepEqual([line!.status, line!.summary], ["completed", "Child found the files."]);
  },
  "`system/background_tasks_changed`": async () => {
    assert.equal(
      (await kinds(delegation)).get("system/background_tasks_changed"),
      undefined,
      "foreground: none",
    );
    const lines = (await kinds(background)).get("system/background_tasks_changed")!;
    assert.ok(lines.length >= 2, "started, then finished");
  },
  "`system/api_retry`": async () => {
    const run = await probe(stream("Say hi"), {
      answers: [
        fakeStatus(529, { message: "Overloaded", headers: { "retry-after": "0" } }),
        fakeTurn({ text: "Hi." }),
      ],
    });
    ok(run);
    const [line] = (await kinds(() => Promise.resolve(run))).get("system/api_retry")!;
    assert.deepEqual([typeof line!.attempt, typeof line!.retry_delay_ms], ["number", "number"]);
    assert.match(line!.error, /529|overloaded/i);
  },
  "`system/session_state_changed`": async () => {
    const states = (await kinds(sdkInput)).get("system/session_state_changed")!.map((l) => l.state);
    assert.deepEqual(states.slice(0, 2), ["running", "idle"]);
  },
  "`system/compact_boundary`": async () => {
    const run = await tooLong();
    ok(run);
    const [line] = boundaries(run);
    assert.equal(line!.compact_metadata.trigger, "auto");
    assert.deepEqual(
      Object.keys(line!.compact_metadata).sort(),
      ["duration_ms", "post_tokens", "pre_tokens", "trigger"],
    );
  },
  "`result`": async () => {
    assert.equal((await kinds(delegation)).get("result")!.length, 1, "once per run");
    assert.equal((await kinds(sdkInput)).get("result")!.length, 2, "once per turn with stream-json input");
  },
};

const SETTINGS: Record<string, Check> = {
  "`permissions.allow`": async () => {
    const run = await probe(json("Echo"), {
      files: { ".claude/settings.json": '{"permissions":{"allow":["Bash(echo allowed)"]}}' },
      answers: calling([bash("echo allowed")], { text: "{{result}}" }),
    });
    ok(run);
    assert.match(run.result().result, /^allowed/);
  },
  "`permissions.deny`": async () => {
    const run = await probe(json("Read it", "--dangerously-skip-permissions"), {
      trusted: false,
      files: { "~/.claude/settings.json": '{"permissions":{"deny":["Read"]}}', "a.txt": "secret text" },
      answers: calling([read("a.txt")], { text: "{{result}}" }),
    });
    assert.doesNotMatch(run.said(1), /secret text/, "denied even in an untrusted folder and bypass mode");
  },
  "`permissions.ask`": async () => {
    const run = await probe(json("Echo"), {
      files: { ".claude/settings.json": '{"permissions":{"allow":["Bash"],"ask":["Bash(echo asked)"]}}' },
      answers: calling([bash("echo asked")], { text: "{{result}}" }),
    });
    assert.ok(run.toolResults(1)[0]!.isError, "print mode has no one to ask: refused");
  },
  "`permissions.defaultMode`": async () => {
    const run = await probe(json("Make a file"), {
      files: { ".claude/settings.json": '{"permissions":{"defaultMode":"acceptEdits"}}' },
      answers: calling([write]),
    });
    ok(run);
    assert.ok(await exists(`${run.ws}/made.txt`));
  },
  "`model`": async () => {
    assert.equal(
      (await sent([], { files: { ".claude/settings.json": '{"model":"haiku"}' } })).body().model,
      "claude-haiku-5-5",
    );
  },
  "`env`": async () => {
    const run = await probe(json("Echo", "--allowedTools", "Bash"), {
      files: { ".claude/settings.json": '{"env":{"TEAM":"blade"}}' },
      answers: calling([bash("echo team=$TEAM")], { text: "{{result}}" }),
    });
    assert.match(run.result().result, /team=blade/);
  },
  "`disabledMcpjsonServers`": async () => {
    const files = {
      ".mcp.json": mcpServers("project"),
      ".claude/settings.local.json": '{"disabledMcpjsonServers":["project"]}',
    };
    assert.ok(!(await sent([], { files })).tools().some((t) => t.startsWith("mcp__project__")));
  },
  "`outputStyle`": async () => {
    assert.match(
      (await sent([], { files: { ".claude/settings.json": '{"outputStyle":"Explanatory"}' } })).system(),
      /Explanatory/,
    );
  },
  "`apiKeyHelper`": async () => {
    const run = await sent([], {
      files: { "~/.claude/settings.json": '{"apiKeyHelper":"echo sk-ant-from-helper"}' },
      env: { ANTHROPIC_API_KEY: undefined },
    });
    assert.equal(run.requests[0]!.headers["x-api-key"], "sk-ant-from-helper");
  },
  "`permissions.additionalDirectories`": async () => {
    const first = await probe(json("Say hi"));
    await Deno.mkdir(`${first.root}/extra`);
    await Deno.writeTextFile(`${first.root}/extra/notes.txt`, "extra notes");
    await Deno.writeTextFile(`${first.home}/.claude.json`, "{}");
    await Deno.mkdir(`${first.ws}/.claude`, { recursive: true });
    await Deno.writeTextFile(
      `${first.ws}/.claude/settings.json`,
      JSON.stringify({ permissions: { additionalDirectories: [`${first.root}/extra`] } }),
    );
    const run = await probe(json("Read it"), {
      after: first,
      answers: calling([read(`${first.root}/extra/notes.txt`)], { text: "{{result}}" }),
    });
    assert.match(run.result().result, /extra notes/);
  },
  "`availableModels`": async () => {
    const run = await probe(json("Delegate"), {
      files: { ".claude/settings.json": '{"availableModels":["sonnet"]}' },
      env: { CLAUDE_CODE_SUBAGENT_MODEL: "haiku" },
      answers: delegating(),
    });
    ok(run);
    assert.match(run.toolResults(1)[0]!.content, /not in the availableModels setting \(sonnet\)/);
    // A child's request opens with its task (the parent's later requests carry it in the Agent call).
    const opens = (r: ProbeRun["requests"][number]) =>
      JSON.stringify(r.body.messages[0]).includes("CHILD TASK");
    assert.ok(!run.requests.some(opens), "no child ran");
  },
  "`hooks`": async () => {
    // A project's PreToolUse hook refuses a call by exit 2 with Claude Code's text (docs/guides/hooks.md);
    // the next call passes it (a run all of whose work was refused exits 1: docs/reference/errors.md).
    const HOOK = "if grep -q made.txt; then echo 'Not that' >&2; exit 2; fi";
    const run = await probe(json("Run it", "--allowed-tools", "Bash"), {
      files: {
        ".claude/settings.json": JSON.stringify({
          hooks: {
            PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: HOOK }] }],
            PostToolUse: [{ hooks: [{ type: "command", command: 'cat > "$CLAUDE_PROJECT_DIR/post.json"' }] }],
            UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo house rules" }] }],
          },
        }),
      },
      answers: calling([bash("echo x > made.txt"), bash("echo fine")]),
    });
    ok(run);
    assert.equal(run.toolResults(1)[0]!.content, `PreToolUse:Bash hook error: [${HOOK}]: Not that\n`);
    assert.equal(run.toolResults(2)[1]!.content, "fine");
    assert.equal(await exists(`${run.ws}/made.txt`), false);
    // PostToolUse reads Claude Code's per-tool object (tests/fixtures/claude/hooks_tool_response).
    assert.deepEqual(JSON.parse(await Deno.readTextFile(`${run.ws}/post.json`)).tool_response, {
      stdout: "fine",
      stderr: "",
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
    });
    // The prompt hook's plain stdout reaches the model in Claude Code's words (every event: the goldens
    // of tests/claude_hooks_golden_test.ts).
    assert.match(run.said(0), /UserPromptSubmit hook success: house rules/);
    assert.deepEqual(
      run.result().permission_denials.map((d: { tool_input: { command: string } }) => d.tool_input.command),
      ["echo x > made.txt"],
    );
  },
  "`statusLine`, other keys": async () => {
    const run = await sent([], {
      files: { ".claude/settings.json": '{"statusLine":{"type":"command","command":"x"}}' },
    });
    assert.match(
      run.stderr,
      /^blade: warning: settings: \S+settings\.json: statusLine is not supported by Blade; ignored$/m,
    );
  },
  "precedence": async () => {
    const files = {
      ".claude/settings.json": '{"model":"haiku"}',
      ".blade/settings.json": '{"model":"opus"}',
    };
    assert.equal((await sent([], { files })).body().model, "claude-opus-5-5", "Blade's own file wins");
    assert.equal(
      (await sent([], { files, trusted: false })).body().model,
      "claude-sonnet-5-5",
      "project files only when trusted",
    );
  },
};

/** Long sessions: prompt caching and compaction, as Claude Code does them (docs/reference/limits.md). */
const FEATURES: Record<string, Check> = {
  "prompt caching": async () => {
    const run = await sent([]);
    assert.deepEqual(breakpoints(run), { system: 2, tools: 0, tail: true });
  },
  "large tool results": async () => {
    const run = await probe(json("Print", "--allowedTools", "Bash"), {
      answers: calling([bash("printf 'y%.0s' $(seq 1 40000)")], { text: "{{result}}" }),
    });
    const out = run.result().result as string;
    assert.match(out, /^<persisted-output>\nOutput too large \(39\.1KB\)\. Full output saved to: (\S+)\n/);
    const path = /saved to: (\S+)\n/.exec(out)![1]!;
    assert.equal((await Deno.readTextFile(path)).length, 40_000, "the whole output is in the file");
  },
  compaction: async () => {
    const run = await tooLong();
    ok(run);
    assert.equal(boundaries(run).length, 1);
    assert.equal(run.result().result, "Read all 5 parts.");
    const after = run.requests.findIndex((r) =>
      JSON.stringify(r.body.messages[0]).includes(CONTINUATION_OPENING)
    );
    assert.ok(after > 0, "the conversation continues from the summary");
  },
};

/** DISABLE_PROMPT_CACHING_<FAMILY> for a model of that family: no breakpoint; another family's keeps them. */
async function noCacheFor(family: string, model: string, other: string): Promise<void> {
  const env = { [`DISABLE_PROMPT_CACHING_${family.toUpperCase()}`]: "1" };
  assert.deepEqual(breakpoints(await sent(["--model", model], { env })), {
    system: 0,
    tools: 0,
    tail: false,
  });
  assert.deepEqual(breakpoints(await sent(["--model", other], { env })), { system: 2, tools: 0, tail: true });
}

const VARIABLES: Record<string, Check> = {
  "`DISABLE_PROMPT_CACHING`": async () => {
    const run = await sent([], { env: { DISABLE_PROMPT_CACHING: "1" } });
    assert.deepEqual(breakpoints(run), { system: 0, tools: 0, tail: false });
  },
  "`DISABLE_PROMPT_CACHING_HAIKU`": () => noCacheFor("haiku", "claude-haiku-4-5", "claude-sonnet-4-5"),
  "`DISABLE_PROMPT_CACHING_SONNET`": () => noCacheFor("sonnet", "claude-sonnet-4-5", "claude-haiku-4-5"),
  "`DISABLE_PROMPT_CACHING_OPUS`": () => noCacheFor("opus", "claude-opus-4-1", "claude-sonnet-4-5"),
  "`CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`": async () => {
    // 9,010 tokens: far below a 200,000-token window's threshold, above 4% of it.
    const big = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "200000" };
    const run = await compacting({ trigger: "full", parts: 4 }, {
      ...big,
      CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "4",
    });
    ok(run);
    assert.equal(boundaries(run).length, 1);
    assert.equal(
      boundaries(await compacting({ trigger: "full", parts: 4 }, big)).length,
      0,
      "not without it",
    );
  },
  "`CLAUDE_CODE_AUTO_COMPACT_WINDOW`": async () => {
    const run = await compacting({ trigger: "full", parts: 4 }, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "42000" });
    ok(run);
    assert.equal(boundaries(run).length, 1);
  },
  "`DISABLE_AUTO_COMPACT`": async () => {
    const env = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "42000", DISABLE_AUTO_COMPACT: "1" };
    const run = await compacting({ trigger: "full", parts: 4 }, env);
    ok(run);
    assert.equal(boundaries(run).length, 0);
    const reactive = await compacting({ trigger: "too long", parts: 4 }, { DISABLE_AUTO_COMPACT: "1" });
    ok(reactive);
    assert.equal(boundaries(reactive).length, 1, '"prompt is too long" still compacts');
  },
  "`DISABLE_COMPACT`": async () => {
    const run = await compacting({ trigger: "too long", parts: 4 }, { DISABLE_COMPACT: "1" });
    ok(run, 1);
    assert.equal(boundaries(run).length, 0);
    assert.match(run.result().result, /prompt is too long/);
  },
  "`ANTHROPIC_API_KEY`": async () =>
    assert.equal((await plain()).requests[0]!.headers["x-api-key"], "sk-ant-probe-key"),
  "`ANTHROPIC_BASE_URL`": async () => assert.equal((await plain()).requests[0]!.path, "/v1/messages"),
  "`ANTHROPIC_AUTH_TOKEN`": async () => {
    const run = await sent([], { env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: "tok-1" } });
    assert.equal(run.requests[0]!.headers["authorization"], "Bearer tok-1");
  },
  "`ANTHROPIC_MODEL`": async () =>
    assert.equal((await sent([], { env: { ANTHROPIC_MODEL: "haiku" } })).body().model, "claude-haiku-5-5"),
  "`ANTHROPIC_DEFAULT_SONNET_MODEL`": async () => {
    assert.equal(
      (await sent(["--model", "sonnet"], { env: { ANTHROPIC_DEFAULT_SONNET_MODEL: "my-sonnet" } })).body()
        .model,
      "my-sonnet",
    );
  },
  "`ANTHROPIC_DEFAULT_OPUS_MODEL`": async () => {
    assert.equal(
      (await sent(["--model", "opus"], { env: { ANTHROPIC_DEFAULT_OPUS_MODEL: "my-opus" } })).body().model,
      "my-opus",
    );
  },
  "`ANTHROPIC_DEFAULT_HAIKU_MODEL`": async () => {
    assert.equal(
      (await sent(["--model", "haiku"], { env: { ANTHROPIC_DEFAULT_HAIKU_MODEL: "my-haiku" } })).body().model,
      "my-haiku",
    );
  },
  "`CLAUDE_CODE_SUBAGENT_MODEL`": async () => {
    const run = await probe(json("Delegate"), {
      answers: delegating(),
      env: { CLAUDE_CODE_SUBAGENT_MODEL: "haiku" },
    });
    ok(run);
    const models = run.requests.map((r) => (r.body as unknown as Json).model);
    assert.deepEqual(models, [
      "claude-sonnet-5-5",
      "claude-haiku-5-5",
      "claude-haiku-5-5",
      "claude-sonnet-5-5",
    ]);
  },
  "`ANTHROPIC_SMALL_FAST_MODEL`": async () => {
    await using page = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () =>
        new Response("<html><body><p>The fact is 42.</p></body></html>", {
          headers: { "content-type": "text/html" },
        }),
    );
    const url = `http://127.0.0.1:${page.addr.port}/fact`;
    const fetchIt = { name: "WebFetch", input: { url, prompt: "What is the fact?" } };
    const models = async (env: Record<string, string>) => {
      const run = await probe(json("Fetch", "--allowed-tools", "WebFetch(domain:127.0.0.1)"), {
        env,
        answers: (request, i) =>
          JSON.stringify(request.body).includes("The fact is 42.") && i > 0 &&
            (request.body as unknown as Json).messages.length === 1
            ? fakeTurn({ text: "It is 42." })
            : calling([fetchIt])(request, i),
      });
      ok(run);
      return run.requests.map((r) => (r.body as unknown as Json).model);
    };
    assert.deepEqual(await models({}), ["claude-sonnet-5-5", "claude-haiku-5-5", "claude-sonnet-5-5"]);
    const small = await models({ ANTHROPIC_SMALL_FAST_MODEL: "my-small" });
    assert.deepEqual(small, ["claude-sonnet-5-5", "my-small", "claude-sonnet-5-5"]);
  },
  "`CLAUDE_CODE_EFFORT_LEVEL`": async () => {
    assert.deepEqual(
      (await sent(["--model", "opus"], { env: { CLAUDE_CODE_EFFORT_LEVEL: "low" } })).body().output_config,
      { effort: "low" },
    );
  },
  "`ANTHROPIC_CUSTOM_HEADERS`": async () => {
    const run = await sent([], { env: { ANTHROPIC_CUSTOM_HEADERS: "X-Team: blade\nX-Run: 7" } });
    assert.deepEqual([run.requests[0]!.headers["x-team"], run.requests[0]!.headers["x-run"]], ["blade", "7"]);
  },
  "`CLAUDE_CODE_MAX_OUTPUT_TOKENS`": async () => {
    assert.equal(
      (await sent(["--model", "opus"], { env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: "4000" } })).body().max_tokens,
      4000,
    );
  },
  "`MAX_THINKING_TOKENS`": async () => {
    const run = await sent(["--model", "claude-sonnet-4-5"], { env: { MAX_THINKING_TOKENS: "5000" } });
    assert.deepEqual(run.body().thinking, { type: "enabled", budget_tokens: 5000, display: "omitted" });
  },
  "`CLAUDE_CODE_MAX_RETRIES`": async () => {
    const failure = () => fakeStatus(500, { message: "down", headers: { "retry-after": "0" } });
    const run = await probe(json("Say hi"), {
      answers: [failure(), failure(), failure()],
      env: { CLAUDE_CODE_MAX_RETRIES: "1" },
    });
    ok(run, 1);
    assert.equal(run.requests.length, 2, "one attempt and one retry");
  },
  "`API_TIMEOUT_MS`": async () => {
    const run = await probe(json("Say hi"), {
      answers: [{ ...fakeTurn({ text: "late" }), delayMs: 5_000 }],
      env: { API_TIMEOUT_MS: "300", CLAUDE_CODE_MAX_RETRIES: "0" },
    });
    ok(run, 1);
    assert.match(run.result().error.message, /time|Timed out|timeout/i);
  },
  "`BASH_DEFAULT_TIMEOUT_MS`": async () => {
    const run = await probe(json("Wait", "--allowedTools", "Bash"), {
      answers: calling([bash("sleep 5")], { text: "{{result}}" }),
      env: { BASH_DEFAULT_TIMEOUT_MS: "300" },
    });
    assert.match(run.result().result, /timed out|timeout/i);
  },
  "`BASH_MAX_TIMEOUT_MS`": async () => {
    const run = await probe(json("Wait", "--allowedTools", "Bash"), {
      answers: calling([{ name: "Bash", input: { command: "sleep 5", timeout: 600_000 } }], {
        text: "{{result}}",
      }),
      env: { BASH_MAX_TIMEOUT_MS: "300" },
    });
    assert.match(run.result().result, /timed out|timeout/i);
  },
  "`BASH_MAX_OUTPUT_LENGTH`": async () => {
    const run = await probe(json("Print", "--allowedTools", "Bash"), {
      answers: calling([bash("printf 'x%.0s' $(seq 1 5000)")], { text: "{{result}}" }),
      env: { BASH_MAX_OUTPUT_LENGTH: "1000" },
    });
    const out = run.result().result as string;
    // Past the limit: saved to a file, the model gets its size, path and a 2 KB preview (limits.md).
    assert.match(
      out,
      /^<persisted-output>\nOutput too large \(4\.9KB\)\. Full output saved to: \S+\/tool-results\//,
    );
    assert.ok(/x{2000}/.test(out) && !/x{2001}/.test(out), "a 2,000-character preview");
  },
  "`MAX_STRUCTURED_OUTPUT_RETRIES`": async () => {
    const schema = JSON.stringify({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
    const run = await probe(json("Count", "--json-schema", schema), {
      answers: () => fakeTurn({ text: "no object" }),
      env: { MAX_STRUCTURED_OUTPUT_RETRIES: "2" },
    });
    ok(run, 1);
    assert.equal(run.result().subtype, "error_max_structured_output_retries");
    assert.equal(run.requests.length, 2);
  },
  "`CLAUDE_CONFIG_DIR`": async () => {
    const run = await sent([], {
      files: { "~/cc/settings.json": '{"model":"haiku"}' },
      env: { CLAUDE_CONFIG_DIR: "" },
    });
    assert.equal(run.body().model, "claude-sonnet-5-5");
    const dir = await probe(json("Say hi"), { after: run, env: { CLAUDE_CONFIG_DIR: `${run.home}/cc` } });
    assert.equal(dir.body().model, "claude-haiku-5-5");
  },
  "`CLAUDE_CODE_API_KEY_HELPER_TTL_MS`": async () => {
    const files = {
      "~/.claude/settings.json": JSON.stringify({ apiKeyHelper: "echo x >> calls; echo sk-ant-helper" }),
    };
    const runs = async (env: Record<string, string>) => {
      const run = await probe(json("Echo", "--allowedTools", "Bash(echo hi)"), {
        files,
        answers: calling([bash("echo hi")]),
        env: { ...env, ANTHROPIC_API_KEY: undefined },
      });
      ok(run);
      return (await Deno.readTextFile(`${run.ws}/calls`)).trim().split("\n").length;
    };
    assert.equal(await runs({}), 1, "a key is used for 5 minutes: one run of the helper for both requests");
    assert.ok(await runs({ CLAUDE_CODE_API_KEY_HELPER_TTL_MS: "1" }) >= 2, "a key used for 1 ms: run again");
  },
  "`BLADE_TRUST_WORKSPACE`": async () => {
    const files = { ".claude/settings.json": '{"model":"haiku"}' };
    assert.equal((await sent([], { files })).body().model, "claude-haiku-5-5");
    assert.equal((await sent([], { files, trusted: false })).body().model, "claude-sonnet-5-5");
  },
};

const CONTEXT: Record<string, Check> = {
  "`CLAUDE.md`, `CLAUDE.local.md`, `~/.claude/CLAUDE.md`, managed": async () => {
    const files = {
      "CLAUDE.md": "Project rule.",
      "CLAUDE.local.md": "Local rule.",
      "~/.claude/CLAUDE.md": "User rule.",
    };
    const said = (await sent([], { files })).said();
    assert.match(said, /User rule\.[\s\S]*Project rule\.[\s\S]*Local rule\./);
    assert.doesNotMatch((await sent([], { files, trusted: false })).said(), /Project rule\./);
  },
  "`@path` imports": async () => {
    const said = (await sent([], { files: { "CLAUDE.md": "See @notes.md", "notes.md": "Imported note." } }))
      .said();
    assert.match(said, /Imported note\./);
  },
  "`.claude/rules/`": async () => {
    assert.match(
      (await sent([], { files: { ".claude/rules/style.md": "Rule from a rules file." } })).said(),
      /Rule from a rules file\./,
    );
  },
  "`AGENTS.md`": async () => {
    assert.match(
      (await sent([], { files: { "AGENTS.md": "Agents file rule." } })).said(),
      /Agents file rule\./,
    );
    const both = await sent([], { files: { "AGENTS.md": "Agents file rule.", "CLAUDE.md": "Claude rule." } });
    assert.doesNotMatch(both.said(), /Agents file rule\./);
  },
  "nested `CLAUDE.md`": async () => {
    const run = await probe(json("Read it"), {
      files: { "sub/CLAUDE.md": "Nested rule.", "sub/a.txt": "a" },
      answers: calling([read("sub/a.txt")]),
    });
    ok(run);
    assert.doesNotMatch(run.said(0), /Nested rule\./);
    assert.match(run.said(1), /Nested rule\./);
  },
  "`.claude/commands/`": async () => {
    const run = await probe(json("/greet Bob"), {
      files: { ".claude/commands/greet.md": "Say hello to $ARGUMENTS." },
    });
    ok(run);
    assert.match(run.said(), /Say hello to Bob\./);
  },
  "command `allowed-tools`": async () => {
    const run = await probe(json("/look"), {
      files: { ".claude/commands/look.md": "---\nallowed-tools: Read\n---\nLook around." },
      answers: calling([bash("echo hi")]),
    });
    assert.ok(run.toolResults(1)[0]!.isError, "outside the command's tools: refused");
  },
  "refused `!`command``": async () => {
    const run = await probe(json("/check"), {
      files: { ".claude/commands/check.md": "State: !`touch pwned`" },
    });
    ok(run, 1);
    assert.equal(run.result().error.code, "command_refused");
    assert.equal(run.requests.length, 0);
  },
  "unknown `/name`": async () => {
    const run = await sent([], {});
    const typed = await probe(json("/nosuch with args"), { after: run });
    ok(typed);
    assert.match(typed.said(), /\/nosuch with args/);
  },
  "`.claude/skills/`": async () => {
    const files = {
      ".claude/skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets people\n---\nSay hello.",
    };
    assert.match((await sent([], { files })).said(), /- greet: Greets people/);
  },
  "`Skill` tool": async () => {
    const run = await probe(json("Use it"), {
      files: {
        ".claude/skills/greet/SKILL.md":
          "---\nname: greet\ndescription: Greets people\n---\nSay hello warmly.",
      },
      answers: calling([{ name: "Skill", input: { skill: "greet" } }]),
    });
    ok(run);
    assert.ok(run.tools().includes("Skill"));
    assert.match(run.said(1), /Say hello warmly\./);
  },
  "agent `skills:`": async () => {
    const run = await probe(json("Delegate"), {
      files: {
        ".claude/skills/greet/SKILL.md":
          "---\nname: greet\ndescription: Greets people\n---\nSay hello warmly.",
        ".claude/agents/general-purpose.md":
          "---\nname: general-purpose\ndescription: Does things\nskills: greet\n---\nYou do things.",
      },
      answers: delegating(),
    });
    ok(run);
    const child = run.requests.findIndex((r) => JSON.stringify(r.body).includes("CHILD TASK"));
    assert.match(run.said(child), /Say hello warmly\./);
  },
  "agent `effort:`, Agent's `effort`": async () => {
    const agent = "---\nname: general-purpose\ndescription: Does things\neffort: low\n---\nYou do things.";
    const childEffort = (run: ProbeRun) =>
      run.body(run.requests.findIndex((r) => JSON.stringify(r.body.messages[0]).includes("CHILD TASK")))
        .output_config?.effort;
    const fromFile = await probe(json("Delegate", "--model", "opus"), {
      files: { ".claude/agents/general-purpose.md": agent },
      answers: delegating(),
    });
    ok(fromFile);
    assert.deepEqual([fromFile.body(0).output_config.effort, childEffort(fromFile)], ["medium", "low"]);
  },
  "`.claude/output-styles/`": async () => {
    const files = {
      ".claude/output-styles/pirate.md": "---\nname: Pirate\ndescription: Arr\n---\nTalk like a pirate.",
    };
    assert.match((await sent(["--output-style", "Pirate"], { files })).system(), /Talk like a pirate\./);
  },
};

/** Every row's check, by kind and then by the name cell as written. */
export const CHECKS: Record<string, Record<string, Check>> = {
  flag: FLAGS,
  exit: EXIT,
  field: FIELDS,
  stream: STREAM,
  setting: SETTINGS,
  variable: VARIABLES,
  context: CONTEXT,
  feature: FEATURES,
};
