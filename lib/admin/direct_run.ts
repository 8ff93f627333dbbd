// Owns `blade run <agent>`'s run as a domain operation: one child launched as if an ad-hoc parent
// session had called Task. The parent's transcript records the delegation like a Task call would
// (turn started, the user line, the assistant's Task call, then the tool result and the turn's end),
// a detached copy (`--agent-id`) waits for its background run, and the outcome carries the child's
// final text, its error, and its model usage with input and output tokens counted apart (taken from
// the child's own `turn_completed` events); a run during which work was lost (a `runtime_warning`
// marked `workLost`) fails. Does not parse flags, build the runtime or print
// (lib/cli/run_cmd.ts does).

import { lostWorkFailure, type RunFailureCode } from "../executor/run_outcome.ts";
import type { Ids } from "../sys/ids.ts";
import type { RuntimeEvent, RuntimeWarning } from "../protocol/events.ts";
import { addUsage, emptyUsage, type Usage, userText } from "../protocol/messages.ts";
import type { SidecarStore } from "../store/store.ts";
import type { SidecarResult } from "../store/schema.ts";
import type { TranscriptWriter } from "../session/transcript.ts";
import type { ToolResult } from "../tools/tool.ts";
import { messageEvents } from "../session/events.ts";
import type { TaskRequest } from "../tools/task.ts";
import { AGENT_TOOL } from "../protocol/tool_names.ts";

/** Sums the model usage of one child from the runtime events its parent's sink receives. */
export class ChildUsage {
  #agentId: string;
  #usage: Usage = emptyUsage();

  constructor(agentId: string) {
    this.#agentId = agentId;
  }

  observe(event: RuntimeEvent): void {
    if (event.type !== "subagent_event" || event.agentId !== this.#agentId) return;
    const inner = event.event;
    if (inner.type === "turn_completed" && inner.sessionId === this.#agentId) {
      this.#usage = addUsage(this.#usage, inner.usage);
    }
  }

  get usage(): Usage {
    return { ...this.#usage };
  }
}

export interface DirectRunDeps {
  ids: Ids;
  transcript: Pick<TranscriptWriter, "append">;
  /** Task's launch, bound to the ad-hoc parent's tool context. */
  launch(input: TaskRequest): Promise<ToolResult>;
  store: Pick<SidecarStore, "load">;
  /** Waits until a background run of this process has ended. */
  waitBackground(id: string): Promise<void>;
}

export interface DirectRunRequest {
  agent: string;
  prompt: string;
  description: string;
  agentId: string;
  callId: string;
  /** A detached copy of `blade run --background`: the child runs as a background run of this parent. */
  background: boolean;
  interrupted(): boolean;
  usage: ChildUsage;
  /** The first runtime warning of the run marked `workLost`, if any: such a run never reports success. */
  lostWork(): RuntimeWarning | undefined;
}

export interface DirectRunOutcome {
  status: "completed" | "failed" | "cancelled";
  /** The child's final text from its sidecar ("" when none). */
  result: string;
  /** Why it failed, when it did. */
  error?: string;
  /** The stable code of that failure: the lost-work warning's code, else absent (the child failed). */
  errorCode?: RunFailureCode;
  toolCalls: number;
  durationMs: number;
  usage: Usage;
  /** A verification agent's verdict, when it gave one. */
  verdict?: NonNullable<SidecarResult["verificationVerdict"]>;
}

interface Stats {
  tokens: number;
  toolCalls: number;
  durationMs: number;
}

export async function runDirect(deps: DirectRunDeps, req: DirectRunRequest): Promise<DirectRunOutcome> {
  const { agentId: id, callId } = req;
  const input: TaskRequest = {
    subagent_type: req.agent,
    description: req.description,
    prompt: req.prompt,
    subagent_session_id: id,
    ...(req.background ? { run_in_background: true } : {}),
  };
  await deps.transcript.append([
    { type: "turn_started", data: { turn: 1 } },
    ...messageEvents(deps.ids, userText(`blade run ${req.agent}`)),
    ...messageEvents(deps.ids, {
      role: "assistant",
      content: [{ type: "tool_call", id: callId, name: AGENT_TOOL, input }],
    }),
  ]);
  let result = await deps.launch(input);
  if (req.background && !result.isError) {
    await deps.waitBackground(id);
    const r = await recordOf(deps, id);
    result = {
      content: r?.result.message ?? "",
      isError: r?.status !== "completed",
      metadata: { stats: r?.stats ?? { tokens: 0, toolCalls: 0, durationMs: 0 } },
    };
  }
  await deps.transcript.append([
    ...messageEvents(deps.ids, {
      role: "user",
      content: [{ type: "tool_result", callId, content: result.content, isError: result.isError }],
    }, { parts: result.parts ?? [] }),
    result.isError
      ? { type: "turn_aborted", data: { turn: 1, cause: req.interrupted() ? "cancelled" : "failed" } }
      : {
        type: "turn_completed",
        data: { turn: 1, turns: 0, toolCalls: 1, durationMs: 0, usage: { inputTokens: 0, outputTokens: 0 } },
      },
  ]);
  const stats = (result.metadata as { stats?: Stats } | undefined)?.stats ??
    { tokens: 0, toolCalls: 0, durationMs: 0 };
  const record = await recordOf(deps, id);
  // Work that could not reach its parent turns a success into a failure (docs/reference/background.md).
  const lost = result.isError ? undefined : req.lostWork();
  const failure = result.isError
    ? { error: record?.result.error ?? result.content }
    : lost === undefined
    ? {}
    : { error: lost.message, errorCode: lostWorkFailure(lost).code };
  return {
    status: result.isError
      ? (req.interrupted() ? "cancelled" : "failed")
      : lost === undefined
      ? "completed"
      : "failed",
    result: record?.result.message ?? "",
    ...failure,
    toolCalls: stats.toolCalls,
    durationMs: stats.durationMs,
    usage: req.usage.usage,
    ...(record?.result.verificationVerdict === undefined
      ? {}
      : { verdict: record.result.verificationVerdict }),
  };
}

async function recordOf(deps: DirectRunDeps, id: string) {
  const loaded = await deps.store.load(id);
  return loaded !== null && "record" in loaded ? loaded.record : undefined;
}
