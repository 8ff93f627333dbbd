import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { parseAgentsFlag } from "./agents_flag.ts";

function rejects(json: string): BladeError {
  try {
    parseAgentsFlag(json);
  } catch (e) {
    assert.ok(e instanceof BladeError, `expected a BladeError, got ${String(e)}`);
    assert.equal(e.code, "invalid_agents");
    assert.equal(e.exitCode, 2);
    assert.ok(e.hint !== undefined && e.hint.length > 0, "every --agents error carries a hint");
    return e;
  }
  assert.fail(`--agents ${json} was accepted`);
}

const ok = { description: "Reviews diffs", prompt: "You review code." };
const withEntry = (entry: unknown, name = "rev") => JSON.stringify({ [name]: entry });

Deno.test("a full --agents entry becomes a flag definition", () => {
  const json = JSON.stringify({
    rev: {
      description: "  Reviews diffs  ",
      prompt: "\nYou review code.\n",
      tools: [" Read", "Grep", "Read "],
      disallowedTools: ["Bash", "Bash"],
      model: "sonnet",
      permissionMode: "acceptEdits",
      maxTurns: 30,
      isolation: "worktree",
    },
    helper: ok,
  });
  assert.deepEqual(parseAgentsFlag(json), [
    {
      name: "rev",
      description: "Reviews diffs",
      systemPrompt: "You review code.",
      tools: ["Read", "Grep"],
      disallowedTools: ["Bash"],
      model: "sonnet",
      permissionMode: "autoEdit",
      maxTurns: 30,
      isolation: "worktree",
      background: false,
      color: null,
      skills: [],
      source: "flag",
      path: "--agents",
    },
    {
      name: "helper",
      description: "Reviews diffs",
      systemPrompt: "You review code.",
      tools: null,
      disallowedTools: [],
      model: "inherit",
      permissionMode: "inherit",
      maxTurns: null,
      isolation: "none",
      background: false,
      color: null,
      skills: [],
      source: "flag",
      path: "--agents",
    },
  ]);
});

Deno.test("empty object is fine; tools [] means no tools", () => {
  assert.deepEqual(parseAgentsFlag("{}"), []);
  assert.deepEqual(parseAgentsFlag(withEntry({ ...ok, tools: [] }))[0]?.tools, []);
});

