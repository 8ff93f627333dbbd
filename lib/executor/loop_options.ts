// Owns what one session's agent loop (loop.ts) is built with: its model, transcript and journal, tools,
// the policy they run under (ToolPolicy), its hook points (LoopHooks) and its limits.

import type { ToolSpec } from "../protocol/messages.ts";
import type { ModelRequest, Provider, RequestMeta } from "../protocol/provider.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import type { TranscriptLog } from "../session/transcript.ts";
import type { Ports } from "../sys/mod.ts";
import type { AnyTool, LiveTools } from "../tools/tool.ts";
import type { PendingWork } from "../protocol/delivery.ts";
import type { Approver } from "../protocol/approval.ts";
import type { ToolPolicy } from "./tool_runner.ts";
import type { LoopHooks } from "./hooks.ts";
import type { LoopJournal } from "./journal.ts";
import type { RequestContext } from "./request_context.ts";

/** The request options a session may set for itself (unset: the run's, else the model's). */
export type ModelOptions = Pick<ModelRequest, "effort" | "thinkingBudget" | "thinkingDisplay">;

/**
 * A session's loop: its model, transcript, tools, the policy they run under (ToolPolicy) and its hook
 * points (LoopHooks; several sources are combined with `mergeHooks`).
 */
export interface LoopOptions extends ToolPolicy, LoopHooks, RequestContext {
  ports: Ports;
  provider: Provider;
  transcript: TranscriptLog;
  /** Where steps become durable; default: the transcript (`transcriptJournal`). */
  journal?: LoopJournal | undefined;
  /**
   * The session's tools. A promise lets a child start its first model request while the tool
   * modules (and zod) still load; `specs` must then describe them.
   */
  tools: readonly AnyTool[] | PromiseLike<readonly AnyTool[]>;
  /** The tools as the model sees them, when already known (saves converting the schemas again). */
  specs?: ToolSpec[] | undefined;
  /** Tools that can change between model requests (MCP servers); offered after `tools`. */
  live?: LiveTools | undefined;
  system: string;
  model: string;
  maxTokens: number;
  /** This session's own model options (an agent's `effort`, the Agent SDK's thinking budget). */
  modelOptions?: ModelOptions | undefined;
  meta: RequestMeta;
  emit: RuntimeEventSink;
  /** Model requests allowed in one run before it ends with `max_turns_exceeded`. */
  maxTurns?: number | undefined;
  /** This session's background children: notices arriving mid-turn are delivered before the next request. */
  pending?: PendingWork | undefined;
  /** Who approves a call the gate would refuse but a person may allow (the interactive session). */
  approve?: Approver | undefined;
}
