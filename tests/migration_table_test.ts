// Keeps docs/guides/migrating-from-claude-code.md true: every row marked "same" is checked against Blade
// itself — a flag or variable by the end-to-end test that runs Blade with it and checks its effect
// (BEHAVIOUR names it; a "same" row without one fails here), an output field against the result object,
// a stream line kind against the stream-json renderer, a setting against the settings reader.

import assert from "node:assert/strict";
import { claudeResult } from "../lib/cli/claude_result.ts";
import { claudeStream } from "../lib/cli/claude_stream.ts";
import { RunLedger } from "../lib/cli/run_ledger.ts";
import { claudeSettingsOf } from "../lib/config/claude_settings.ts";
import type { RuntimeEvent } from "../lib/protocol/events.ts";

const GUIDE = new URL("../docs/guides/migrating-from-claude-code.md", import.meta.url);

/**
 * Where each "same" flag and variable is checked against Blade: a test file of tests/ and the start of
 * one of its test names. That test runs Blade with it and asserts its effect (on the requests the fake
 * server received, the output, the files). The file must name the flag or variable literally.
 */
const BEHAVIOUR: Record<string, [file: string, test: string]> = {
  "-p": ["e2e_print_test.ts", "print: a streamed text answer in --output-format json"],
  "--print": ["e2e_claude_flags_test.ts", "claude flags: --print with --system-prompt"],
  "--output-format": ["e2e_print_test.ts", "print: a streamed text answer in --output-format json"],
  "--input-format": ["e2e_stream_input_test.ts", "stream-json input: each message is answered"],
  "--verbose": ["e2e_claude_flags_test.ts", "claude flags: every flag claude-code-action"],
  "--include-partial-messages": ["e2e_claude_flags_test.ts", "claude flags: every flag claude-code-action"],
  "--replay-user-messages": ["e2e_claude_flags_test.ts", "claude flags: --input-format stream-json runs"],
  "--model": ["e2e_claude_flags_test.ts", "claude flags: --fallback-model: an overloaded model"],
  "--permission-mode": ["e2e_print_test.ts", "print: an untrusted workspace refuses Bash and writes"],
  "--allowedTools": ["e2e_claude_flags_test.ts", "claude flags: --allowedTools Read Edit"],
  "--disallowedTools": ["e2e_claude_flags_test.ts", "claude flags: --print with --system-prompt"],
  "--tools": ["e2e_claude_flags_test.ts", "claude flags: every flag claude-code-action"],
  "--system-prompt": ["e2e_claude_flags_test.ts", "claude flags: --print with --system-prompt"],
  "--system-prompt-file": ["e2e_claude_flags_test.ts", "claude flags: every flag claude-code-action"],
  "--append-system-prompt": ["e2e_claude_flags_test.ts", "claude flags: --print with --system-prompt"],
  "--append-system-prompt-file": ["e2e_claude_flags_test.ts", "claude flags: every flag claude-code-action"],
  "--max-turns": ["e2e_claude_flags_test.ts", "claude flags: --max-turns 1 ends the run"],
  "--max-budget-usd": ["e2e_claude_flags_test.ts", "claude flags: --max-budget-usd stops the run"],
  "--continue": ["e2e_claude_flags_test.ts", "claude flags: --resume <uuid> --fork-session"],
  "--resume": ["e2e_print_test.ts", "print: --resume continues a session"],
  "--session-id": ["e2e_claude_flags_test.ts", "claude flags: --resume <uuid> --fork-session"],
  "--fork-session": ["e2e_claude_flags_test.ts", "claude flags: --resume <uuid> --fork-session"],
  "--settings": ["claude_settings_test.ts", "settings: "],
  "--agents": ["e2e_task_test.ts", "task: a child gets only its agent's tools"],
  "--mcp-config": ["e2e_mcp_test.ts", "mcp: the session calls a stdio server's tools"],
  "--strict-mcp-config": ["e2e_mcp_test.ts", "mcp list: .mcp.json only in trusted folders"],
  "--add-dir": ["e2e_add_dir_test.ts", "--add-dir: the main session writes in the added folder"],
  "--fallback-model": ["e2e_claude_flags_test.ts", "claude flags: --fallback-model: an overloaded model"],
  "--json-schema": ["e2e_json_schema_test.ts", "--json-schema: the StructuredOutput object"],
  ANTHROPIC_API_KEY: ["e2e_claude_flags_test.ts", "claude flags: an empty ANTHROPIC_API_KEY counts as unset"],
  ANTHROPIC_BASE_URL: ["e2e_print_test.ts", "print: a streamed text answer in --output-format json"],
  ...Object.fromEntries(
    [
      "ANTHROPIC_AUTH_TOKEN",
      "ANTHROPIC_MODEL",
      "ANTHROPIC_DEFAULT_SONNET_MODEL",
      "ANTHROPIC_DEFAULT_OPUS_MODEL",
      "ANTHROPIC_DEFAULT_HAIKU_MODEL",
      "CLAUDE_CODE_SUBAGENT_MODEL",
      "ANTHROPIC_CUSTOM_HEADERS",
      "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
      "MAX_THINKING_TOKENS",
      "CLAUDE_CODE_MAX_RETRIES",
      "API_TIMEOUT_MS",
      "BASH_DEFAULT_TIMEOUT_MS",
      "BASH_MAX_TIMEOUT_MS",
      "BASH_MAX_OUTPUT_LENGTH",
      // One test per row of its table, named after the variable.
    ].map((v) => [v, ["claude_env_test.ts", "env ${row.variable}: its effect on the request"]]),
  ),
  MAX_STRUCTURED_OUTPUT_RETRIES: [
    "e2e_json_schema_test.ts",
    "--json-schema: MAX_STRUCTURED_OUTPUT_RETRIES sets",
  ],
  CLAUDE_CONFIG_DIR: ["e2e_claude_folders_test.ts", "CLAUDE_CONFIG_DIR replaces ~/.claude"],
  CLAUDE_CODE_API_KEY_HELPER_TTL_MS: [
    "e2e_api_key_helper_test.ts",
    "apiKeyHelper: CLAUDE_CODE_API_KEY_HELPER_TTL_MS",
  ],
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Why `name` has no behaviour test, or undefined when BEHAVIOUR names one that exists and uses it. */
async function behaviourProblem(name: string): Promise<string | undefined> {
  const entry = BEHAVIOUR[name];
  if (entry === undefined) return "no end-to-end test of its behaviour is named in BEHAVIOUR";
  const [file, test] = entry;
  const text = await Deno.readTextFile(new URL(file, import.meta.url)).catch(() => "");
  if (!/from "\.\/support\/blade\.ts"/.test(text)) {
    return `${file} does not run Blade (tests/support/blade.ts)`;
  }
  if (!new RegExp(`Deno\\.test\\(\\s*["'\`]${escape(test)}`).test(text)) {
    return `${file} has no test "${test}…"`;
  }
  // As an argument ("--flag"), an environment key (NAME: / "NAME") or a variable's row.
  if (!new RegExp(`["'\`]${escape(name)}["'\`]|\\b${escape(name)}:`).test(text)) {
    return `${file} never passes ${name} to Blade`;
  }
  return undefined;
}

interface Row {
  kind: string;
  names: string[];
  status: string;
}

async function rows(): Promise<Row[]> {
  const text = await Deno.readTextFile(GUIDE);
  const out: Row[] = [];
  for (const line of text.split("\n")) {
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    if (cells.length !== 4 || cells[0] === "Kind" || cells[0]!.startsWith("---")) continue;
    const names = [...cells[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    out.push({ kind: cells[0]!, names, status: cells[2]! });
  }
  return out;
}

function sampleResult(): Record<string, unknown> {
  const ledger = new RunLedger();
  return claudeResult(
    {
      sessionId: "s",
      status: "failed",
      result: "",
      error: { code: "max_turns_exceeded", message: "stop" },
      numTurns: 2,
      toolCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 1,
      apiErrorStatus: 500,
      // Only with --json-schema (as in Claude Code).
      structuredOutput: { answer: 4 },
    },
    ledger,
    "u",
  );
}

function streamKinds(): Set<string> {
  const stream = claudeStream({
    cwd: "/w",
    includePartialMessages: true,
    apiKeySource: "none",
    uuid: () => "u",
    now: () => 0,
  });
  const child = {
    session_id: "agent-1",
    subagent_type: "general-purpose",
    description: "d",
    background: false,
    root_agent_id: "agent-1",
    resumed_from: null,
    resume_depth: 0,
  };
  const message = { role: "assistant" as const, content: [{ type: "text" as const, text: "hi" }] };
  const events: RuntimeEvent[] = [
    { type: "session_started", sessionId: "s", agentType: "main", model: "m", depth: 0 },
    { type: "retry", sessionId: "s", attempt: 2, delayMs: 1, reason: "429" },
    { type: "assistant_message", sessionId: "s", message },
    { type: "tool_completed", sessionId: "s", callId: "c", name: "Task", isError: false, content: "x" },
    { type: "subagent_spawned", parentSessionId: "s", callId: "c", subagent: child },
    {
      type: "subagent_event",
      parentSessionId: "s",
      agentId: "agent-1",
      event: { type: "assistant_message", sessionId: "agent-1", message },
    },
    {
      type: "subagent_completed",
      parentSessionId: "s",
      callId: "c",
      subagent: child,
      state: "completed",
      success: true,
      summary: "ok",
    },
  ];
  const kinds = new Set<string>(["result"]);
  for (const e of events) {
    for (const line of stream.onEvent(e)) {
      const l = JSON.parse(line);
      kinds.add(l.type === "system" ? `system/${l.subtype}` : l.type);
      if (l.parent_tool_use_id !== null && l.parent_tool_use_id !== undefined) {
        kinds.add("parent_tool_use_id");
      }
    }
  }
  return kinds;
}

Deno.test("migration guide: every 'same' row holds for Blade", async () => {
  const table = await rows();
  const memoryGuide = await Deno.readTextFile(new URL("../docs/guides/memory.md", import.meta.url));
  assert.ok(table.length > 60, `the table has its rows (${table.length})`);
  const result = sampleResult();
  const kinds = streamKinds();
  const settings = claudeSettingsOf({
    model: "m",
    env: { A: "1" },
    outputStyle: "Explanatory",
    apiKeyHelper: "print-key",
    permissions: {
      allow: ["Read"],
      deny: ["Bash"],
      ask: ["Edit"],
      defaultMode: "plan",
      additionalDirectories: ["../x"],
    },
  }, "x");
  for (const row of table) {
    assert.ok(["same", "different", "not yet"].includes(row.status), `status of ${row.names}: ${row.status}`);
    if (row.status !== "same") continue;
    for (const name of row.names) {
      const where = `${row.kind} ${name}`;
      switch (row.kind) {
        case "flag":
        case "variable": {
          const problem = await behaviourProblem(name);
          assert.equal(problem, undefined, `${where}: ${problem}`);
          break;
        }
        case "field":
          assert.ok(name in result, `${where}: not in the result object`);
          break;
        case "stream":
          assert.ok(kinds.has(name), `${where}: the stream-json renderer sends no such line`);
          break;
        case "setting": {
          assert.deepEqual(settings.ignored, [], "the sample uses honoured keys only");
          const [top, sub] = name.split(".");
          const honoured = top === "permissions"
            ? ["allow", "deny", "ask", "defaultMode", "additionalDirectories"].includes(sub!)
            : ["model", "env", "outputStyle", "apiKeyHelper"].includes(top!);
          assert.ok(honoured, `${where}: the settings reader does not honour it`);
          break;
        }
        case "exit":
          break;
        case "context":
          // Project memory, commands, skills, styles: their guide says what loads and how.
          assert.ok(
            memoryGuide.includes(name.replace(/^`|`$/g, "")),
            `${where}: not in docs/guides/memory.md`,
          );
          break;
        default:
          assert.fail(`unknown kind ${row.kind}`);
      }
    }
  }
});
