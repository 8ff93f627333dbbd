// End-to-end: ordinary Claude Code agent files whose frontmatter is not trivial YAML — an unquoted `:`
// in the description (what Claude Code's agent generator writes), `>` and `|` blocks, `hooks: {}` and a
// nested `memory:` value, an `mcpServers:` map — load in every build of Blade with the same diagnostics:
// `agents validate`, `agents list`, `blade -p` delegating to one of them, and the interactive first
// screen. Through the dev bundle these once crashed every command with "TypeError: r is not a constructor" (the lazily
// imported yaml package came back without its named exports; lib/npm_module.ts). Like every test of
// tests/, it runs in each leg of .ci/run: from the sources, the dev bundle and the release bundle.

import assert from "node:assert/strict";
import { type BladeSandbox, bladeSandbox, parseJsonResult } from "./support/blade.ts";
import { BladeTerminal } from "./support/terminal.ts";

/** Agent files as people write them (the first as Claude Code's `/agents` generator does). */
const AGENT_FILES: Record<string, string> = {
  "reviewer.md": `---
name: reviewer
description: Use this agent when the user has written code and wants a review. Examples: <example>Context: The user just wrote a function. user: "Please review it" assistant: "I'll use the reviewer agent"</example>
tools: Read, Grep
model: inherit
---
You review code.
`,
  "folded.md": `---
name: folded
description: >
  Summarises a folder
  in two sentences.
---
You summarise.
`,
  "literal.md": `---
name: literal
description: |
  Line one.
  Line two.
tools:
  - Read
---
You read.
`,
  "hooked.md": `---
name: hooked
description: Runs with hooks
hooks: {}
memory:
  scope: project
---
You are hooked.
`,
  "with-mcp.md": `---
name: with-mcp
description: "Uses a server: github"
mcpServers:
  github:
    command: gh-mcp
    args: [serve]
---
You use MCP.
`,
};

const REVIEWER_DESCRIPTION =
  `Use this agent when the user has written code and wants a review. Examples: <example>Context: The user just wrote a function. user: "Please review it" assistant: "I'll use the reviewer agent"</example>`;

/** The same, in every build: file, line, severity and message of each finding. */
const EXPECTED_DIAGNOSTICS = [
  {
    file: "hooked.md",
    line: 5,
    severity: "info",
    message: `"memory" is a Claude Code field Blade does not support yet; ignored`,
  },
  {
    file: "reviewer.md",
    line: 3,
    severity: "warning",
    message:
      "Frontmatter is not valid YAML (line 3, column 14: Nested mappings are not allowed in compact mappings); " +
      "read as plain `key: value` lines",
  },
];

const SCRIPT = `
agents:
  main:
    - turns:
        - tool_calls:
            - name: Task
              input: { subagent_type: reviewer, description: "Review notes", prompt: "Review notes.txt." }
        - text: "Reviewer says: {{last_user}}"
  reviewer:
    - turns:
        - tool_calls:
            - name: Read
              input: { file_path: "notes.txt" }
        - text: 'reviewed: {{match:(lenient \\w+)}}'
`;

async function agentsWorkspace(): Promise<BladeSandbox> {
  const sandbox = await bladeSandbox();
  for (const [name, text] of Object.entries(AGENT_FILES)) await sandbox.write(`.claude/agents/${name}`, text);
  await sandbox.write("notes.txt", "lenient frontmatter\n");
  await Deno.writeTextFile(`${sandbox.root}/script.yaml`, SCRIPT);
  const trust = await sandbox.run(["trust"]);
  assert.equal(trust.code, 0, trust.stderr);
  return sandbox;
}

Deno.test(
  "agent files: lenient YAML frontmatter validates and lists the same in every build",
  async () => {
    await using sandbox = await agentsWorkspace();
    const validate = await sandbox.run(["agents", "validate", "--json"]);
    assert.equal(validate.code, 0, validate.stderr);
    const report = JSON.parse(validate.stdout) as {
      ok: boolean;
      counts: Record<string, number>;
      diagnostics: { file: string; line: number; severity: string; message: string }[];
    };
    assert.equal(report.ok, true);
    assert.deepEqual(report.counts, { error: 0, warning: 1, info: 1 });
    const dir = `${sandbox.workspace}/.claude/agents/`;
    assert.deepEqual(
      report.diagnostics.map((d) => ({
        file: d.file.replace(dir, ""),
        line: d.line,
        severity: d.severity,
        message: d.message,
      })),
      EXPECTED_DIAGNOSTICS,
    );

    const text = await sandbox.run(["agents", "validate"]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /reviewer\.md:3: warning: Frontmatter is not valid YAML/);
    assert.match(text.stdout, /Checked 11 agent files: 1 warning and 1 info\./);

    const list = await sandbox.run(["agents", "list", "--json"]);
    assert.equal(list.code, 0, list.stderr);
    const agents =
      (JSON.parse(list.stdout) as { agents: { name: string; description: string; source: string }[] })
        .agents.filter((a) => a.source !== "builtin");
    assert.deepEqual(
      Object.fromEntries(agents.map((a) => [a.name, a.description])),
      {
        folded: "Summarises a folder in two sentences.",
        hooked: "Runs with hooks",
        literal: "Line one.\nLine two.",
        reviewer: REVIEWER_DESCRIPTION,
        "with-mcp": "Uses a server: github",
      },
    );
  },
);

Deno.test("agent files: blade -p delegates to a leniently read agent", async () => {
  await using sandbox = await agentsWorkspace();
  const run = await sandbox.run([
    "-p",
    "Review the notes",
    "--provider",
    "scripted",
    "--script",
    `${sandbox.root}/script.yaml`,
    "--output-format",
    "json",
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = parseJsonResult(run);
  assert.equal(result.is_error, false, run.stdout);
  assert.match(String(result.result), /^Reviewer says: reviewed: lenient frontmatter\n/);
});

Deno.test(
  "agent files: the interactive session starts and delegates to a leniently read agent",
  async () => {
    await using sandbox = await agentsWorkspace();
    await using term = await BladeTerminal.start([
      "--provider",
      "scripted",
      "--script",
      `${sandbox.root}/script.yaml`,
    ], {
      cwd: sandbox.workspace,
      env: sandbox.env,
    });
    // A crash ends the wait at once, with the screen, instead of at the timeout.
    const shows = (text: string) => (screen: string) => {
      if (screen.includes("internal error")) throw new Error(`Blade crashed:\n${screen}`);
      return screen.includes(text);
    };
    await term.waitFor(shows("/help for commands"));
    await term.type("Review the notes");
    await term.press("Enter");
    await term.waitFor(shows("Reviewer says: reviewed: lenient frontmatter"));
    await term.press("C-d");
    assert.equal(await term.exitCode(), 0);
  },
);
