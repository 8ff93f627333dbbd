import assert from "node:assert/strict";
import { parseAgentFile } from "./parse.ts";
import type { AgentDefinition } from "./schema.ts";

const path = "/agents/a.md";
const parse = (text: string) => parseAgentFile(text, { path, source: "user" });

function definition(overrides: Partial<AgentDefinition>): AgentDefinition {
  return {
    name: "a",
    description: "d",
    systemPrompt: "Body.",
    tools: null,
    disallowedTools: [],
    model: "inherit",
    permissionMode: "inherit",
    maxTurns: null,
    isolation: "none",
    background: false,
    color: null,
    skills: [],
    source: "user",
    path,
    ...overrides,
  };
}

const file = (frontmatter: string, body = "Body.") =>
  `---\nname: a\ndescription: d\n${frontmatter}---\n${body}\n`;

Deno.test("minimal file: defaults everywhere, absent tools inherit all, absent permissionMode inherits", async () => {
  assert.deepEqual(await parse(file("")), { definition: definition({}), diagnostics: [] });
});

Deno.test("list fields accept YAML lists and comma strings, trimmed and de-duplicated", async () => {
  const result = await parse(
    file("tools: [' Read ', Grep, Read]\ndisallowedTools: ' Bash ,Write, Bash'\nskills:\n  - x\n  - ' x'\n"),
  );
  assert.deepEqual(result, {
    definition: definition({ tools: ["Read", "Grep"], disallowedTools: ["Bash", "Write"], skills: ["x"] }),
    diagnostics: [],
  });
});

Deno.test("tools: [] means no tools and tools: '*' means every tool", async () => {
  assert.deepEqual((await parse(file("tools: []\n"))).definition?.tools, []);
  assert.deepEqual((await parse(file("tools: '*'\n"))).definition?.tools, null);
  assert.deepEqual(
    (await parse(file("tools:\n"))).definition?.tools,
    null,
    "an empty value is the same as absent",
  );
});

Deno.test("Claude Code permission mode names map to Blade modes", async () => {
  const cases: [string, AgentDefinition["permissionMode"]][] = [
    ["default", "default"],
    ["ignore", "default"],
    ["manual", "default"],
    ["acceptEdits", "autoEdit"],
    ["dontAsk", "dontAsk"],
    ["bypassPermissions", "yolo"],
    ["plan", "plan"],
    ["inherit", "inherit"],
  ];
  for (const [name, mode] of cases) {
    assert.equal((await parse(file(`permissionMode: ${name}\n`))).definition?.permissionMode, mode, name);
  }
});

Deno.test("an unknown permission mode is dropped with a warning, so the agent inherits", async () => {
  const result = await parse(file("permissionMode: whenever\n"));
  assert.equal(result.definition?.permissionMode, "inherit");
  assert.deepEqual(result.diagnostics.map((d) => [d.severity, d.field, d.line]), [[
    "warning",
    "permissionMode",
    4,
  ]]);
});

Deno.test("bad optional values are warnings and fall back to defaults", async () => {
  const result = await parse(file("maxTurns: 5000\nbackground: maybe\nmodel: ''\ncolor: 7\n"));
  assert.deepEqual(result.definition, definition({}));
  assert.deepEqual(
    result.diagnostics.map((d) => `${d.line} ${d.severity} ${d.message}`),
    [
      '4 warning Invalid "maxTurns": must be a whole number from 1 to 1000; field ignored',
      '5 warning Invalid "background": must be true or false; field ignored',
      '6 warning Invalid "model": must not be empty; field ignored',
      '7 warning Invalid "color": must be a color name; field ignored',
    ],
  );
});

Deno.test("maxTurns bounds are 1 and 1000; numeric strings are accepted", async () => {
  assert.equal((await parse(file("maxTurns: 1\n"))).definition?.maxTurns, 1);
  assert.equal((await parse(file("maxTurns: 1000\n"))).definition?.maxTurns, 1000);
  assert.equal((await parse(file("maxTurns: '12'\n"))).definition?.maxTurns, 12);
  assert.equal((await parse(file("maxTurns: 0\n"))).definition?.maxTurns, null);
  assert.equal((await parse(file("maxTurns: 2.5\n"))).definition?.maxTurns, null);
});

