// Owns print mode's result object in Claude Code's shape (`--output-format json`, the last line of
// stream-json): the same field names and meanings as `claude -p` 2.1.332, plus Blade's extras
// (`subagents`, `error {code, message, hint}`, `agent_id`, `tool_calls`, `cost_unknown`). Also the
// result object of a failure before any run started. Field list: docs/guides/migrating-from-claude-code.md.

import type { BladeError } from "../errors.ts";
import { emptyUsage, type Usage } from "../protocol/messages.ts";
import type { PrintSummary } from "./print_render.ts";
import type { RunLedger } from "./run_ledger.ts";

export type ResultSubtype =
  | "success"
  | "error_max_turns"
  | "error_max_budget_usd"
  | "error_during_execution"
  | "error_max_structured_output_retries";

export function subtypeOf(s: Pick<PrintSummary, "status" | "error" | "apiError">): ResultSubtype {
  // Claude Code ends a run the API refused with subtype success, is_error true and terminal_reason api_error.
  if (s.status === "completed" || s.apiError !== undefined) return "success";
  if (s.error?.code === "max_turns_exceeded") return "error_max_turns";
  if (s.error?.code === "max_budget_exceeded") return "error_max_budget_usd";
  if (s.error?.code === "structured_output_retries_exhausted") return "error_max_structured_output_retries";
  return "error_during_execution";
}

function terminalReason(s: PrintSummary): string {
  if (s.status === "completed") return "completed";
  if (s.apiError !== undefined) return "api_error";
  if (s.status === "cancelled") return "aborted";
  if (s.error?.code === "max_turns_exceeded") return "max_turns";
  if (s.error?.code === "max_budget_exceeded") return "max_budget_usd";
  if (s.error?.code === "structured_output_retries_exhausted") return "structured_output_retry_exhausted";
  return "error";
}

/** Claude Code's `usage`: input tokens without the prompt cache, whose reads and writes are apart. */
function usageObject(u: Usage): Record<string, unknown> {
  return {
    input_tokens: u.inputTokens,
    cache_creation_input_tokens: u.cacheCreationInputTokens ?? 0,
    cache_read_input_tokens: u.cacheReadInputTokens ?? 0,
    output_tokens: u.outputTokens,
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: "standard",
  };
}

/** The result object of a run. `uuid` is a fresh id for this line. */
export function claudeResult(s: PrintSummary, ledger: RunLedger, uuid: string): Record<string, unknown> {
  const isError = s.status !== "completed";
  const errorText = s.apiError?.text ?? s.error?.message ??
    (isError ? "The run did not complete." : undefined);
  const modelUsage: Record<string, unknown> = {};
  for (const [model, row] of ledger.modelUsage) modelUsage[model] = { ...row };
  return {
    type: "result",
    subtype: subtypeOf(s),
    is_error: isError,
    duration_ms: s.durationMs,
    duration_api_ms: ledger.apiMs,
    num_turns: s.numTurns,
    // Claude Code puts the error text here on failure; Blade does the same (and in `errors`).
    result: isError ? errorText : s.result,
    stop_reason: s.apiError === undefined ? ledger.stopReason : "stop_sequence",
    session_id: s.sessionId,
    total_cost_usd: ledger.totalCostUSD,
    usage: usageObject(s.usage),
    modelUsage,
    permission_denials: ledger.permissionDenials,
    terminal_reason: terminalReason(s),
    api_error_status: s.apiErrorStatus ?? null,
    ...(s.apiError?.type === undefined ? {} : { api_error_type: s.apiError.type }),
    uuid,
    ...(isError ? { errors: [errorText] } : {}),
    ...(s.structuredOutput === undefined ? {} : { structured_output: s.structuredOutput }),
    // Blade's extras.
    ...(s.error === undefined ? {} : { error: s.error }),
    ...(s.agentId === undefined ? {} : { agent_id: s.agentId }),
    ...(s.lineage === undefined ? {} : s.lineage),
    tool_calls: s.toolCalls,
    ...(ledger.unpriced.size === 0 ? {} : { cost_unknown: true, cost_unknown_models: [...ledger.unpriced] }),
    ...(s.subagents === undefined ? {} : { subagents: s.subagents }),
    ...(s.verdict === undefined ? {} : verdictFields(s.verdict)),
  };
}

/** `verdict`, `summary`, `findings` of a verification run (docs/guides/ci.md); null when none was given. */
function verdictFields(v: NonNullable<PrintSummary["verdict"]> | null): Record<string, unknown> {
  if (v === null) return { verdict: null, summary: null, findings: [] };
  return { verdict: v.verdict, summary: v.summary ?? "", findings: v.findings ?? [] };
}

/**
 * The result object of a run that failed with `error`: before it started (bad flag, missing key, bad
 * settings; `sessionId` null) or after its session was opened (a full disk mid-run).
 */
export function claudeFailureResult(
  error: BladeError,
  uuid: string,
  sessionId: string | null = null,
): Record<string, unknown> {
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    duration_ms: 0,
    duration_api_ms: 0,
    num_turns: 0,
    result: error.message,
    stop_reason: null,
    session_id: sessionId,
    total_cost_usd: 0,
    usage: usageObject(emptyUsage()),
    modelUsage: {},
    permission_denials: [],
    terminal_reason: "error",
    api_error_status: null,
    uuid,
    errors: [error.message],
    error: error.toJSON(),
  };
}
