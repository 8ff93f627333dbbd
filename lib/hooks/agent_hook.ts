// Owns Claude Code's `agent` hooks (docs/guides/hooks.md): a verifier subagent judges the event — its
// task the hook's prompt with `$ARGUMENTS` replaced by the event's JSON input (prompt_hook.ts's
// withArguments), its instructions Claude Code 2.1.332's, its final answer `{ok, reason}` through the
// StructuredOutput tool — and what that answer means. Words and shapes recorded in
// tests/fixtures/claude/hooks_agent_*. Pure: the verifier runs as a child of the session (its grant
// computed from the session's, read-only: lib/run/hook_verifier.ts) through the session's AgentHookVerify.

import type { HookEvent } from "../protocol/hook_config.ts";
import type { HookVerdict } from "./hook_output.ts";
import { JUDGE_RULES, NO_VERDICT_IN_TIME, withArguments } from "./prompt_hook.ts";

/** Seconds an `agent` hook may take when it sets no `timeout` (Claude Code's default). */
export const DEFAULT_AGENT_HOOK_TIMEOUT_S = 60;

/** The verifier's answer, as Claude Code's StructuredOutput tool asks for it. */
export const AGENT_HOOK_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: {
    ok: { type: "boolean", description: "Whether the condition was met" },
    reason: { type: "string", description: "Reason, if the condition was not met" },
  },
  required: ["ok"],
  additionalProperties: false,
};

/**
 * The verifier's tools. Claude Code 2.1.332 offers its own (Bash, Edit, Write, Read, …) and its verifier
 * writes with the session's permissions (tests/fixtures/claude/hooks_agent_allow); Blade's verifier
 * inspects only: these tools, run as a read-only auditor (writes refused, Bash limited to read-only
 * commands), and never more than the session has.
 */
export const VERIFIER_TOOLS: readonly string[] = ["Read", "Grep", "Glob", "Bash"];

/** The agent type a verifier run is recorded under. */
export const VERIFIER_AGENT = "hook-verifier";

/** Corrections after a verifier ends without its answer (Claude Code sends one, then gives up). */
export const VERIFIER_RETRIES = 1;

/** One `agent` hook's verifier run. */
export interface AgentHookRequest {
  /** The verifier's instructions (its system prompt). */
  system: string;
  /** Its task: the hook's prompt with the event's input. */
  prompt: string;
  schema: Record<string, unknown>;
  tools: readonly string[];
  /** The hook's own `model`; undefined: the session's. */
  model?: string | undefined;
}

/** Runs a verifier: its accepted answer, or why there is none (`timedOut`: it was stopped by the hook's timeout). */
export type AgentHookVerify = (
  request: AgentHookRequest,
  o: { signal: AbortSignal },
) => Promise<{ answer: unknown } | { failed: string }>;

/** The verifier's system prompt for `event` (Claude Code's words; the transcript named by its path). */
export function verifierSystem(event: HookEvent, transcriptPath: string): string {
  return `You are evaluating a ${event} hook in Claude Code. Your task is to evaluate the condition described in the user message. The conversation transcript is available at: ${transcriptPath}
You can read this file to analyze the conversation history if needed.

Use the available tools to inspect the codebase and verify the condition.
Use as few steps as possible - be efficient and direct.

When done, return your result using the StructuredOutput tool, always with a reason.

${JUDGE_RULES}`;
}

/** The verifier run of an `agent` hook on `event` with the event's `input`. */
export function agentHookRequest(
  event: HookEvent,
  hook: { prompt: string; model?: string | undefined },
  o: { input: Record<string, unknown> },
): AgentHookRequest {
  const transcript = typeof o.input.transcript_path === "string" ? o.input.transcript_path : "";
  return {
    system: verifierSystem(event, transcript),
    prompt: withArguments(hook.prompt, o.input),
    schema: AGENT_HOOK_SCHEMA,
    tools: VERIFIER_TOOLS,
    model: hook.model,
  };
}

/**
 * What the verifier's answer means (tests/fixtures/claude/hooks_agent_*): `ok: true` lets the action go
 * ahead; `ok: false` blocks it with "Agent hook condition was not met: reason" (the run goes on: the
 * model reads the refusal); no answer (the verifier ended without one, failed, or ran out of time) gives
 * no verdict, said as Claude Code says it (that it did not answer in time).
 */
export function agentHookVerdict(answer: { answer: unknown } | { failed: string }): HookVerdict {
  const json = "answer" in answer ? answer.answer : undefined;
  if (typeof json !== "object" || json === null || typeof (json as { ok?: unknown }).ok !== "boolean") {
    return { error: NO_VERDICT_IN_TIME, noVerdict: { timedOut: true } };
  }
  const said = json as { ok: boolean; reason?: unknown };
  if (said.ok) return {};
  const reason = typeof said.reason === "string" && said.reason.trim() !== ""
    ? said.reason
    : "No reason given";
  return { block: `Agent hook condition was not met: ${reason}`, blockReason: reason };
}