Deno.test("--agents error texts", () => {
  const cases: [string, string][] = [
    ["{not json", "Invalid JSON provided to --agents"],
    ["", "Invalid JSON provided to --agents"],
    ["[]", "--agents must be a JSON object"],
    ["null", "--agents must be a JSON object"],
    ['"text"', "--agents must be a JSON object"],
    [withEntry(ok, ""), 'Invalid --agents name "": must be 1–128 characters long'],
    [
      withEntry(ok, "x".repeat(129)),
      `Invalid --agents name "${"x".repeat(64)}…": must be 1–128 characters long`,
    ],
    [
      withEntry(ok, "-dash"),
      'Invalid --agents name "-dash": must start with a letter or digit and contain only letters, digits, "_" and "-"',
    ],
    [
      withEntry(ok, "has space"),
      'Invalid --agents name "has space": must start with a letter or digit and contain only letters, digits, "_" and "-"',
    ],
    [withEntry(ok, "verification"), "Subagent 'verification' is reserved by Blade"],
    [withEntry(ok, "goal-verification"), "Subagent 'goal-verification' is reserved by Blade"],
    [withEntry(ok, "Verification"), "Subagent 'Verification' is reserved by Blade"],
    [withEntry("text"), 'Invalid --agents definition for "rev": must be a JSON object'],
    [withEntry([]), 'Invalid --agents definition for "rev": must be a JSON object'],
    [withEntry({ ...ok, color: "red" }), 'Invalid --agents definition for "rev": unknown field "color"'],
    [withEntry({ prompt: "p" }), 'Invalid --agents definition for "rev": "description" is required'],
    [withEntry({ description: "d" }), 'Invalid --agents definition for "rev": "prompt" is required'],
    [
      withEntry({ ...ok, description: "   " }),
      'Invalid --agents definition for "rev": "description" must be a string of 1–4,096 characters',
    ],
    [
      withEntry({ ...ok, description: "d".repeat(4097) }),
      'Invalid --agents definition for "rev": "description" must be a string of 1–4,096 characters',
    ],
    [
      withEntry({ ...ok, prompt: 42 }),
      'Invalid --agents definition for "rev": "prompt" must be a string of 1–100,000 characters',
    ],
    [
      withEntry({ ...ok, prompt: "p".repeat(100_001) }),
      'Invalid --agents definition for "rev": "prompt" must be a string of 1–100,000 characters',
    ],
    [
      withEntry({ ...ok, tools: "Read, Grep" }),
      'Invalid --agents definition for "rev": "tools" must be an array of at most 128 tool names',
    ],
    [
      withEntry({ ...ok, tools: Array.from({ length: 129 }, (_, i) => `T${i}`) }),
      'Invalid --agents definition for "rev": "tools" must be an array of at most 128 tool names',
    ],
    [
      withEntry({ ...ok, disallowedTools: ["Bash", " "] }),
      'Invalid --agents definition for "rev": "disallowedTools" must contain only non-empty tool names',
    ],
    [
      withEntry({ ...ok, model: "" }),
      'Invalid --agents definition for "rev": "model" must be a non-empty string',
    ],
    [
      withEntry({ ...ok, permissionMode: "whenever" }),
      'Invalid --agents definition for "rev": "permissionMode" must be one of default, manual, ignore, dontAsk, acceptEdits, autoEdit, auto, bypassPermissions, yolo, plan, inherit',
    ],
    [
      withEntry({ ...ok, maxTurns: 0 }),
      'Invalid --agents definition for "rev": "maxTurns" must be an integer from 1 to 1000',
    ],
    [
      withEntry({ ...ok, maxTurns: 1.5 }),
      'Invalid --agents definition for "rev": "maxTurns" must be an integer from 1 to 1000',
    ],
    [
      withEntry({ ...ok, maxTurns: "10" }),
      'Invalid --agents definition for "rev": "maxTurns" must be an integer from 1 to 1000',
    ],
    [
      withEntry({ ...ok, isolation: "container" }),
      'Invalid --agents definition for "rev": "isolation" must be "none", "worktree" or "remote"',
    ],
  ];
  for (const [json, message] of cases) {
    assert.equal(rejects(json).message, message, json.slice(0, 80));
  }
});

Deno.test("at most 64 agents", () => {
  const entries = (n: number) =>
    JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, ok])));
  assert.equal(parseAgentsFlag(entries(64)).length, 64);
  assert.equal(rejects(entries(65)).message, "Too many agents in --agents: 65 (at most 64)");
});

Deno.test("limits are inclusive", () => {
  const [def] = parseAgentsFlag(
    withEntry({
      description: "d".repeat(4096),
      prompt: "p".repeat(100_000),
      tools: Array.from({ length: 128 }, (_, i) => `T${i}`),
      maxTurns: 1000,
    }, "a".repeat(128)),
  );
  assert.equal(def?.name.length, 128);
  assert.equal(def?.tools?.length, 128);
});

Deno.test("the invalid JSON hint carries the parser's reason", () => {
  assert.match(rejects("{").hint ?? "", /JSON/);
});

Deno.test("--agents takes Claude Code's effort, background, skills and mcpServers; a numeric effort is the run's", () => {
  const [rev] = parseAgentsFlag(withEntry({
    ...ok,
    effort: "low",
    background: true,
    skills: ["lint"],
    mcpServers: ["docs"],
  }));
  assert.deepEqual(
    [rev!.effort, rev!.background, rev!.skills, rev!.mcpServers],
    ["low", true, ["lint"], ["docs"]],
  );
  // The Agent SDK's AgentDefinition allows a number, which Claude Code accepts.
  assert.equal(parseAgentsFlag(withEntry({ ...ok, effort: 7 }))[0]!.effort, undefined);
  assert.match(
    rejects(withEntry({ ...ok, effort: "loud" })).message,
    /"effort" must be one of low, medium, high/,
  );
  assert.match(rejects(withEntry({ ...ok, memory: "user" })).message, /unknown field "memory"/);
});
