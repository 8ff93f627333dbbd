// The project-context cases of the Claude Code golden comparison (docs/guides/memory.md): folders with
// memory files, custom commands, skills, agents and output styles, a prompt and a scripted model, run by
// Claude Code 2.1.332 (scripts/record_claude_context.ts records what reached the model into
// tests/fixtures/claude/context_<case>/requests.json) and by Blade (tests/claude_context_golden_test.ts),
// each against the same fake server. The model answers by the state of the conversation, not by request
// number, and the delegation tool is `Agent` in Claude Code and `Task` in Blade.

import { type FakeHandler, fakeTurn } from "../../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../../lib/provider/anthropic_wire.ts";

export interface ContextCase {
  name: string;
  prompt: string;
  /** Extra command-line flags (the same for both CLIs). */
  flags: string[];
  /** The working folder, relative to the case's root folder (its ancestors hold memory too). */
  cwd: string;
  /** Files under the root folder. */
  files: Record<string, string>;
  /** Files under HOME. */
  homeFiles: Record<string, string>;
  handler: (root: string) => FakeHandler<AnthropicRequestBody>;
}

interface WireBlock {
  type: string;
  text?: string;
  name?: string;
  content?: unknown;
}
interface WireMessage {
  role: string;
  content: string | WireBlock[];
}

function messagesOf(body: AnthropicRequestBody): WireMessage[] {
  return (body.messages ?? []) as unknown as WireMessage[];
}

function blocks(m: WireMessage): WireBlock[] {
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
}

/** How many tool results the conversation holds. */
export function toolResultCount(body: AnthropicRequestBody): number {
  return messagesOf(body).flatMap(blocks).filter((b) => b.type === "tool_result").length;
}

/** Whether any user text of the conversation contains `marker`. */
export function mentions(body: AnthropicRequestBody, marker: string): boolean {
  return messagesOf(body).filter((m) => m.role === "user").flatMap(blocks).some((b) =>
    (b.text ?? "").includes(marker)
  );
}

function delegationTool(body: AnthropicRequestBody): string {
  return ((body.tools ?? []) as { name: string }[]).some((t) => t.name === "Agent") ? "Agent" : "Task";
}

const notFound = () => new Response("{}", { status: 404 });

/** The model: one answer per number of tool results so far, the last one repeated. */
function scripted(turns: (root: string) => Parameters<typeof fakeTurn>[0][]) {
  return (root: string): FakeHandler<AnthropicRequestBody> => (req) => {
    if (req.path !== "/v1/messages") return notFound();
    const all = turns(root);
    return fakeTurn(all[Math.min(toolResultCount(req.body), all.length - 1)]);
  };
}

export const SUBAGENT_MARKER = "SUBAGENT-TASK";

