// Claude Code's settings files through Blade: each row writes one settings key and shows its effect on
// the requests the fake Anthropic server receives (the model asked for, or the tool result the model
// got back). Project files count only in a trusted folder, except permissions.deny.

import assert from "node:assert/strict";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { type BladeResult, type BladeSandbox, bladeSandbox } from "./support/blade.ts";
import { type AnthropicRequest, lastToolResults } from "./support/claude_conversations.ts";

type Req = AnthropicRequest;

interface Row {
  name: string;
  files: (s: BladeSandbox) => Record<string, unknown>;
  flags?: string[];
  trusted: boolean;
  turns: (s: BladeSandbox) => ReturnType<typeof fakeTurn>[];
  check: (requests: Req[], run: BladeResult, s: BladeSandbox) => Promise<void> | void;
}

const edit = (s: BladeSandbox) =>
  fakeTurn({
    toolCalls: [{
      name: "Edit",
      input: { file_path: `${s.workspace}/a.txt`, old_string: "one", new_string: "two" },
    }],
  });
const done = () => fakeTurn({ text: "done" });
const fileIs = async (s: BladeSandbox, text: string) =>
  assert.equal(await Deno.readTextFile(`${s.workspace}/a.txt`), text);

const ROWS: Row[] = [
  {
    name: "~/.claude/settings.json model",
    files: (s) => ({ [`${s.home}/.claude/settings.json`]: { model: "claude-haiku-4-5" } }),
    trusted: false,
    turns: () => [done()],
    check: ([r]) => assert.equal(r!.body.model, "claude-haiku-4-5"),
  },
  {
    name: "Blade's model wins over .claude's",
    files: (s) => ({
      [`${s.workspace}/.claude/settings.json`]: { model: "claude-haiku-4-5" },
      [`${s.workspace}/.blade/settings.json`]: { model: "claude-opus-4-5" },
    }),
    trusted: true,
    turns: () => [done()],
    check: ([r]) => assert.equal(r!.body.model, "claude-opus-4-5"),
  },
  {
    name: "--settings JSON model (a layer for this run)",
    files: (s) => ({ [`${s.workspace}/.blade/settings.json`]: { model: "claude-opus-4-5" } }),
    flags: ["--settings", '{"model":"claude-haiku-4-5"}'],
    trusted: true,
    turns: () => [done()],
    check: ([r]) => assert.equal(r!.body.model, "claude-haiku-4-5"),
  },
  {
    name: ".claude/settings.json permissions.allow (trusted)",
    files: (s) => ({ [`${s.workspace}/.claude/settings.json`]: { permissions: { allow: ["Edit"] } } }),
    trusted: true,
    turns: (s) => [edit(s), done()],
    check: async (_rs, _run, s) => await fileIs(s, "two\n"),
  },
  {
    name: ".claude/settings.json permissions.allow is ignored in an untrusted folder",
    files: (s) => ({ [`${s.workspace}/.claude/settings.json`]: { permissions: { allow: ["Edit"] } } }),
    trusted: false,
    turns: (s) => [edit(s), done()],
    check: async (rs, _run, s) => {
      await fileIs(s, "one\n");
      assert.match(lastToolResults(rs[1]!), /trust|denied|refused/i);
    },
  },
  {
    name: ".claude/settings.local.json permissions.deny applies even untrusted, and is in permission_denials",
    files: (s) => ({
      [`${s.workspace}/.claude/settings.local.json`]: { permissions: { deny: ["Read(a.txt)"] } },
    }),
    trusted: false,
    turns: (
      s,
    ) => [fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: `${s.workspace}/a.txt` } }] }), done()],
    check: (rs, run) => {
      assert.doesNotMatch(lastToolResults(rs[1]!), /one/);
      const denials = JSON.parse(run.stdout).permission_denials;
      assert.deepEqual(denials.map((d: { tool_name: string }) => d.tool_name), ["Read"]);
    },
  },
  {
    name: "permissions.defaultMode acceptEdits",
    files: (s) => ({ [`${s.home}/.claude/settings.json`]: { permissions: { defaultMode: "acceptEdits" } } }),
    trusted: true,
    turns: (s) => [edit(s), done()],
    check: async (_rs, _run, s) => await fileIs(s, "two\n"),
  },
  {
    name: "permissions.ask: no one to ask in print mode, so the call is refused",
    files: (s) => ({
      [`${s.workspace}/.claude/settings.json`]: { permissions: { allow: ["Edit"], ask: ["Edit(a.txt)"] } },
    }),
    trusted: true,
    turns: (s) => [edit(s), done()],
    check: async (_rs, _run, s) => await fileIs(s, "one\n"),
  },
  {
    name: "env reaches the session's commands, not Blade's process",
    files: (s) => ({
      [`${s.workspace}/.claude/settings.json`]: { env: { BLADE_SETTINGS_PROBE: "from-settings" } },
    }),
    flags: ["--permission-mode", "bypassPermissions"],
    trusted: true,
    turns: () => [
      fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo probe=$BLADE_SETTINGS_PROBE" } }] }),
      done(),
    ],
    check: (rs) => assert.match(lastToolResults(rs[1]!), /probe=from-settings/),
  },
  {
    name: "unknown Claude keys are ignored, never config_invalid (also in .blade/settings.json)",
    files: (s) => ({
      [`${s.workspace}/.claude/settings.json`]: {
        hooks: {},
        statusLine: { type: "command" },
        permissions: { additionalDirectories: [] },
      },
      [`${s.workspace}/.blade/settings.json`]: { permissions: { allow: ["Edit"] }, env: {} },
    }),
    trusted: true,
    turns: (s) => [edit(s), done()],
    check: async (_rs, run, s) => {
      assert.equal(run.code, 0, run.stdout);
      await fileIs(s, "two\n");
    },
  },
];

for (const row of ROWS) {
  Deno.test(`settings: ${row.name}`, async () => {
    await using sandbox = await bladeSandbox();
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "one\n");
    for (const [path, json] of Object.entries(row.files(sandbox))) {
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, JSON.stringify(json));
    }
    await using server = startFakeAnthropicServer(row.turns(sandbox));
    const run = await sandbox.run(
      [
        "-p",
        "go",
        "--output-format",
        "json",
        ...(row.trusted ? ["--trust-workspace"] : []),
        ...(row.flags ?? []),
      ],
      { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" } },
    );
    assert.ok(run.stdout.trim() !== "", run.stderr);
    await row.check(server.requests.filter((r) => r.path === "/v1/messages"), run, sandbox);
  });
}
