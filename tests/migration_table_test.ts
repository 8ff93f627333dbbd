// Keeps docs/guides/migrating-from-claude-code.md true: every row marked "same" is checked against Blade
// itself — a flag or variable against `blade --help`, an output field against the result object, a
// stream line kind against the stream-json renderer, a setting against the settings reader.

import assert from "node:assert/strict";
import { MAIN_HELP } from "../lib/cli/main.ts";
import { claudeResult } from "../lib/cli/claude_result.ts";
import { claudeStream } from "../lib/cli/claude_stream.ts";
import { RunLedger } from "../lib/cli/run_ledger.ts";
import { claudeSettingsOf } from "../lib/config/claude_settings.ts";
import type { RuntimeEvent } from "../lib/protocol/events.ts";

const GUIDE = new URL("../docs/guides/migrating-from-claude-code.md", import.meta.url);

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
      type: "compacted",
      sessionId: "s",
      trigger: "auto",
      preTokens: 10,
      postTokens: 5,
      durationMs: 1,
      kept: 0,
      model: "m",
      usage: { inputTokens: 1, outputTokens: 1 },
    },
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
  const limits = await Deno.readTextFile(new URL("../docs/reference/limits.md", import.meta.url));
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
        case "variable":
          for (const part of name.split(/,\s*/)) {
            assert.ok(MAIN_HELP.includes(part.trim()), `${where}: not in blade --help`);
          }
          break;
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
        case "feature":
          // Long-session behaviour (compaction, prompt caching): its section in docs/reference/limits.md.
          assert.ok(
            new RegExp(`^## ${name}$`, "im").test(limits),
            `${where}: no section in docs/reference/limits.md`,
          );
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
