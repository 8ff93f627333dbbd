// One fixture folder per case under tests/fixtures/agents/<case>/. Each folder is copied as a trusted
// workspace's .blade/agents and loaded through the whole registry; the custom agents and the
// diagnostics are compared as whole objects (paths shown as <dir>).

import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { loadAgents } from "../lib/registry/load.ts";
import type { Diagnostic } from "../lib/registry/diagnostic.ts";
import type { AgentDefinition } from "../lib/registry/schema.ts";
import { realFs } from "../lib/sys/fs.ts";

const FIXTURES = new URL("./fixtures/agents/", import.meta.url);

function def(name: string, file: string, fields: Partial<AgentDefinition>): AgentDefinition {
  return {
    name,
    description: "",
    systemPrompt: "",
    tools: null,
    disallowedTools: [],
    model: "inherit",
    permissionMode: "inherit",
    maxTurns: null,
    isolation: "none",
    background: false,
    color: null,
    skills: [],
    source: "project",
    path: `<dir>/${file}`,
    ...fields,
  };
}

interface Expected {
  agents: AgentDefinition[];
  diagnostics: Diagnostic[];
}

const CASES: Record<string, Expected> = {
  valid: {
    agents: [def("code-reviewer", "code-reviewer.md", {
      description: "Reviews a diff for correctness and security problems. Use after any non-trivial change.",
      systemPrompt: "You are a meticulous code reviewer.\n\nReport each problem with its file and line.",
      tools: ["Read", "Grep", "Glob", "Bash"],
      disallowedTools: ["Write", "Edit"],
      model: "sonnet",
      permissionMode: "autoEdit",
      maxTurns: 25,
      isolation: "worktree",
      background: true,
      color: "magenta",
      skills: ["security-checklist"],
    })],
    diagnostics: [],
  },
  crlf: {
    agents: [def("crlf-agent", "crlf-agent.md", {
      description: "Written on Windows",
      systemPrompt: "Line one.\nLine two.",
      tools: ["Read", "Grep"],
    })],
    diagnostics: [],
  },
  bom: {
    agents: [def("bom-agent", "bom-agent.md", {
      description: "Saved with a byte order mark",
      systemPrompt: "Hello from a BOM file.",
    })],
    diagnostics: [],
  },
  "comma-tools": {
    agents: [def("searcher", "searcher.md", {
      description: "Searches code",
      systemPrompt: "Search.",
      tools: ["Read", "Grep", "Glob", "Task(Explore, Plan)"],
      disallowedTools: ["Bash", "Write"],
      skills: ["a", "b"],
    })],
    diagnostics: [],
  },
  "empty-tools": {
    agents: [def("thinker", "thinker.md", {
      description: "Thinks without tools",
      systemPrompt: "Think hard, then answer.",
      tools: [],
    })],
    diagnostics: [],
  },
  "missing-description": {
    agents: [],
    diagnostics: [{
      file: "<dir>/no-description.md",
      line: 1,
      severity: "error",
      field: "description",
      message: 'Missing required field "description"; agent not loaded',
      hint: "Add `description: <when the parent should use this agent>` to the frontmatter",
    }],
  },
  "invalid-yaml": {
    agents: [],
    diagnostics: [{
      file: "<dir>/broken.md",
      line: 5,
      severity: "error",
      message:
        "Invalid YAML in frontmatter at line 5, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]; agent not loaded",
      hint: 'Fix the YAML syntax; quote values that contain ": " or start with a special character',
    }],
  },
  "unknown-field": {
    // `effort` and `mcpServers` are Claude Code fields Blade uses; the others are not.
    agents: [def("extras", "extras.md", {
      description: "Carries fields Blade does not use",
      systemPrompt: "Extra fields.",
      mcpServers: ["github"],
      effort: "high",
      hooks: { Stop: [] },
    })],
    diagnostics: [
      ...["memory"].map((field) => ({
        file: "<dir>/extras.md",
        line: 8,
        severity: "info" as const,
        field,
        message: `"${field}" is a Claude Code field Blade does not support yet; ignored`,
      })),
      {
        file: "<dir>/extras.md",
        line: 9,
        severity: "warning",
        field: "Tools",
        message: 'Unknown field "Tools"; ignored',
        hint: 'Did you mean "tools"?',
      },
      {
        file: "<dir>/extras.md",
        line: 10,
        severity: "warning",
        field: "temperature",
        message: 'Unknown field "temperature"; ignored',
        hint:
          "Known fields: name, description, tools, disallowedTools, model, permissionMode, maxTurns, isolation, effort, background, color, skills, mcpServers, hooks",
      },
    ],
  },
  "lenient-yaml": {
    agents: [def("claude-style", "claude-style.md", {
      description: 'Use this agent when: the user asks for a review. Example: "review my diff"',
      systemPrompt: "I was written for Claude Code.",
      tools: ["Read", "Grep"],
    })],
    diagnostics: [{
      file: "<dir>/claude-style.md",
      line: 3,
      severity: "warning",
      message:
        "Frontmatter is not valid YAML (line 3, column 14: Nested mappings are not allowed in compact mappings); read as plain `key: value` lines",
      hint: 'Quote values that contain ": ", e.g. `description: "Use when: …"`',
    }],
  },
  "invalid-isolation": {
    agents: [],
    diagnostics: [{
      file: "<dir>/sandboxed.md",
      line: 4,
      severity: "error",
      field: "isolation",
      message: 'Invalid "isolation": must be "none", "worktree" or "remote"; agent not loaded',
      hint:
        "Use `isolation: worktree` to run in a git worktree, `isolation: remote` to run on a worker, or `isolation: none`",
    }],
  },
  "reserved-name": {
    agents: [],
    diagnostics: [{
      file: "<dir>/verification.md",
      line: 2,
      severity: "warning",
      field: "name",
      message: 'Agent name "verification" is reserved by Blade; file skipped, the built-in agent is used',
      hint: "Rename the agent, e.g. `name: verification-custom`",
    }],
  },
  "non-md-ignored": {
    agents: [
      def("helper", "helper.md", { description: "The only agent in this folder", systemPrompt: "Help." }),
    ],
    diagnostics: [],
  },
  "nested-ignored": {
    agents: [def("top", "top.md", { description: "Directly in the folder", systemPrompt: "Top." })],
    diagnostics: [],
  },
};

Deno.test("every fixture folder has a case and every case a folder", async () => {
  const folders: string[] = [];
  for await (const entry of Deno.readDir(FIXTURES)) if (entry.isDirectory) folders.push(entry.name);
  assert.deepEqual(folders.sort(), Object.keys(CASES).sort());
});

for (const [name, expected] of Object.entries(CASES)) {
  Deno.test(`fixture ${name}`, async () => {
    const root = await Deno.makeTempDir({ prefix: `blade-fixture-${name}-` });
    try {
      const dir = `${root}/ws/.blade/agents`;
      await cp(new URL(name, FIXTURES), dir, { recursive: true });
      const loaded = await loadAgents({
        fs: realFs(),
        home: `${root}/home`,
        workspace: `${root}/ws`,
        trusted: true,
      });
      const actual = JSON.parse(
        JSON.stringify({
          agents: loaded.agents.filter((a) => a.source !== "builtin"),
          diagnostics: loaded.diagnostics,
        }).replaceAll(dir, "<dir>"),
      );
      assert.deepEqual(actual, expected);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}
