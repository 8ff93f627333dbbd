import assert from "node:assert/strict";
import {
  AGENT_HOOK_SCHEMA,
  agentHookRequest,
  agentHookVerdict,
  DEFAULT_AGENT_HOOK_TIMEOUT_S,
  VERIFIER_TOOLS,
} from "./agent_hook.ts";
import { NO_VERDICT_IN_TIME } from "./prompt_hook.ts";

// Claude Code's documented default (docs/guides/hooks.md).
Deno.test("agent hooks: 60 s unless the hook sets a timeout", () => {
  assert.equal(DEFAULT_AGENT_HOOK_TIMEOUT_S, 60);
});

Deno.test("agentHookVerdict: what the verifier's answer means (tests/fixtures/claude/hooks_agent_*)", () => {
  const cases: [string, Parameters<typeof agentHookVerdict>[0], ReturnType<typeof agentHookVerdict>][] = [
    ["ok: true lets the action go ahead", { answer: { ok: true, reason: "fine" } }, {}],
    ["ok: true without a reason", { answer: { ok: true } }, {}],
    [
      "ok: false blocks with Claude Code's words (the run goes on)",
      { answer: { ok: false, reason: "verifier says no" } },
      { block: "Agent hook condition was not met: verifier says no", blockReason: "verifier says no" },
    ],
    [
      "ok: false without a reason",
      { answer: { ok: false, reason: " " } },
      { block: "Agent hook condition was not met: No reason given", blockReason: "No reason given" },
    ],
    ["no answer (ended without one)", { failed: "no answer" }, {
      error: NO_VERDICT_IN_TIME,
      noVerdict: { timedOut: true },
    }],
    ["an answer that is not {ok}", { answer: { ok: "yes" } }, {
      error: NO_VERDICT_IN_TIME,
      noVerdict: { timedOut: true },
    }],
    ["a null answer", { answer: null }, { error: NO_VERDICT_IN_TIME, noVerdict: { timedOut: true } }],
  ];
  for (const [what, answer, want] of cases) assert.deepEqual(agentHookVerdict(answer), want, what);
});

Deno.test("agentHookRequest: the hook's prompt with the input, Claude Code's instructions, read-only tools", () => {
  const input = { session_id: "s", transcript_path: "/t/s.jsonl", hook_event_name: "PreToolUse" };
  const withArgs = agentHookRequest("PreToolUse", { prompt: "Check $ARGUMENTS now" }, { input });
  assert.equal(withArgs.prompt, `Check ${JSON.stringify(input)} now`);
  const appended = agentHookRequest("Stop", { prompt: "Tests pass.", model: "haiku" }, { input });
  assert.equal(appended.prompt, `Tests pass.\n\nARGUMENTS: ${JSON.stringify(input)}`);
  assert.equal(appended.model, "haiku");
  assert.ok(withArgs.system.startsWith("You are evaluating a PreToolUse hook in Claude Code."));
  assert.ok(appended.system.startsWith("You are evaluating a Stop hook in Claude Code."));
  assert.ok(withArgs.system.includes("The conversation transcript is available at: /t/s.jsonl\n"));
  assert.deepEqual(withArgs.schema, AGENT_HOOK_SCHEMA);
  // No tool that writes: the verifier inspects.
  assert.deepEqual([...withArgs.tools], ["Read", "Grep", "Glob", "Bash"]);
  assert.equal(VERIFIER_TOOLS.some((t) => ["Write", "Edit", "NotebookEdit", "Agent"].includes(t)), false);
});
