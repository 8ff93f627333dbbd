// Owns the one event vocabulary: the durable transcript events (docs/reference/sessions.md) and the live runtime events
// that the executor, the run layer, the progress renderer and `--output-format stream-json` share. No I/O.

import type { ContentBlock, Message, Usage } from "./messages.ts";
import type { ApprovalAnswer } from "./approval.ts";
import type { StopReason } from "./provider.ts";

// ---------------------------------------------------------------- transcript (durable) -----------

export type TurnAbortCause = "failed" | "cancelled" | "interrupted" | "process_restart";

export interface Lineage {
  rootAgentId: string;
  resumedFrom?: string;
  resumeDepth: number;
}

export type SubtaskState = "running" | "completed" | "failed" | "cancelled";

export interface SubtaskRefPart {
  type: "subtask_ref";
  callId: string;
  agentId: string;
  subagentType: string;
  description: string;
  background: boolean;
  state: SubtaskState;
  lineage: Lineage;
}

export type TranscriptPart = ContentBlock | SubtaskRefPart;

export interface TranscriptEventData {
  session_created: {
    agentType: string;
    model: string;
    parentSessionId?: string;
    relation?: "subagent";
    lineage?: Lineage;
    depth: number;
    /** What the agent asked for beyond its parent and did not get (the capability ceiling). */
    capped?: string[];
  };
  turn_started: { turn: number };
  turn_completed: { turn: number; turns: number; toolCalls: number; durationMs: number; usage: Usage };
  turn_aborted: { turn: number; cause: TurnAbortCause; reason?: string };
  message_created: {
    messageId: string;
    role: Message["role"];
    hidden?: boolean;
    inboxId?: string;
    /**
     * Finalization receipt: this assistant message ends its turn (no tool calls). A crash before the
     * turn's `turn_completed` is then recovered as a completed turn, not an interrupted one.
     */
    final?: true;
    /** This tool-result message was adopted from a child's sidecar after a restart (not run again). */
    adopted?: true;
  };
  part_created: { messageId: string; partId: string; part: TranscriptPart };
  inbox_acknowledged: { inboxIds: string[] };
  /** A person answered an approval question for one tool call (the interactive session). */
  approval_decided: {
    callId: string;
    tool: string;
    subject: string;
    answer: ApprovalAnswer;
    /** The approver's reason, as the model was told it. */
    message?: string;
    /** The input the call ran with, as the approver changed it. */
    updatedInput?: Record<string, unknown>;
  };
  /**
   * The conversation was compacted (docs/reference/limits.md, "Compaction"): from here on it is
   * `messages` — the summary's message, then the most recent messages kept word for word. One event,
   * so a crash leaves the history before it or after it, never a mix.
   */
  compact_boundary: {
    trigger: CompactTrigger;
    /** Context tokens before the compaction. */
    preTokens: number;
    messages: Message[];
  };
}

/** Why a conversation was compacted: near its window or on "prompt is too long" (auto), or asked (manual). */
export type CompactTrigger = "auto" | "manual";

export type TranscriptEventType = keyof TranscriptEventData;

export const TRANSCRIPT_EVENT_TYPES: readonly TranscriptEventType[] = [
  "session_created",
  "turn_started",
  "turn_completed",
  "turn_aborted",
  "message_created",
  "part_created",
  "inbox_acknowledged",
  "approval_decided",
  "compact_boundary",
];

export interface TranscriptEnvelope<T extends TranscriptEventType = TranscriptEventType> {
  seq: number;
  id: string;
  sessionId: string;
  projectPath: string;
  timestamp: string;
  type: T;
  data: TranscriptEventData[T];
}

export type TranscriptEvent = { [K in TranscriptEventType]: TranscriptEnvelope<K> }[TranscriptEventType];

/** What a writer supplies; the transcript assigns seq, id, timestamp. */
export type NewTranscriptEvent = { [K in TranscriptEventType]: { type: K; data: TranscriptEventData[K] } }[
  TranscriptEventType
];

// ---------------------------------------------------------------- runtime (live) ---------------

export interface SubagentInfo {
  session_id: string;
  subagent_type: string;
  description: string;
  background: boolean;
  root_agent_id: string;
  resumed_from: string | null;
  resume_depth: number;
}

