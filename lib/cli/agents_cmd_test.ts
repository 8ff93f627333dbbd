import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { FakeClock, fakeEnv, sequentialIds } from "../testing/fakes.ts";
import { realFs } from "../sys/fs.ts";
import type { Ports } from "../sys/mod.ts";
import { realProcess } from "../sys/process.ts";
import { type AgentsCommandDeps, runAgentsCommand } from "./agents_cmd.ts";
import { captureIo } from "./io.ts";

interface World extends AsyncDisposable {
  root: string;
  home: string;
  ws: string;
  storage: string;
  deps(overrides?: Partial<AgentsCommandDeps>): AgentsCommandDeps;
  write(path: string, text: string): Promise<void>;
}

async function world(): Promise<World> {
  const root = await Deno.makeTempDir({ prefix: "blade-agents-cmd-" });
  const home = `${root}/home`;
  const ws = `${root}/ws`;
  const storage = `${home}/.blade`;
  await Deno.mkdir(ws, { recursive: true });
  const ports: Ports = {
    fs: realFs(),
    clock: new FakeClock(),
    process: realProcess(),
    ids: sequentialIds(),
    env: fakeEnv({}, { cwd: ws, home }),
  };
  return {
    root,
    home,
    ws,
    storage,
    deps: (overrides = {}) => ({
      ports,
      io: captureIo(),
      workspace: ws,
      trusted: true,
      home,
      storageRoot: storage,
      ...overrides,
    }),
    async write(path, text) {
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, text);
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/** Runs the command; returns exit code and printed text with the temp root replaced by <tmp>. */
async function run(w: World, argv: string[], overrides: Partial<AgentsCommandDeps> = {}) {
  const io = captureIo();
  const code = await runAgentsCommand(argv, w.deps({ ...overrides, io }));
  const clean = (s: string) => s.replaceAll(w.root, "<tmp>");
  return { code, out: clean(io.stdout()), err: clean(io.stderr()) };
}

async function runError(
  w: World,
  argv: string[],
  overrides: Partial<AgentsCommandDeps> = {},
): Promise<BladeError> {
  try {
    await run(w, argv, overrides);
  } catch (e) {
    assert.ok(e instanceof BladeError, `expected a BladeError, got ${String(e)}`);
    return e;
  }
  assert.fail(`blade agents ${argv.join(" ")} succeeded`);
}

/** Stores the text as is, so snapshot files read like the terminal. */
function snapshot(t: Deno.TestContext, text: string): Promise<void> {
  return t.assertSnapshot(text, { serializer: (s) => s });
}

const agentText = (name: string, extra = "", body = "Do the work.") =>
  `---\nname: ${name}\ndescription: ${name} helps with things\n${extra}---\n\n${body}\n`;

/** A workspace with agents in several sources, one override, one broken file, one ignored field. */
async function populated(): Promise<World> {
  const w = await world();
  await w.write(
    `${w.home}/.claude/agents/reviewer.md`,
    agentText("reviewer", "tools: Read, Grep\nmodel: sonnet\n"),
  );
  await w.write(
    `${w.storage}/agents/writer.md`,
    agentText("writer", "disallowedTools: Bash\nmemory: user\n"),
  );
  await w.write(`${w.ws}/.blade/agents/Explore.md`, agentText("Explore", "tools: []\nmodel: haiku\n"));
  await w.write(`${w.ws}/.blade/agents/broken.md`, "---\nname: broken\n---\nNo description.\n");
  await w.write(
    `${w.ws}/.claude/agents/tester.md`,
    agentText("tester", "tools: Read, Bash\npermissionMode: acceptEdits\nmaxTurns: 40\ncolor: green\n"),
  );
  return w;
}

Deno.test("help texts", async (t) => {
  await using w = await world();
  const texts: string[] = [];
  for (
    const argv of [["--help"], ["list", "--help"], ["show", "-h"], ["validate", "--help"], [
      "create",
      "--help",
    ]]
  ) {
    const r = await run(w, argv);
    assert.equal(r.code, 0);
    texts.push(`$ blade agents ${argv.join(" ")}\n${r.out}`);
  }
  await snapshot(t, texts.join("\n"));
});

Deno.test("list: grouped by source, overrides marked, problems counted", async (t) => {
  await using w = await populated();
  const r = await run(w, ["list"]);
  assert.equal(r.code, 0);
  assert.equal(r.err, "");
  await snapshot(t, r.out);
  assert.equal((await run(w, [])).out, r.out, "`blade agents` alone lists");
});

Deno.test("list in an untrusted workspace says why project agents are missing", async (t) => {
  await using w = await populated();
  const r = await run(w, ["list"], { trusted: false });
  await snapshot(t, r.out);
});

Deno.test("list --source and --agents", async (t) => {
  await using w = await populated();
  const agentsJson = JSON.stringify({
    oneoff: { description: "Session-only helper", prompt: "Help.", tools: ["Read"] },
  });
  const project = await run(w, ["list", "--source", "project"], { agentsJson });
  const flag = await run(w, ["list", "--source=flag"], { agentsJson });
  const none = await run(w, ["list", "--source", "user-claude"], { trusted: true, home: `${w.root}/nobody` });
  await snapshot(t, [project.out, flag.out, none.out].join("\n---\n"));
  const bad = await runError(w, ["list", "--source", "elsewhere"]);
  assert.deepEqual([bad.code, bad.exitCode, bad.message], ["usage", 2, 'Unknown source "elsewhere"']);
});

Deno.test("list --json: stable shape", async () => {
  await using w = await world();
  await w.write(`${w.ws}/.blade/agents/helper.md`, agentText("helper", "tools: Read\nmaxTurns: 5\n"));
  const r = await run(w, ["list", "--json", "--source", "project"]);
  assert.deepEqual(JSON.parse(r.out), {
    agents: [{
      name: "helper",
      description: "helper helps with things",
      source: "project",
      path: "<tmp>/ws/.blade/agents/helper.md",
      tools: ["Read"],
      disallowedTools: [],
      model: "inherit",
      permissionMode: "inherit",
      maxTurns: 5,
      isolation: "none",
      background: false,
      color: null,
      skills: [],
    }],
    diagnostics: [],
  });
});

Deno.test("show: a custom agent and a built-in", async (t) => {
  await using w = await populated();
  const tester = await run(w, ["show", "tester"]);
  const writer = await run(w, ["show", "writer"]);
  const plan = await run(w, ["show", "Plan"]);
  assert.equal(tester.code, 0);
  await snapshot(t, [tester.out, writer.out, plan.out].join("\n---\n"));
});

Deno.test("show --json: the whole definition and its notes", async () => {
  await using w = await populated();
  const r = await run(w, ["show", "writer", "--json"]);
  assert.deepEqual(JSON.parse(r.out), {
    agent: {
      name: "writer",
      description: "writer helps with things",
      source: "user",
      path: "<tmp>/home/.blade/agents/writer.md",
      tools: null,
      disallowedTools: ["Bash"],
      model: "inherit",
      permissionMode: "inherit",
      maxTurns: null,
      isolation: "none",
      background: false,
      color: null,
      skills: [],
      systemPrompt: "Do the work.",
      effectivePermissionMode: "default",
    },
    diagnostics: [{
      file: "<tmp>/home/.blade/agents/writer.md",
      line: 5,
      severity: "info",
      field: "memory",
      message: '"memory" is a Claude Code field Blade does not support yet; ignored',
    }],
  });
});

Deno.test("show: unknown agent → agent_not_found with the available names", async () => {
  await using w = await world();
  const e = await runError(w, ["show", "nobody"]);
  assert.deepEqual(e.toJSON(), {
    code: "agent_not_found",
    message: 'Unknown agent "nobody"',
    hint: "Available agents: Explore, general-purpose, goal-verification, Plan, review, verification",
  });
  const missing = await runError(w, ["show"]);
  assert.deepEqual([missing.code, missing.message], ["usage", "Missing agent name"]);
});

Deno.test("validate: every visible source, file:line: severity: message, exit 1 on errors", async (t) => {
  await using w = await populated();
  const r = await run(w, ["validate"]);
  assert.equal(r.code, 1);
  await snapshot(t, r.out);
});

Deno.test("validate --json: ok, files, counts, diagnostics", async () => {
  await using w = await world();
  await w.write(`${w.ws}/.blade/agents/broken.md`, "---\nname: broken\n---\nx\n");
  const r = await run(w, ["validate", "--json"]);
  assert.equal(r.code, 1);
  assert.deepEqual(JSON.parse(r.out), {
    ok: false,
    files: 7,
    counts: { error: 1, warning: 0, info: 0 },
    diagnostics: [{
      file: "<tmp>/ws/.blade/agents/broken.md",
      line: 1,
      severity: "error",
      field: "description",
      message: 'Missing required field "description"; agent not loaded',
      hint: "Add `description: <when the parent should use this agent>` to the frontmatter",
    }],
  });
});

Deno.test("validate paths: files and folders, relative to the workspace; clean files exit 0", async (t) => {
  await using w = await world();
  await w.write(`${w.ws}/drafts/good.md`, agentText("good"));
  await w.write(`${w.ws}/drafts/lenient.md`, "---\nname: lenient\ndescription: Use when: asked\n---\nx\n");
  await w.write(`${w.ws}/single.md`, agentText("single"));
  const clean = await run(w, ["validate", "single.md"]);
  assert.deepEqual([clean.code, clean.out], [0, "Checked 1 agent file: no problems found.\n"]);
  const folder = await run(w, ["validate", "drafts", "missing.md"]);
  assert.equal(folder.code, 1);
  await snapshot(t, folder.out);
});

Deno.test("create: a user agent by default, a valid 0600 file, atomically written", async (t) => {
  await using w = await world();
  const r = await run(w, [
    "create",
    "doc-writer",
    "--description",
    "Writes docs: guides and references",
    "--tools",
    "Read, Write,Read",
    "--model",
    "sonnet",
  ]);
  assert.equal(r.code, 0);
  const path = `${w.storage}/agents/doc-writer.md`;
  const text = await Deno.readTextFile(path);
  await snapshot(t, `${r.out}\n${text}`);
  if (Deno.build.os !== "windows") assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  const shown = JSON.parse((await run(w, ["show", "doc-writer", "--json"])).out);
  assert.deepEqual([shown.agent.tools, shown.agent.model, shown.diagnostics], [
    ["Read", "Write"],
    "sonnet",
    [],
  ]);
});

Deno.test("create --project, --prompt, --json, and a note when another source wins", async (t) => {
  await using w = await world();
  await w.write(`${w.ws}/.claude/agents/other.md`, agentText("shadowed"));
  const r = await run(w, [
    "create",
    "helper",
    "--project",
    "--description",
    "Helps",
    "--prompt",
    "Be brief.",
    "--json",
  ]);
  assert.deepEqual(JSON.parse(r.out), {
    name: "helper",
    source: "project",
    path: "<tmp>/ws/.blade/agents/helper.md",
    overwritten: false,
  });
  assert.equal(
    await Deno.readTextFile(`${w.ws}/.blade/agents/helper.md`),
    "---\nname: helper\ndescription: Helps\n---\n\nBe brief.\n",
  );
  const agentsJson = JSON.stringify({ shadowed: { description: "flag", prompt: "p" } });
  const shadowed = await run(w, ["create", "shadowed", "--description", "Mine", "--tools", ""], {
    agentsJson,
  });
  await snapshot(t, shadowed.out);
  assert.match(await Deno.readTextFile(`${w.storage}/agents/shadowed.md`), /^tools: \[\]$/m);
});

Deno.test("create refuses overwrites without --force, reserved names, bad names and untrusted --project", async () => {
  await using w = await world();
  await run(w, ["create", "helper", "--description", "First"]);
  const exists = await runError(w, ["create", "helper", "--description", "Second"]);
  assert.deepEqual(exists.toJSON(), {
    code: "agent_exists",
    message: `Agent file already exists: ${w.storage}/agents/helper.md`,
    hint: "Pass --force to overwrite it, or choose another name",
  });
  const forced = await run(w, ["create", "helper", "--description", "Second", "--force"]);
  assert.match(forced.out, /^Overwrote user agent "helper" at ~\/\.blade\/agents\/helper\.md$/m);
  assert.match(await Deno.readTextFile(`${w.storage}/agents/helper.md`), /description: Second/);

  const reserved = await runError(w, ["create", "verification", "--description", "x"]);
  assert.deepEqual([reserved.code, reserved.exitCode, reserved.message], [
    "agent_reserved",
    2,
    "Subagent 'verification' is reserved by Blade",
  ]);
  const untrusted = await runError(w, ["create", "p", "--description", "x", "--project"], { trusted: false });
  assert.deepEqual(untrusted.toJSON(), {
    code: "workspace_untrusted",
    message: `Cannot create a project agent: ${w.ws} is not trusted`,
    hint: "Run `blade trust` to trust this workspace, or use --user to create a user agent",
  });
  const usage: [string[], string][] = [
    [["create"], "Missing agent name"],
    [["create", "x"], "Missing --description"],
    [["create", "x", "--description", "  "], "Missing --description"],
    [
      ["create", "bad name", "--description", "d"],
      'Invalid agent name "bad name": must start with a letter or digit and contain only letters, digits, "_" and "-"',
    ],
    [
      ["create", "x", "--description", "d", "--project", "--user"],
      "Use either --project or --user, not both",
    ],
    [["create", "x", "y", "--description", "d"], 'Unexpected argument "y"'],
    [["create", "x", "--description"], "Option '--description <value>' argument missing"],
    [["list", "--bogus"], "Unknown option '--bogus'"],
    [["frobnicate"], 'Unknown command "blade agents frobnicate"'],
  ];
  for (const [argv, message] of usage) {
    const e = await runError(w, argv);
    assert.deepEqual([e.code, e.exitCode, e.message], ["usage", 2, message], argv.join(" "));
    assert.ok(e.hint !== undefined || message.startsWith("Use either"), argv.join(" "));
  }
  assert.equal((await Deno.stat(`${w.ws}`)).isDirectory, true);
  assert.equal(
    await Deno.stat(`${w.ws}/.blade`).catch(() => null),
    null,
    "nothing was written for refused creates",
  );
});

Deno.test("a bad --agents value is a usage error for every subcommand", async () => {
  await using w = await world();
  const e = await runError(w, ["list"], { agentsJson: "[1]" });
  assert.deepEqual([e.code, e.exitCode, e.message], ["invalid_agents", 2, "--agents must be a JSON object"]);
});

Deno.test("show: the capability ceiling under the starting session's mode, in text and JSON", async () => {
  await using w = await populated();
  const text = await run(w, ["show", "tester", "--permission-mode", "plan"]);
  assert.match(text.out, /Permission mode +autoEdit — capped to plan when a plan-mode session starts it/);
  const json = JSON.parse((await run(w, ["show", "tester", "--json", "--permission-mode", "plan"])).out);
  assert.equal(json.agent.effectivePermissionMode, "plan");
  assert.deepEqual(json.capped, ["permissionMode autoEdit (acceptEdits) capped to plan by the parent"]);
  const wide = JSON.parse((await run(w, ["show", "tester", "--json", "--permission-mode", "yolo"])).out);
  assert.equal(wide.agent.effectivePermissionMode, "autoEdit");
  assert.equal("capped" in wide, false);
});
