// Owns `--output-format stream-json`: Claude Code's message stream built from Blade's runtime events —
// `system/init`, one `assistant` line per content block (Anthropic shape), `user` lines with
// `tool_result` (after `system/permission_denied` for a refused call), subagent messages with
// `parent_tool_use_id` (and `agent_id`), `system` task events
// (`task_started`, `task_progress`, `task_updated`, `task_notification`, `background_tasks_changed`)
// carrying Blade's lineage as extra fields, `system/api_retry`,
// `stream_event` lines with --include-partial-messages, and the final `result` (claude_result.ts).
// Thinking blocks appear here (never in text output). Blade's own events: `--output-format blade-events`.

import type { RuntimeEvent, SubagentInfo } from "../protocol/events.ts";
import type { ContentBlock } from "../protocol/messages.ts";
import { VERSION } from "../version.ts";
import { claudeModeName, parsePermissionMode } from "../protocol/permission_mode.ts";
import { TaskLines } from "./claude_task_lines.ts";
import { hookLine, noVerdictLine, promptBlockedLine, stopFeedbackLines } from "./claude_hook_lines.ts";
import { AGENT_TOOL, isDelegationTool } from "../protocol/tool_names.ts";
import { modelInput } from "../protocol/assigned_input.ts";

export interface ClaudeStreamOptions {
  cwd: string;
  /** `--add-dir` folders. */
  additionalDirectories?: string[];
  includePartialMessages: boolean;
  /** `--include-hook-events`: each hook's `system/hook_started` and `system/hook_response` lines. */
  includeHookEvents?: boolean;
  /** Where the API key came from, as Claude Code names it (`ANTHROPIC_API_KEY`, `none`, …). */
  apiKeySource: string;
  uuid: () => string;
  /** Epoch milliseconds, for the `timestamp` of message lines. */
  now: () => number;
}

/** An Anthropic content block of a Blade message block (`tool_call` → `tool_use`). */
export function anthropicBlock(block: ContentBlock): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "tool_call":
      return { type: "tool_use", id: block.id, name: block.name, input: modelInput(block.name, block.input) };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_result":
      return {
        tool_use_id: block.callId,
        type: "tool_result",
        content: block.content,
        is_error: block.isError,
      };
  }
}

interface Scope {
  /** The Task call that started this session (null for the top-level session). */
  parentToolUseId: string | null;
  agent?: { id: string; subagentType: string; description: string };
}

function lineage(s: SubagentInfo, parentSessionId: string): Record<string, unknown> {
  return {
    parent_session_id: parentSessionId,
    root_agent_id: s.root_agent_id,
    resumed_from: s.resumed_from,
    resume_depth: s.resume_depth,
  };
}

type Line = Record<string, unknown>;
type Event<T extends RuntimeEvent["type"]> = Extract<RuntimeEvent, { type: T }>;

/** Turns runtime events into stream-json lines (without the final result line). */
export function claudeStream(o: ClaudeStreamOptions): ClaudeStream {
  return new ClaudeStream(o);
}

export class ClaudeStream {
  #o: ClaudeStreamOptions;
  #sessionId = "";
  #messageCount = 0;
  /** Task call id → the prompt it was given (task_started carries it). */
  #prompts = new Map<string, unknown>();
  /** Per session: the partial message being streamed (for stream_event lines). */
  #open = new Map<string, { started: boolean }>();
  /** Subagent id → the scope its messages carry (the Task call that started it). */
  #children = new Map<string, Scope>();
  /** The children's task lines: progress, updates, the background set (claude_task_lines.ts). */
  #tasks: TaskLines;
  /** `system/init`, held while the session's SessionStart and UserPromptSubmit hooks run (onEvent). */
  #heldInit: Line | undefined;
  /** The top-level Stop hooks' lines, held until the answer they judged is printed (onEvent). */
  #afterAnswer: string[] = [];

  constructor(o: ClaudeStreamOptions) {
    this.#o = o;
    this.#tasks = new TaskLines({ now: o.now, system: () => this.#system() });
  }

  /** A user message echoed back (`--replay-user-messages`). */
  userLine(text: string): string {
    return JSON.stringify({
      type: "user",
      message: { role: "user", content: [{ type: "text", text }] },
      parent_tool_use_id: null,
      session_id: this.#sessionId,
      uuid: this.#o.uuid(),
    });
  }