export type RuntimeEvent =
  | {
    type: "session_started";
    sessionId: string;
    agentType: string;
    model: string;
    depth: number;
    /** Top-level sessions: the tool names, subagent types and permission mode the session starts with. */
    tools?: string[];
    agents?: string[];
    permissionMode?: string;
    /** Top-level sessions: the run's MCP servers and whether each connected (Claude Code's `mcp_servers`). */
    mcpServers?: { name: string; status: string }[];
  }
  | { type: "turn_started"; sessionId: string; turn: number }
  | { type: "text_delta"; sessionId: string; text: string }
  | { type: "retry"; sessionId: string; attempt: number; delayMs: number; reason: string }
  | {
    type: "assistant_message";
    sessionId: string;
    message: Message;
    /** The model that answered, why it stopped, what this one request used and how long it took. */
    model?: string;
    stopReason?: StopReason;
    usage?: Usage;
    apiMs?: number;
  }
  | { type: "tool_started"; sessionId: string; callId: string; name: string; input: Record<string, unknown> }
  | {
    type: "tool_completed";
    sessionId: string;
    callId: string;
    name: string;
    isError: boolean;
    content: string;
    /** The permission gate refused the call (it never ran). */
    denied?: boolean;
    /** With `denied`: the allow rule that would approve the call, when one would. */
    allowWith?: string;
    /** With `denied`: a PreToolUse hook refused it (docs/guides/hooks.md), not the permission rules. */
    byHook?: boolean;
  }
  | { type: "turn_completed"; sessionId: string; turn: number; usage: Usage }
  | {
    type: "compacted";
    sessionId: string;
    trigger: CompactTrigger;
    /** Context tokens before and (estimated) after. */
    preTokens: number;
    postTokens: number;
    durationMs: number;
    /** Messages kept word for word after the summary. */
    kept: number;
    /** The summary request's model and usage (counted in the run's cost like an answer's). */
    model: string;
    usage: Usage;
    /** What the compaction's PreCompact hooks show the user (docs/guides/hooks.md). */
    said?: string[] | undefined;
  }
  | { type: "turn_aborted"; sessionId: string; turn: number; cause: TurnAbortCause; reason?: string }
  | { type: "subagent_spawned"; parentSessionId: string; callId: string; subagent: SubagentInfo }
  | { type: "subagent_event"; parentSessionId: string; agentId: string; event: RuntimeEvent }
  | {
    type: "subagent_completed";
    parentSessionId: string;
    callId: string;
    subagent: SubagentInfo;
    state: SubtaskState;
    success: boolean;
    summary: string;
    /** A verification agent's verdict (docs/reference/verification.md). */
    verdict?: { verdict: "pass" | "fail" | "partial"; summary?: string; findings?: string[] };
    /** The child's worktree, when it was isolated: where it is and whether it was kept. */
    worktree?: {
      path: string;
      branch: string;
      state: "active" | "kept" | "removed";
      changed_files?: number;
      commits?: number;
    };
  }
  /** A UserPromptSubmit hook blocked the user's prompt (docs/guides/hooks.md): nothing of it was sent. */
  | { type: "prompt_blocked"; sessionId: string; message: string; reason: string }
  /**
   * A Stop hook blocked the top-level session's end (docs/guides/hooks.md): `text` is its feedback as
   * Claude Code shows it (`Stop hook feedback:\n…`); the model gets it framed as a hook's words.
   */
  | { type: "stop_hook_feedback"; sessionId: string; text: string }
  /**
   * A `prompt` hook gave no usable answer (no JSON, a failure, its timeout): it did not check the
   * action, which went ahead (docs/guides/hooks.md; stream-json's `hook_no_verdict` line).
   */
  | {
    type: "hook_no_verdict";
    sessionId: string;
    event: string;
    toolUseId?: string | undefined;
    timedOut: boolean;
  }
  | HookRunEvent
  | RuntimeWarning;

/**
 * One hook's run starting or ending (docs/guides/hooks.md; stream-json's `hook_started` and
 * `hook_response` lines with `--include-hook-events`). `name` is Claude Code's (`PreToolUse:Bash`).
 */
export interface HookRunEvent {
  type: "hook_run";
  /** The top-level session the hook serves (a subagent's hooks name their root session). */
  sessionId: string;
  phase: "started" | "ended";
  hookId: string;
  name: string;
  event: string;
  /** When ended: what it printed (an Agent SDK callback: its JSON answer), how it ended. */
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  outcome?: "success" | "error" | "cancelled";
}

/**
 * Durable state that could not be written or delivered. Always reported (stderr in text mode, a
 * `system` line in stream-json); with `workLost` the run's result becomes an error.
 */
export interface RuntimeWarning {
  type: "runtime_warning";
  /** The session whose child (or own work) is affected. */
  sessionId: string;
  code: RuntimeWarningCode;
  message: string;
  agentId?: string;
  /** A child's end is not saved or its result cannot reach its parent: the run must not report success. */
  workLost: boolean;
  /** The cause's stack when it was not a BladeError (a bug, not an environment problem). */
  detail?: string;
}

export type RuntimeWarningCode =
  /** A child's first sidecar could not be written (a full disk): the child never started. */
  | "sidecar_create_failed"
  /** A child stopped because one of its own writes was refused (its transcript on a full disk). */
  | "child_write_failed"
  /** A child's terminal sidecar could not be committed (its record still says running). */
  | "sidecar_commit_failed"
  /** A background child's completion notice could not be put into its parent's inbox. */
  | "notice_dropped"
  /** A background run failed outside the child itself (the runtime's own bug or I/O). */
  | "background_run_crashed"
  /** Delivered notices could not be removed from the inbox; the transcript's receipts keep them from repeating. */
  | "inbox_trim_failed"
  /** A hook of the agent loop threw (its contract says it must not); the loop went on as if it had no opinion. */
  | "hook_failed"
  /** A running record's display-only state (activity time, queued mark) could not be written. */
  | "status_write_failed"
  /** An agent's own (inline) MCP server could not be started: that child runs without its tools. */
  | "mcp_server_unavailable";

export type RuntimeEventSink = (event: RuntimeEvent) => void;
