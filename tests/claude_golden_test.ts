// The golden comparison with Claude Code 2.1.332: the conversations of
// tests/support/claude_conversations.ts, recorded from `claude -p` (tests/fixtures/claude/, re-record
// with scripts/record_claude_fixtures.ts), run through Blade against the same fake server. The json
// result and the stream-json lines must have the same event kinds in the same order and the same field
// names and JSON types; ids, times and costs are normalised (compared by type only). What Claude Code
// sends that Blade does not is listed below, field by field, and in docs/guides/migrating-from-claude-code.md.

import assert from "node:assert/strict";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { type Conversation, CONVERSATIONS } from "./support/claude_conversations.ts";
import { type BladeSandbox, bladeSandbox } from "./support/blade.ts";

type Json = Record<string, unknown>;

const FIXTURES = decodeURIComponent(new URL("./fixtures/claude/", import.meta.url).pathname);

/** Claude Code's own fields with no Blade counterpart (internal timings, its product features). */
const CLAUDE_ONLY: Record<string, string[]> = {
  result: [
    "fast_mode_state",
    "fast_mode_disabled_reason",
    "subagent_stats", // Blade: `subagents`
    "safety_stops",
    "ttft_ms",
    "ttft_stream_ms",
    "time_to_request_ms",
    "first_content_frame_ms",
    "queued_turn_count",
    "result_index",
    "origin",
  ],
  usage: [
    "output_tokens_details",
    "cache_creation",
    "inference_geo",
    "iterations",
    "speed",
    "fallback_credit",
  ],
  modelUsage: [
    "contextWindow",
    "maxOutputTokens",
    "thinkingTokens",
    "cacheCreationEphemeral5mInputTokens",
    "cacheCreationEphemeral1hInputTokens",
    "canonicalModel",
    "provider",
    "costBasis",
  ],
  "system/init": [
    "terminal_slash_commands",
    "claude_code_version", // Blade: `blade_version`
    "capabilities",
    "analytics_disabled",
    "product_feedback_disabled",
    "served_by_anthropic",
    "sandbox_enabled",
    "memory_paths",
    "messaging_socket_path",
    "fast_mode_state",
    "fast_mode_disabled_reason",
    "per_turn_effort_active",
    "ultrathink_available",
    "ultrathink_typed_raises",
    "view_mode",
  ],
  message: ["context_management", "diagnostics", "container", "stop_details"],
  user: ["tool_use_result", "tool_result_meta"],
  "system/task_started": ["run_id"],
  "system/task_notification": ["run_id", "output_file", "summary_is_report"],
  "system/task_updated": ["run_id"],
  "system/task_progress": ["run_id"],
};

/**
 * Claude Code stream lines Blade does not send in a conversation, and why (dropped before comparing):
 * Claude Code runs every Agent call in the background, so its foreground delegation changes the
 * background set too; Blade's foreground child is no background task.
 */
const CLAUDE_ONLY_KINDS: Record<string, Set<string>> = {
  foreground: new Set(["system/background_tasks_changed"]),
};
const claudeOnly = (conversation: string, k: string) => CLAUDE_ONLY_KINDS[conversation]?.has(k) === true;

function kind(line: Json): string {
  const base = typeof line.subtype === "string" && line.type === "system"
    ? `system/${line.subtype}`
    : String(line.type);
  return line.parent_tool_use_id !== null && line.parent_tool_use_id !== undefined ? `${base}@sub` : base;
}

