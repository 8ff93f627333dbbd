// Owns what print mode learns from a run's events for its result object: tokens and cost per model
// (every depth), time spent waiting on the model, the main session's last stop reason, the calls the
// permission gate refused (`permission_denials`) and subagent counts. Pure bookkeeping over the one
// event vocabulary; the json and stream-json renderers read it. Also how many calls that may change
// something ran, so a run all of whose requested work was refused is not reported as a success.

import type { RuntimeEvent } from "../protocol/events.ts";
import type { Usage } from "../protocol/messages.ts";
import { costUSD } from "../config/prices.ts";
import { countSubagents, emptySubagentStats, type SubagentStats } from "./print_render.ts";

export interface ModelUsageRow {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
}

export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

/** Tools that only look (their calls are not work a run was asked to do). */
const READ_ONLY_TOOLS = new Set(["Read", "Glob", "Grep", "TaskOutput", "StructuredOutput", "Skill"]);

export class RunLedger {
  readonly modelUsage = new Map<string, ModelUsageRow>();
  readonly permissionDenials: PermissionDenial[] = [];
  readonly subagents: SubagentStats = emptySubagentStats();
  /** Models without a price row (their cost counts as 0). */
  readonly unpriced = new Set<string>();
  apiMs = 0;
  stopReason: string | null = null;
  /** Calls that may change something (not one of READ_ONLY_TOOLS): run, and refused by a gate. */
  workDone = 0;
  workRefused = 0;
  #inputs = new Map<string, Record<string, unknown>>();

  #count(model: string, usage: Usage): void {
    const row = this.modelUsage.get(model) ?? {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      costUSD: 0,
    };
    row.inputTokens += usage.inputTokens;
    row.outputTokens += usage.outputTokens;
    row.cacheReadInputTokens += usage.cacheReadInputTokens ?? 0;
    row.cacheCreationInputTokens += usage.cacheCreationInputTokens ?? 0;
    const cost = costUSD(model, usage);
    if (cost === undefined) this.unpriced.add(model);
    row.costUSD += cost ?? 0;
    this.modelUsage.set(model, row);
  }

  /** Feed every event of the run (subagent events included: they are unwrapped here). */
  add(event: RuntimeEvent, depth = 0): void {
    if (depth === 0) countSubagents(this.subagents, event);
    switch (event.type) {
      case "subagent_event":
        this.add(event.event, depth + 1);
        return;
      case "assistant_message":
        if (depth === 0 && event.stopReason !== undefined) this.stopReason = event.stopReason;
        this.apiMs += event.apiMs ?? 0;
        if (event.model !== undefined && event.usage !== undefined) this.#count(event.model, event.usage);
        return;
      case "compacted":
        // The summary request costs as an answer does (Claude Code counts it in modelUsage and the cost).
        this.#count(event.model, event.usage);
        return;
      case "tool_started":
        this.#inputs.set(event.callId, event.input);
        return;
      case "tool_completed":
        // A hook's refusal is the user's own policy, not a grant the run lacked: Claude Code 2.1.332's run
        // succeeds (tests/fixtures/claude/hooks_prompt_pretool), and so does Blade's.
        if (!READ_ONLY_TOOLS.has(event.name) && event.byHook !== true) {
          if (event.denied === true) this.workRefused++;
          else this.workDone++;
        }
        if (event.denied === true) {
          this.permissionDenials.push({
            tool_name: event.name,
            tool_use_id: event.callId,
            tool_input: this.#inputs.get(event.callId) ?? {},
          });
        }
        return;
      default:
        return;
    }
  }

  get totalCostUSD(): number {
    let total = 0;
    for (const row of this.modelUsage.values()) total += row.costUSD;
    return total;
  }
}