export const CONTEXT_CASES: ContextCase[] = [
  {
    // Every layer: user file and rule, an ancestor above the working folder (its imports resolve inside
    // the working folder only), the project's files with imports (a chain deeper than the limit, one
    // outside the folder, one in code), .claude/CLAUDE.md,
    // a rule, a path-scoped rule, CLAUDE.local.md, an AGENTS.md left out, and a nested folder's file.
    name: "memory_layers",
    prompt: "Read the file in pkg.",
    flags: [],
    cwd: "app",
    files: {
      "CLAUDE.md": "ANCESTOR-MEMORY above the working folder. @app/docs/from-ancestor.md @docs/outside.md\n",
      "docs/outside.md": "ANCESTOR-OUTSIDE-NOT-LOADED\n",
      "app/CLAUDE.md": [
        "# Project",
        "PROJECT-MEMORY: see @docs/conventions.md for the conventions.",
        "Not imported: @~/notes/outside.md and `@docs/in-span.md`.",
        "```",
        "@docs/in-fence.md",
        "```",
        "",
      ].join("\n"),
      "app/docs/conventions.md": "CONVENTIONS-MEMORY\n@level2.md\n",
      "app/docs/level2.md": "LEVEL2 @level3.md\n",
      "app/docs/level3.md": "LEVEL3 @level4.md\n",
      "app/docs/level4.md": "LEVEL4 @level5.md @conventions.md\n",
      "app/docs/level5.md": "LEVEL5-NOT-LOADED\n",
      "app/docs/in-span.md": "IN-SPAN-NOT-LOADED\n",
      "app/docs/in-fence.md": "IN-FENCE-NOT-LOADED\n",
      "app/docs/from-ancestor.md": "FROM-ANCESTOR-IMPORT-MEMORY\n",
      "app/.claude/CLAUDE.md": "DOT-CLAUDE-MEMORY\n",
      "app/.claude/rules/testing.md": "RULE-TESTING-MEMORY\n",
      "app/.claude/rules/src-only.md": "---\npaths: src/**\n---\nPATH-RULE-NOT-LOADED\n",
      "app/CLAUDE.local.md": "LOCAL-MEMORY\n",
      "app/AGENTS.md": "AGENTS-NOT-LOADED\n",
      "app/pkg/CLAUDE.md": "NESTED-MEMORY\n",
      "app/pkg/file.txt": "pkg file\n",
    },
    homeFiles: {
      ".claude/CLAUDE.md": "USER-MEMORY @~/notes/user-extra.md\n",
      ".claude/rules/style.md": "USER-RULE-MEMORY\n",
      "notes/user-extra.md": "USER-IMPORT-MEMORY\n",
      "notes/outside.md": "OUTSIDE-NOT-LOADED\n",
    },
    handler: scripted((root) => [
      { toolCalls: [{ name: "Read", input: { file_path: `${root}/app/pkg/file.txt` } }] },
      { text: "Done." },
    ]),
  },
  {
    // A project with AGENTS.md and no CLAUDE.md.
    name: "memory_agents_md",
    prompt: "Say hello.",
    flags: [],
    cwd: ".",
    files: { "AGENTS.md": "AGENTS-MEMORY\n" },
    homeFiles: {},
    handler: scripted(() => [{ text: "Hello." }]),
  },
  {
    // --bare: no memory.
    name: "memory_bare",
    prompt: "Say hello.",
    flags: ["--bare"],
    cwd: ".",
    files: { "CLAUDE.md": "PROJECT-MEMORY\n", ".claude/skills/deploy/SKILL.md": SKILL_DEPLOY() },
    homeFiles: { ".claude/CLAUDE.md": "USER-MEMORY\n" },
    handler: scripted(() => [{ text: "Hello." }]),
  },
  {
    // A project command with every frontmatter field, positional arguments, @file and !`command`.
    name: "command_review",
    prompt: "/review src/app.ts carefully",
    flags: ["--allowedTools", "Bash(echo:*)"],
    cwd: ".",
    files: {
      "CLAUDE.md": "PROJECT-MEMORY\n",
      ".claude/commands/review.md": [
        "---",
        "description: Review one file",
        "argument-hint: <file> [how]",
        "allowed-tools: Read, Grep, Bash(echo:*)",
        "model: haiku",
        "---",
        "Review $0 $1. All arguments: $ARGUMENTS.",
        "Notes: @docs/notes.md",
        "Status: !`echo COMMAND-OUTPUT`",
        "",
      ].join("\n"),
      "docs/notes.md": "NOTES-CONTENT\n",
    },
    homeFiles: {},
    handler: scripted(() => [{ text: "Reviewed." }]),
  },
  {
    // A namespaced project command (a sub-folder) and the arguments of a body without placeholders.
    name: "command_namespaced",
    prompt: "/frontend:component Button primary",
    flags: [],
    cwd: ".",
    files: { ".claude/commands/frontend/component.md": "Write a UI component.\n" },
    homeFiles: {},
    handler: scripted(() => [{ text: "Written." }]),
  },
  {
    // A user command.
    name: "command_user",
    prompt: "/greet Ada",
    flags: [],
    cwd: ".",
    files: {},
    homeFiles: {
      ".claude/commands/greet.md": "---\ndescription: Greet someone\n---\nGreet $ARGUMENTS warmly.\n",
    },
    handler: scripted(() => [{ text: "Hello Ada." }]),
  },
  {
    // Skills listed to the model, and one loaded by a Skill call (its arguments substituted).
    name: "skill_call",
    prompt: "Deploy to staging.",
    flags: ["--allowedTools", "Skill"],
    cwd: ".",
    files: {
      ".claude/skills/deploy/SKILL.md": SKILL_DEPLOY(),
      ".claude/skills/deploy/run.sh": "echo deploy\n",
    },
    homeFiles: {
      ".claude/skills/lint-fix/SKILL.md": "---\ndescription: Fix lint errors\n---\nRun the linter.\n",
    },
    handler: scripted(() => [
      { toolCalls: [{ name: "Skill", input: { skill: "deploy", args: "staging" } }] },
      { text: "Deployed." },
    ]),
  },
  {
    // What subagents get: general-purpose the memory, Explore none, an agent with `skills:` its skill.
    name: "subagent_context",
    prompt: "Delegate the three tasks.",
    flags: [],
    cwd: ".",
    files: {
      "CLAUDE.md": "PROJECT-MEMORY\n",
      ".claude/skills/deploy/SKILL.md": SKILL_DEPLOY(),
      ".claude/agents/deployer.md":
        "---\nname: deployer\ndescription: Deploys the app\ntools: Read, Skill\nskills: deploy\n---\nYou deploy the app.\n",
    },
    homeFiles: {},
    handler: () => (req) => {
      if (req.path !== "/v1/messages") return notFound();
      if (mentions(req.body, SUBAGENT_MARKER)) return fakeTurn({ text: "Subagent done." });
      if (toolResultCount(req.body) > 0) return fakeTurn({ text: "All delegated." });
      const tool = delegationTool(req.body);
      const call = (type: string) => ({
        name: tool,
        input: {
          subagent_type: type,
          description: `Task for ${type}`,
          prompt: `${SUBAGENT_MARKER} for ${type}.`,
        },
      });
      return fakeTurn({ toolCalls: [call("general-purpose"), call("Explore"), call("deployer")] });
    },
  },
  {
    // A project output style chosen by the outputStyle setting.
    name: "output_style",
    prompt: "Say hello.",
    flags: ["--settings", '{"outputStyle":"Pirate"}'],
    cwd: ".",
    files: {
      ".claude/output-styles/pirate.md":
        "---\nname: Pirate\ndescription: Talk like a pirate\n---\nSTYLE-BODY: answer as a pirate would.\n",
    },
    homeFiles: {},
    handler: scripted(() => [{ text: "Arr." }]),
  },
];

function SKILL_DEPLOY(): string {
  return [
    "---",
    "name: deploy",
    "description: Deploy the app to an environment",
    "allowed-tools: Read, Bash(./run.sh:*)",
    "---",
    "# Deploy",
    "Run ./run.sh with $ARGUMENTS from this skill's folder.",
    "",
  ].join("\n");
}