function typeOf(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** Every field Claude Code has (minus its own) is in Blade's object with the same JSON type. */
function assertSameFields(where: string, claude: Json, blade: Json, only: string[] = []): void {
  for (const [key, value] of Object.entries(claude)) {
    if (only.includes(key)) continue;
    assert.ok(
      key in blade,
      `${where}: Blade lacks "${key}" (Claude Code: ${JSON.stringify(value)?.slice(0, 80)})`,
    );
    // stop_reason is null before a message ends; result is absent on Claude Code's max-turns error.
    if (value === null || blade[key] === null) continue;
    assert.equal(typeOf(blade[key]), typeOf(value), `${where}: "${key}" has another type`);
  }
}

function assertResultShape(where: string, claude: Json, blade: Json): void {
  assertSameFields(where, claude, blade, CLAUDE_ONLY.result);
  assertSameFields(`${where}.usage`, claude.usage as Json, blade.usage as Json, CLAUDE_ONLY.usage);
  const rows = (o: Json) => Object.values(o.modelUsage as Record<string, Json>);
  // One model used, or none (a request the API refused costs nothing and lists no model).
  assert.equal(rows(blade).length, rows(claude).length, `${where}: models used`);
  if (rows(claude).length > 0) {
    assertSameFields(`${where}.modelUsage`, rows(claude)[0]!, rows(blade)[0]!, CLAUDE_ONLY.modelUsage);
  }
  for (const key of ["type", "subtype", "is_error", "stop_reason", "terminal_reason"]) {
    assert.deepEqual(blade[key], claude[key], `${where}: ${key}`);
  }
}

/** The token counts and costs themselves are Claude Code's (cache reads and writes apart from input). */
function assertSameUsage(where: string, claude: Json, blade: Json): void {
  const pick = (o: Json, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
  const usageKeys = [
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
  ];
  assert.deepEqual(
    pick(blade.usage as Json, usageKeys),
    pick(claude.usage as Json, usageKeys),
    `${where}: usage`,
  );
  const rowKeys = ["inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens"];
  const row = (o: Json) => Object.values(o.modelUsage as Record<string, Json>)[0]!;
  assert.deepEqual(pick(row(blade), rowKeys), pick(row(claude), rowKeys), `${where}: modelUsage`);
  const cents = (v: unknown) => Number((v as number).toFixed(8));
  assert.equal(cents(row(blade).costUSD), cents(row(claude).costUSD), `${where}: costUSD`);
  assert.equal(cents(blade.total_cost_usd), cents(claude.total_cost_usd), `${where}: total_cost_usd`);
}

function parseLines(text: string): Json[] {
  return text.trim().split("\n").map((l) => JSON.parse(l) as Json);
}

async function runBlade(sandbox: BladeSandbox, c: Conversation, format: string[]): Promise<string> {
  await Deno.remove(sandbox.workspace, { recursive: true });
  await Deno.mkdir(sandbox.workspace);
  for (const [file, text] of Object.entries(c.files)) {
    await Deno.writeTextFile(`${sandbox.workspace}/${file}`, text);
  }
  await using server = startFakeAnthropicServer({ handler: c.handler(sandbox.workspace) });
  const run = await sandbox.run([
    "-p",
    c.prompt,
    ...format,
    "--trust-workspace",
    "--model",
    "claude-opus-5-5",
    ...c.flags,
  ], {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key" },
  });
  assert.ok(run.stdout.trim() !== "", `${c.name}: no output (exit ${run.code}): ${run.stderr}`);
  return run.stdout.replaceAll(sandbox.workspace, "/WORKSPACE");
}

/** The order of line kinds, as compared: Claude Code's own kinds dropped, its repeats merged. */
function skeleton(conversation: string, lines: Json[], mainOnly: boolean): string[] {
  const kinds = lines.map(kind).filter((k) => !claudeOnly(conversation, k))
    .filter((k) => !mainOnly || (!k.endsWith("@sub") && !k.startsWith("system/task_")));
  // Claude Code repeats system/init and result for the turn a background notice starts; Blade sends
  // one session: drop the repeats (everything after the first init, the last result of each run).
  // For delegations, Claude Code also answers once more after each notice of its (always backgrounded)
  // agent: consecutive lines of one kind are merged there.
  const out: string[] = [];
  for (const k of kinds) {
    if (k === "system/init" && out.includes(k)) continue;
    if (k === "result" && out.at(-1) === "result") continue;
    if (mainOnly && out.at(-1) === k) continue;
    out.push(k);
  }
  return out;
}

for (const c of CONVERSATIONS) {
  Deno.test(`golden (${c.name}): Blade's json and stream-json have Claude Code's fields, types and order`, async () => {
    await using sandbox = await bladeSandbox();
    const claudeJson = JSON.parse(await Deno.readTextFile(`${FIXTURES}${c.name}/json.json`)) as Json;
    const bladeJson = JSON.parse(await runBlade(sandbox, c, ["--output-format", "json"])) as Json;
    assertResultShape(`${c.name} json`, claudeJson, bladeJson);
    if (c.sameUsage === true) assertSameUsage(c.name, claudeJson, bladeJson);
    const delegation = c.name === "foreground" || c.name === "background";
    // Claude Code counts one turn more when a call was refused (documented: migrating-from-claude-code.md).
    const refusedTurn = c.name === "permission_denied" ? 1 : 0;
    if (!delegation) {
      assert.equal(Number(bladeJson.num_turns) + refusedTurn, claudeJson.num_turns, `${c.name}: num_turns`);
    }
    if (claudeJson.result !== undefined) {
      assert.equal(bladeJson.result, claudeJson.result, `${c.name}: result`);
    }

    const claude = parseLines(await Deno.readTextFile(`${FIXTURES}${c.name}/stream.jsonl`));
    const blade = parseLines(await runBlade(sandbox, c, ["--output-format", "stream-json", "--verbose"]));
    // Claude Code 2.1.332 runs every Agent call in the background, so the main session's order is
    // compared for delegations; the subagent's lines and task events are compared by kind.
    assert.deepEqual(
      skeleton(c.name, blade, delegation),
      skeleton(c.name, claude, delegation),
      `${c.name}: line order`,
    );
    if (delegation) {
      const kinds = (ls: Json[]) => new Set(ls.map(kind).filter((k) => !claudeOnly(c.name, k)));
      for (const k of [...kinds(claude)].filter((k) => k.startsWith("system/task_") || k.endsWith("@sub"))) {
        assert.ok(kinds(claude).has(k) && kinds(blade).has(k), `${c.name}: both send ${k}`);
      }
    }
    for (const line of claude) {
      const k = kind(line);
      if (claudeOnly(c.name, k)) continue;
      const twin = blade.find((b) => kind(b) === k);
      assert.ok(twin !== undefined, `${c.name}: Blade sends no ${k} line`);
      const where = `${c.name} ${k}`;
      if (k === "result") {
        assertResultShape(where, line, blade.at(-1)!);
        continue;
      }
      assertSameFields(where, line, twin, CLAUDE_ONLY[k.replace(/@sub$/, "")] ?? []);
      if (typeof line.message === "object" && line.message !== null) {
        const m = line.message as Json;
        assertSameFields(`${where}.message`, m, twin.message as Json, CLAUDE_ONLY.message);
        const blocks = (x: Json) => (x.content as Json[]);
        if (Array.isArray(m.content)) {
          const cb = blocks(m)[0]!;
          const bb = blocks(twin.message as Json).find((b) => b.type === cb.type);
          if (bb !== undefined) assertSameFields(`${where}.content`, cb, bb, ["content"]);
        }
      }
    }
    assert.equal(kind(blade.at(-1)!), "result");
  });
}