Deno.test("bad tools or disallowedTools skip the file (ignoring them would widen the agent)", async () => {
  for (const field of ["tools", "disallowedTools"]) {
    const result = await parse(file(`${field}: 42\n`));
    assert.equal(result.definition, undefined, field);
    assert.deepEqual(result.diagnostics.map((d) => [d.severity, d.field]), [["error", field]]);
  }
});

Deno.test("missing name points at the opening line and names the fix", async () => {
  assert.deepEqual(await parse("---\ndescription: d\n---\nx\n"), {
    diagnostics: [{
      file: path,
      line: 1,
      severity: "error",
      field: "name",
      message: 'Missing required field "name"; agent not loaded',
      hint: "Add `name: <agent-name>` to the frontmatter, e.g. `name: code-reviewer`",
    }],
  });
});

Deno.test("no frontmatter, unclosed frontmatter and a non-mapping frontmatter are errors", async () => {
  assert.deepEqual((await parse("Just a prompt.\n")).diagnostics.map((d) => [d.line, d.message]), [
    [1, "No frontmatter: the file must start with a `---` line; agent not loaded"],
  ]);
  assert.deepEqual((await parse("---\nname: a\n")).diagnostics.map((d) => [d.line, d.message]), [
    [1, "The frontmatter is not closed; agent not loaded"],
  ]);
  assert.deepEqual((await parse("---\n- a\n- b\n---\n")).diagnostics.map((d) => [d.line, d.message]), [
    [2, "The frontmatter must be `key: value` fields; agent not loaded"],
  ]);
});

Deno.test("empty frontmatter reports both required fields", async () => {
  assert.deepEqual((await parse("---\n---\nBody\n")).diagnostics.map((d) => d.field), [
    "name",
    "description",
  ]);
});

Deno.test("an empty body loads with a warning", async () => {
  const result = await parse(file("", ""));
  assert.equal(result.definition?.systemPrompt, "");
  assert.deepEqual(result.diagnostics.map((d) => d.message), [
    "The agent has no system prompt (nothing follows the frontmatter)",
  ]);
});

Deno.test("YAML errors that the lenient reading cannot fix carry line and column", async () => {
  const result = await parse("---\nname: a\ndescription: d\ntools: [Read\n  : :\nnot a field\n---\n");
  assert.equal(result.definition, undefined);
  const d = result.diagnostics[0];
  assert.equal(d?.severity, "error");
  assert.match(d?.message ?? "", /^Invalid YAML in frontmatter at line \d+, column \d+: /);
  assert.equal(typeof d?.line, "number");
});

Deno.test("lenient reading: block scalars, lists and quoted values", async () => {
  const text = [
    "---",
    "name: lenient",
    "description: Use when: anything",
    "notes: |",
    "  first",
    "  second",
    "tools:",
    "  - Read",
    "  - 'Grep'",
    'model: "sonnet"',
    "---",
    "Body.",
  ].join("\n");
  const result = await parse(text);
  assert.deepEqual(
    result.definition,
    definition({
      name: "lenient",
      description: "Use when: anything",
      tools: ["Read", "Grep"],
      model: "sonnet",
    }),
  );
  assert.deepEqual(result.diagnostics.map((d) => [d.line, d.severity, d.field]), [
    [3, "warning", undefined],
    [4, "warning", "notes"],
  ]);
});

Deno.test("lenient reading: a repeated field keeps the last value with a warning", async () => {
  const result = await parse("---\nname: a\ndescription: first: one\ndescription: second\n---\nx\n");
  assert.equal(result.definition?.description, "second");
  assert.deepEqual(result.diagnostics.map((d) => d.message).slice(1), [
    'Field "description" appears more than once; the last one is used',
  ]);
});

Deno.test("reserved names are refused for every source except built-in", async () => {
  const text = "---\nname: goal-verification\ndescription: d\n---\nx\n";
  const user = await parseAgentFile(text, { path, source: "project" });
  assert.equal(user.definition, undefined);
  assert.deepEqual(user.diagnostics.map((d) => [d.severity, d.field, d.line]), [["warning", "name", 2]]);
  const lookalike = await parseAgentFile(text.replace("goal-verification", "Verification"), {
    path,
    source: "user",
  });
  assert.equal(lookalike.definition, undefined, "reserved names are matched case-insensitively");
  assert.equal(
    (await parseAgentFile(text, { path, source: "builtin" })).definition?.name,
    "goal-verification",
  );
});

