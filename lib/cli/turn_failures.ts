// Owns the facts of two ways a print-mode turn ends that Claude Code's scripts depend on: a run all of
// whose requested work was refused (executor/run_outcome.ts decides it fails), and a run the model API
// refused (`API Error: 400 …`, terminal_reason api_error). Pure: from the run's ledger and error.

import type { App } from "../app.ts";
import type { ProviderError } from "../protocol/provider.ts";
import type { PrintSummary } from "./print_render.ts";
import type { RunLedger } from "./run_ledger.ts";
import type { RefusedWork } from "../executor/run_outcome.ts";

/**
 * Every call that would have changed something was refused: the tools refused and how many calls, for
 * the domain's decision (executor/run_outcome.ts: such a run never reports success).
 */
export function refusedWork(ledger: RunLedger): RefusedWork | undefined {
  if (ledger.workRefused === 0 || ledger.workDone > 0) return undefined;
  const denials = ledger.permissionDenials;
  return { tools: [...new Set(denials.map((d) => d.tool_name))], calls: denials.length };
}

/** The Agent SDK's `SDKAssistantMessageError` of a failure (Claude Code says `unknown` for a plain 400). */
const SDK_ERRORS: Partial<Record<ProviderError["kind"], string>> = {
  auth: "authentication_failed",
  rate_limit: "rate_limit",
  overloaded: "overloaded",
  server: "server_error",
};

/** A model API failure with a status, as Claude Code reports it (`API Error: 400 …`, its error type). */
export function apiErrorOf(e: ProviderError | undefined, app: Pick<App, "redact">): Partial<PrintSummary> {
  if (e?.status === undefined) return {};
  const text = app.redact(`API Error: ${e.status} ${e.api?.message ?? e.message}`);
  const error = SDK_ERRORS[e.kind] ?? "unknown";
  return {
    apiErrorStatus: e.status,
    apiError: { text, status: e.status, error, ...(e.api?.type === undefined ? {} : { type: e.api.type }) },
  };
}
