// Owns what one run of the agent loop (loop.ts) takes and gives back: the turn's input (messages,
// deliveries, acknowledgements, a prelude) and the run's result (status, error, conversation, usage).

import type { Message, ToolCallBlock, Usage } from "../protocol/messages.ts";
import type { ProviderError } from "../protocol/provider.ts";
import type { NewTranscriptEvent } from "../protocol/events.ts";
import type { Delivery } from "../protocol/delivery.ts";
import type { ToolResult } from "../tools/tool.ts";

export type RunStatus = "completed" | "failed" | "cancelled";

export interface RunError {
  type:
    | "max_turns_exceeded"
    | "provider_error"
    | "cancelled"
    | "structured_output_retries_exhausted"
    | "compaction_failed";
  message: string;
  providerError?: ProviderError;
}

export interface RunResult {
  status: RunStatus;
  /** The whole conversation after the run. */
  messages: Message[];
  /** The model's last text of this run. */
  finalText: string;
  error?: RunError;
  usage: Usage;
  toolCalls: number;
  modelRequests: number;
  durationMs: number;
  /** Tool results with metadata, in call order (used for modified files, verification evidence). */
  toolResults: { call: ToolCallBlock; result: ToolResult }[];
  /**
   * A UserPromptSubmit hook blocked the prompt: it was not sent nor written; `message` is what the
   * user is told (also the run's `finalText` when no turn ran), `reason` the hook's own words.
   */
  blocked?: { message: string; reason: string };
  /**
   * A shouldStop hook completed the run after a step that called tools (a hook's `continue: false`, an
   * accepted StructuredOutput): the model's next turn was never asked (Claude Code counts it).
   */
  stoppedAfterTools?: true;
}

export interface TurnInput {
  /** Messages to append before the model is asked (the user prompt). */
  messages: Message[];
  /**
   * The user's prompt as typed, when the turn opens with one (a turn of notices alone has none): the
   * `onUserPrompt` hook point sees it and may block it.
   */
  prompt?: string;
  /** Completion notices delivered with the turn's opening batch (hidden message + receipt parts). */
  deliveries?: Delivery[];
  /** Inbox ids already in the transcript but not yet acknowledged (e.g. after a restart). */
  acknowledge?: string[];
  /** Events written in the same batch, before turn_started (a new child's session_created). */
  prelude?: NewTranscriptEvent[];
}