Deno.test("tool rules load as rules; entries naming no Blade tool are reported", async () => {
  const result = await parse(file("tools: Read, Bash(git:*), CronCreate\ndisallowedTools: Bash(rm:*)\n"));
  assert.deepEqual(result.definition?.tools, ["Read", "Bash(git:*)", "CronCreate"]);
  assert.deepEqual(result.diagnostics.map((d) => d.message), [
    '"CronCreate": Blade has no tool named CronCreate; the entry has no effect',
  ]);
});

Deno.test("never throws, whatever the bytes", async () => {
  const samples = [
    "",
    "---",
    "---\n---",
    "\uFEFF",
    "---\n: :\n---",
    "---\n&a [*a]\n---",
    "---\nname: [\n---",
    "---\n\t- x\n---",
    "---\nname: !!binary AAAA\ndescription: x\n---",
    "---\na: &x [1]\nb: *x\nc: *y\n---",
    "\u0000\u0001---\n",
  ];
  for (let i = 0; i < 200; i++) {
    samples.push(
      Array.from({ length: 40 }, () => "-:\n \t[]{}'\"#&*!|>a1".charAt(Math.floor(Math.random() * 19))).join(
        "",
      ),
    );
  }
  for (const sample of samples) {
    const result = await parse(sample);
    assert.ok(Array.isArray(result.diagnostics));
  }
});

Deno.test("mcpServers: names, inline {name: definition} entries, or one map; anything else is a warning", async () => {
  const head = "---\nname: a\ndescription: d\n";
  const of = async (field: string) => (await parse(`${head}${field}\n---\nbody\n`)).definition?.mcpServers;
  assert.deepEqual(await of("mcpServers: [github, docs]"), ["github", "docs"]);
  assert.deepEqual(
    await of("mcpServers:\n  - github\n  - own:\n      command: own-mcp\n      args: [--x]"),
    ["github", { own: { command: "own-mcp", args: ["--x"] } }],
  );
  assert.deepEqual(await of("mcpServers:\n  one: {command: a}\n  two: {url: http://h}"), [
    { one: { command: "a" } },
    { two: { url: "http://h" } },
  ]);
  const bad = await parse(`${head}mcpServers: 42\n---\nbody\n`);
  assert.equal(bad.definition?.mcpServers, undefined);
  assert.match(bad.diagnostics.map((d) => d.message).join("\n"), /Invalid "mcpServers"/);
});

Deno.test("hooks: Claude Code's map is kept for the agent's runs; a malformed entry skips the file; an unknown event warns", async () => {
  const hooks =
    "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n";
  const ok = await parse(file(hooks));
  assert.deepEqual(ok.definition?.hooks, {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh" }] }],
  });
  assert.deepEqual(ok.diagnostics, []);
  const broken = await parse(file("hooks:\n  PreToolUse:\n    - matcher: Bash\n"));
  assert.equal(broken.definition, undefined);
  assert.deepEqual(broken.diagnostics.map((d) => [d.severity, d.field, d.message]), [[
    "error",
    "hooks",
    'Invalid "hooks": hooks.PreToolUse[0] has no "hooks" list; agent not loaded',
  ]]);
  const unknown = await parse(file("hooks:\n  PermissionRequest: []\n"));
  assert.ok(unknown.definition !== undefined);
  assert.deepEqual(unknown.diagnostics.map((d) => [d.severity, d.message]), [[
    "warning",
    "hooks.PermissionRequest is not an event Blade fires",
  ]]);
});

Deno.test("effort: a level is the agent's effort; anything else is a warning and the run's effort stands", async () => {
  const high = await parse(file("effort: high\n"));
  assert.deepEqual(high.definition, definition({ effort: "high" }));
  assert.deepEqual(high.diagnostics, []);
  for (const bad of ["loud", "7"]) {
    const result = await parse(file(`effort: ${bad}\n`));
    assert.deepEqual(result.definition, definition({}));
    assert.deepEqual(result.diagnostics.map((d) => `${d.line} ${d.severity} ${d.message} (${d.hint})`), [
      '4 warning Invalid "effort": must be one of low, medium, high, xhigh, max; field ignored ' +
      "(Use low, medium, high, xhigh or max; leave it out for the run's effort)",
    ]);
  }
});
