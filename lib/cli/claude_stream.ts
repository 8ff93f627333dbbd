// Owns `--output-format stream-json`: Claude Code's message stream built from Blade's runtime events —
// `system/init`, one `assistant` line per content block (Anthropic shape), `user` lines with
// `tool_result`, subagent messages with `parent_tool_use_id` (and `agent_id`), `system` task events
// (`task_started`, `task_notification`) carrying Blade's lineage as extra fields, `system/api_retry`,
// `stream_event` lines with --include-partial-messages, and the final `result` (claude_result.ts).
// Thinking blocks appear here (never in text output). Blade's own events: `--output-format blade-events`.

import type { RuntimeEvent, SubagentInfo } from "../protocol/events.ts";
import type { ContentBlock } from "../protocol/messages.ts";
import { VERSION } from "../version.ts";

export interface ClaudeStreamOptions {
  cwd: string;
  /** `--add-dir` folders. */
  additionalDirectories?: string[];
  includePartialMessages: boolean;
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
      return { type: "tool_use", id: block.id, name: block.name, input: block.input };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "tool_result":
      return {
        tool_use_id: block.callId,
        type: "tool_result",
        content: block.content,
        ...(block.isError ? { is_error: true } : {}),
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

/** Turns runtime events into stream-json lines (without the final result line). */
export function claudeStream(o: ClaudeStreamOptions) {
  let sessionId = "";
  let messageCount = 0;
  const prompts = new Map<string, unknown>();
  /** Per session: the partial message being streamed (for stream_event lines). */
  const open = new Map<string, { index: number; started: boolean }>();
  const base = (scope: Scope) => ({
    parent_tool_use_id: scope.parentToolUseId,
    ...(scope.agent === undefined ? {} : {
      agent_id: scope.agent.id,
      subagent_type: scope.agent.subagentType,
      task_description: scope.agent.description,
    }),
    session_id: sessionId,
    uuid: o.uuid(),
    timestamp: new Date(o.now()).toISOString(),
  });
  const lines = (event: RuntimeEvent, scope: Scope, depth: number): unknown[] => {
    switch (event.type) {
      case "session_started":
        if (depth > 0) return [];
        sessionId = event.sessionId;
        return [{
          type: "system",
          subtype: "init",
          cwd: o.cwd,
          session_id: event.sessionId,
          tools: event.tools ?? [],
          mcp_servers: event.mcpServers ?? [],
          model: event.model,
          permissionMode: event.permissionMode ?? "default",
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
        }];
      case "text_delta": {
        if (!o.includePartialMessages) return [];
        const state = open.get(event.sessionId) ?? { index: 0, started: false };
        open.set(event.sessionId, state);
        const out: unknown[] = [];
        if (!state.started) {
          state.started = true;
          out.push({ type: "stream_event", event: { type: "message_start" }, ...base(scope) });
          out.push({
            type: "stream_event",
            event: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
            ...base(scope),
          });
        }
        out.push({
          type: "stream_event",
          event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: event.text } },
          ...base(scope),
        });
        return out;
      }
      case "assistant_message": {
        const out: unknown[] = [];
        const partial = open.get(event.sessionId);
        if (o.includePartialMessages && partial?.started === true) {
          out.push({ type: "stream_event", event: { type: "content_block_stop", index: 0 }, ...base(scope) });
          out.push({
            type: "stream_event",
            event: { type: "message_delta", delta: { stop_reason: event.stopReason ?? null } },
            ...base(scope),
          });
          out.push({ type: "stream_event", event: { type: "message_stop" }, ...base(scope) });
        }
        open.delete(event.sessionId);
        const id = `msg_${sessionId.slice(-12)}_${++messageCount}`;
        // Claude Code sends one assistant line per content block, all with the message's id.
        for (const block of event.message.content) {
          out.push({
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
                input_tokens: event.usage?.inputTokens ?? 0,
                ...(event.usage?.cacheCreationInputTokens === undefined
                  ? {}
                  : { cache_creation_input_tokens: event.usage.cacheCreationInputTokens }),
                ...(event.usage?.cacheReadInputTokens === undefined
                  ? {}
                  : { cache_read_input_tokens: event.usage.cacheReadInputTokens }),
                output_tokens: event.usage?.outputTokens ?? 0,
              },
            },
            ...base(scope),
          });
        }
        return out;
      }
      case "tool_started":
        if (event.name === "Task") prompts.set(event.callId, event.input.prompt);
        return [];
      case "tool_completed":
        return [{
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
          ...base(scope),
        }];
      case "retry":
        return [{
          type: "system",
          subtype: "api_retry",
          attempt: event.attempt,
          retry_delay_ms: event.delayMs,
          error: event.reason,
          ...base(scope),
        }];
      case "subagent_spawned":
        return [{
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
          ...(typeof prompts.get(event.callId) === "string" ? { prompt: prompts.get(event.callId) } : {}),
          ...lineage(event.subagent, event.parentSessionId),
          session_id: sessionId,
          uuid: o.uuid(),
        }];
      case "subagent_completed":
        return [{
          type: "system",
          subtype: "task_notification",
          task_id: event.subagent.session_id,
          tool_use_id: event.callId,
          status: event.state,
          summary: event.summary,
          ...(event.verdict === undefined ? {} : { verdict: event.verdict }),
          ...(event.worktree === undefined ? {} : { worktree: event.worktree }),
          ...lineage(event.subagent, event.parentSessionId),
          session_id: sessionId,
          uuid: o.uuid(),
        }];
      case "runtime_warning":
        return [{
          type: "system",
          subtype: "runtime_warning",
          code: event.code,
          message: event.message,
          ...(event.agentId === undefined ? {} : { task_id: event.agentId }),
          work_lost: event.workLost,
          session_id: sessionId,
          uuid: o.uuid(),
        }];
      case "subagent_event": {
        const child = children.get(event.agentId);
        const inner: Scope = child ?? { parentToolUseId: null };
        return lines(event.event, inner, depth + 1);
      }
      default:
        return [];
    }
  };
  /** Subagent id → the scope its messages carry (the Task call that started it). */
  const children = new Map<string, Scope>();
  const track = (event: RuntimeEvent) => {
    if (event.type === "subagent_spawned") {
      children.set(event.subagent.session_id, {
        parentToolUseId: event.callId,
        agent: {
          id: event.subagent.session_id,
          subagentType: event.subagent.subagent_type,
          description: event.subagent.description,
        },
      });
    } else if (event.type === "subagent_event") track(event.event);
  };
  return {
    /** A user message echoed back (`--replay-user-messages`). */
    userLine(text: string): string {
      return JSON.stringify({
        type: "user",
        message: { role: "user", content: [{ type: "text", text }] },
        parent_tool_use_id: null,
        session_id: sessionId,
        uuid: o.uuid(),
      });
    },
    /** The stream-json lines (JSON text, no newline) for one event. */
    onEvent(event: RuntimeEvent): string[] {
      track(event);
      return lines(event, { parentToolUseId: null }, 0).map((l) => JSON.stringify(l));
    },
  };
}