  /** Claude Code's `<synthetic>` assistant line: what the CLI itself says (an API error) as the answer. */
  syntheticLine(e: { text: string; status: number; type?: string; error: string }): string {
    return JSON.stringify({
      type: "assistant",
      message: {
        id: this.#o.uuid(),
        type: "message",
        role: "assistant",
        model: "<synthetic>",
        content: [{ type: "text", text: e.text }],
        stop_reason: "stop_sequence",
        stop_sequence: "",
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
      ...this.#base({ parentToolUseId: null }),
      error: e.error,
      is_api_error_message: true,
      api_error_status: e.status,
      ...(e.type === undefined ? {} : { api_error_type: e.type }),
    });
  }

  /**
   * The stream-json lines (JSON text, no newline) for one event, in Claude Code's order
   * (tests/fixtures/claude/hooks_events): the SessionStart and UserPromptSubmit hooks' lines before
   * `system/init`; the top-level Stop hooks' lines (and a block's feedback) after the answer they judged,
   * which Blade announces only once it is durable, after those hooks ran.
   */
  onEvent(event: RuntimeEvent): string[] {
    this.#track(event);
    const lines = this.#lines(event, { parentToolUseId: null }, 0).map((l) => JSON.stringify(l));
    if (lines.length === 0) return [];
    const hookOf = event.type === "hook_run" ? event.event : undefined;
    if (hookOf === "SessionStart" || hookOf === "UserPromptSubmit") return lines;
    const out = this.#takeInit();
    if (hookOf === "Stop" || event.type === "stop_hook_feedback") {
      this.#afterAnswer.push(...lines);
      return out;
    }
    out.push(...lines);
    if (event.type === "assistant_message") out.push(...this.#afterAnswer.splice(0));
    return out;
  }

  /** The lines still held (a `system/init`, Stop hooks' lines): the caller prints them before the result. */
  flush(): string[] {
    return [...this.#takeInit(), ...this.#afterAnswer.splice(0)];
  }

  #takeInit(): string[] {
    const init = this.#heldInit;
    this.#heldInit = undefined;
    return init === undefined ? [] : [JSON.stringify(init)];
  }

  #track(event: RuntimeEvent): void {
    if (event.type === "subagent_spawned") {
      this.#children.set(event.subagent.session_id, {
        parentToolUseId: event.callId,
        agent: {
          id: event.subagent.session_id,
          subagentType: event.subagent.subagent_type,
          description: event.subagent.description,
        },
      });
    } else if (event.type === "subagent_event") this.#track(event.event);
  }

  /** The fields every message line of `scope` carries. */
  #base(scope: Scope): Line {
    return {
      parent_tool_use_id: scope.parentToolUseId,
      ...(scope.agent === undefined ? {} : {
        agent_id: scope.agent.id,
        subagent_type: scope.agent.subagentType,
        task_description: scope.agent.description,
      }),
      session_id: this.#sessionId,
      uuid: this.#o.uuid(),
      timestamp: new Date(this.#o.now()).toISOString(),
    };
  }

  /** The fields a `system` task or warning line ends with. */
  #system(): Line {
    return { session_id: this.#sessionId, uuid: this.#o.uuid() };
  }

  #lines(event: RuntimeEvent, scope: Scope, depth: number): Line[] {
    switch (event.type) {
      case "session_started":
        if (depth > 0) return [];
        this.#sessionId = event.sessionId;
        // With hook lines, Claude Code prints the SessionStart and UserPromptSubmit hooks' lines before
        // `system/init` (tests/fixtures/claude/hooks_events): init waits for the first other line.
        if (this.#o.includeHookEvents === true) {
          this.#heldInit = this.#init(event);
          return [];
        }
        return [this.#init(event)];
      case "text_delta":
        return this.#o.includePartialMessages ? this.#delta(event, scope) : [];
      case "assistant_message":
        return [...this.#endPartial(event, scope), ...this.#assistant(event, scope)];
      case "tool_started":
        if (isDelegationTool(event.name)) this.#prompts.set(event.callId, event.input.prompt);
        return [];
      case "tool_completed":
        return [...this.#denied(event, depth), {
          type: "user",
          message: {
            role: "user",
            content: [anthropicBlock({
              type: "tool_result",
              callId: event.callId,
              content: event.content,
              isError: event.isError,
            })],
          },
          ...this.#base(scope),
        }];
      case "retry":
        return [{
          type: "system",
          subtype: "api_retry",
          attempt: event.attempt,
          retry_delay_ms: event.delayMs,
          error: event.reason,
          ...this.#base(scope),
        }];
      case "subagent_spawned":
        return [...this.#tasks.spawned(event.subagent), this.#taskStarted(event, scope, depth)];
      case "subagent_completed": {
        const ended = this.#tasks.completed(event.subagent.session_id, event.state);
        return [ended.updated, this.#taskNotification(event, ended.usage), ...ended.changed];
      }
      case "runtime_warning":
        return [{
          type: "system",
          subtype: "runtime_warning",
          code: event.code,
          message: event.message,
          ...(event.agentId === undefined ? {} : { task_id: event.agentId }),
          work_lost: event.workLost,
          ...this.#system(),
        }];
      case "hook_run":
        return this.#o.includeHookEvents === true ? [hookLine(event, this.#system())] : [];
      case "stop_hook_feedback":
        return depth > 0
          ? []
          : stopFeedbackLines(event, { base: this.#base({ parentToolUseId: null }), system: this.#system() });
      case "prompt_blocked":
        return [promptBlockedLine(event, this.#system())];
      case "hook_no_verdict":
        return depth > 0 ? [] : [noVerdictLine(event, this.#system())];
      case "subagent_event": {
        const inner: Scope = this.#children.get(event.agentId) ?? { parentToolUseId: null };
        return [
          ...this.#lines(event.event, inner, depth + 1),
          ...this.#tasks.progress(event.agentId, { event: event.event, toolUseId: inner.parentToolUseId }),
        ];
      }
      case "compacted":
        return this.#compacted(event, depth === 0 ? undefined : scope);
      default:
        return [];
    }
  }

  /**
   * Claude Code's `system/permission_denied` line before the refused call's result (top-level calls;
   * not for a hook's refusal, tests/fixtures/claude/hooks_events).
   */
  #denied(event: Event<"tool_completed">, depth: number): Line[] {
    if (event.denied !== true || event.byHook === true || depth > 0) return [];
    return [{
      type: "system",
      subtype: "permission_denied",
      tool_name: event.name,
      tool_use_id: event.callId,
      message: event.content,
      ...this.#system(),
    }];
  }

  /** The boundary line; at the top level, what the compaction's hooks show after it. */
  #compacted(event: Event<"compacted">, scope: Scope | undefined): Line[] {
    const said = scope === undefined ? event.said ?? [] : [];
    return [this.#compactBoundary(event, scope), ...said.map((text) => this.#replayed(text))];
  }

  /**
   * A local command's output as Claude Code replays it after `/compact` (a passing PreCompact hook's:
   * tests/fixtures/claude/hooks_precompact).
   */
  #replayed(text: string): Line {
    return {
      type: "user",
      message: { role: "user", content: `<local-command-stdout>${text}</local-command-stdout>` },
      ...this.#base({ parentToolUseId: null }),
      isReplay: true,
    };
  }

  /** Claude Code's boundary line; a subagent's carries its scope. */
  #compactBoundary(event: Event<"compacted">, scope: Scope | undefined): Line {
    return {
      type: "system",
      subtype: "compact_boundary",
      compact_metadata: {
        trigger: event.trigger,
        pre_tokens: event.preTokens,
        post_tokens: event.postTokens,
        duration_ms: event.durationMs,
      },
      ...(scope === undefined ? {} : { parent_tool_use_id: scope.parentToolUseId }),
      ...this.#system(),
    };
  }

  #init(event: Event<"session_started">): Line {
    const o = this.#o;
    return {
      type: "system",
      subtype: "init",
      cwd: o.cwd,
      session_id: event.sessionId,
      // Claude Code's init names the delegation tool `Task` (the Agent SDK's name) though the model sees `Agent`.
      tools: (event.tools ?? []).map((t) => t === AGENT_TOOL ? "Task" : t),
      mcp_servers: event.mcpServers ?? [],
      model: event.model,
      // Claude Code's names (acceptEdits, bypassPermissions): what the Agent SDK's types say.
      permissionMode: claudeName(event.permissionMode),
      slash_commands: [],
      apiKeySource: o.apiKeySource,
      output_style: "default",
      agents: event.agents ?? [],
      skills: [],
      plugins: [],
      uuid: o.uuid(),
      original_cwd: o.cwd,
      additional_directories: o.additionalDirectories ?? [],
      blade_version: VERSION,
    };
  }

  /** `stream_event` lines of a text delta, opening the partial message on its first delta. */
  #delta(event: Event<"text_delta">, scope: Scope): Line[] {
    const state = this.#open.get(event.sessionId) ?? { started: false };
    this.#open.set(event.sessionId, state);
    const out: Line[] = [];
    if (!state.started) {
      state.started = true;
      out.push({ type: "stream_event", event: { type: "message_start" }, ...this.#base(scope) });
      out.push({
        type: "stream_event",
        event: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        ...this.#base(scope),
      });
    }
    out.push({
      type: "stream_event",
      event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: event.text } },
      ...this.#base(scope),
    });
    return out;
  }

  /** The `stream_event` lines that close a partial message, when one was open. */
  #endPartial(event: Event<"assistant_message">, scope: Scope): Line[] {
    const partial = this.#open.get(event.sessionId);
    this.#open.delete(event.sessionId);
    if (!this.#o.includePartialMessages || partial?.started !== true) return [];
    return [
      { type: "stream_event", event: { type: "content_block_stop", index: 0 }, ...this.#base(scope) },
      {
        type: "stream_event",
        event: { type: "message_delta", delta: { stop_reason: event.stopReason ?? null } },
        ...this.#base(scope),
      },
      { type: "stream_event", event: { type: "message_stop" }, ...this.#base(scope) },
    ];
  }

  /** Claude Code sends one assistant line per content block, all with the message's id. */
  #assistant(event: Event<"assistant_message">, scope: Scope): Line[] {
    const id = `msg_${this.#sessionId.slice(-12)}_${++this.#messageCount}`;
    const usage = event.usage;
    return event.message.content.map((block) => ({
      type: "assistant",
      message: {
        id,
        type: "message",
        role: "assistant",
        model: event.model ?? "",
        content: [anthropicBlock(block)],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage?.inputTokens ?? 0,
          ...(usage?.cacheCreationInputTokens === undefined
            ? {}
            : { cache_creation_input_tokens: usage.cacheCreationInputTokens }),
          ...(usage?.cacheReadInputTokens === undefined
            ? {}
            : { cache_read_input_tokens: usage.cacheReadInputTokens }),
          output_tokens: usage?.outputTokens ?? 0,
        },
      },
      ...this.#base(scope),
    }));
  }

  #taskStarted(event: Event<"subagent_spawned">, scope: Scope, depth: number): Line {
    const prompt = this.#prompts.get(event.callId);
    return {
      type: "system",
      subtype: "task_started",
      task_id: event.subagent.session_id,
      tool_use_id: event.callId,
      description: event.subagent.description,
      subagent_type: event.subagent.subagent_type,
      is_backgrounded: event.subagent.background,
      spawn_depth: depth + 1,
      ...(scope.agent === undefined ? {} : { parent_task_id: scope.agent.id }),
      task_type: "local_agent",
      ...(typeof prompt === "string" ? { prompt } : {}),
      ...lineage(event.subagent, event.parentSessionId),
      ...this.#system(),
    };
  }

  #taskNotification(
    event: Event<"subagent_completed">,
    usage: Record<string, number> | undefined,
  ): Line {
    return {
      type: "system",
      subtype: "task_notification",
      task_id: event.subagent.session_id,
      tool_use_id: event.callId,
      // The Agent SDK's names: a stopped task is `stopped` (Blade's record: cancelled).
      status: event.state === "cancelled" ? "stopped" : event.state,
      summary: event.summary,
      ...(usage === undefined ? {} : { usage }),
      ...(event.verdict === undefined ? {} : { verdict: event.verdict }),
      ...(event.worktree === undefined ? {} : { worktree: event.worktree }),
      ...lineage(event.subagent, event.parentSessionId),
      ...this.#system(),
    };
  }
}

function claudeName(mode: string | undefined): string {
  const known = mode === undefined ? undefined : parsePermissionMode(mode);
  return known === undefined ? mode ?? "default" : claudeModeName(known);
}
