// Owns what the hook events of one session do to it (docs/guides/hooks.md "What runs when"), as the
// loop's hook points (executor/hooks.ts): SessionStart before the first turn (its context opens it),
// PreToolUse before the permission gate (`beforePermission`: deny, allow an askable refusal, ask,
// rewrite), PostToolUse after each call (context and blocks annotate the result), Stop when the model
// ends a turn (a block sends its reason back: one more step), and `continue: false` ending the run
// after the step. The texts the model sees are Claude Code's (tests/fixtures/claude/hooks_events).
// Hooks run in the sandbox of the call (tool events) or of the session (the others): `run`.

import type { LoopHooks, ToolCallRequest } from "../executor/hooks.ts";
import { STOP_COMPLETED } from "../executor/hooks.ts";
import { userText } from "../protocol/messages.ts";
import type { ToolContext } from "../tools/tool.ts";
import type { HookCommandRunner, HookEngine } from "./hook_engine.ts";
import type { HookEvent } from "./hook_config.ts";
import type { HookVerdict } from "./hook_output.ts";

/** The session a set of hooks serves (the fields of Claude Code's hook input). */
export interface HookSession {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  permissionMode: () => string;
  /** A subagent's id and type (`agent_id`, `agent_type` in its hooks' input). */
  agent?: { id: string; type: string } | undefined;
  /** Command hooks of tool events run in the call's sandbox; the others in this context's. */
  runner: (ctx?: ToolContext) => HookCommandRunner;
  /** A non-blocking hook problem (a crash, a timeout, another exit code): reported, never fatal. */
  warn: (line: string) => void;
  /** Said to the user (`systemMessage`, `stopReason`). */
  tell?: ((line: string) => void) | undefined;
  signal: AbortSignal;
}

/** The LoopHooks of `session`'s hooks; points of events no hook listens to are left out (free). */
export function sessionHooks(engine: HookEngine, session: HookSession): LoopHooks {
  const hooks: LoopHooks = {};
  let stopAsked: string | undefined;
  let stopBlockedTurn = -1;
  const base = (event: HookEvent) => ({
    session_id: session.sessionId,
    transcript_path: session.transcriptPath,
    cwd: session.cwd,
    permission_mode: session.permissionMode(),
    ...(session.agent === undefined ? {} : { agent_id: session.agent.id, agent_type: session.agent.type }),
    hook_event_name: event,
  });
  const settle = (event: HookEvent, v: HookVerdict): HookVerdict => {
    if (v.error !== undefined) session.warn(`${event} hook error: ${v.error}`);
    if (v.message !== undefined) session.tell?.(v.message);
    if (v.stop !== undefined && stopAsked === undefined) {
      stopAsked = v.stop;
      session.tell?.(v.stop === "" ? `A ${event} hook stopped the session.` : v.stop);
    }
    return v;
  };
  const fire: Fire = async (event, input, o) =>
    settle(
      event,
      await engine.fire(event, { ...base(event), ...input }, {
        match: o.match,
        toolUseId: o.toolUseId,
        signal: o.ctx?.signal ?? session.signal,
        run: session.runner(o.ctx),
      }),
    );

  if (engine.has("SessionStart")) {
    hooks.onSessionStart = async (start) => {
      const source = start.resumed ? "resume" : "startup";
      const v = await fire("SessionStart", { source }, { match: source });
      return {
        messages: contextTexts("SessionStart hook additional context", v).map((t) => userText(t, true)),
      };
    };
  }
  if (engine.has("PreToolUse")) hooks.beforePermission = preToolUse(fire);
  if (engine.has("PostToolUse")) hooks.afterToolCall = postToolUse(fire);
  if (engine.has("Stop")) {
    hooks.onTurnEnd = async (end) => {
      const text = end.answer.content.flatMap((b) => b.type === "text" ? [b.text] : []).join("\n");
      const v = await fire("Stop", {
        stop_hook_active: stopBlockedTurn === end.turn,
        last_assistant_message: text,
      }, {});
      if (v.block === undefined || stopAsked !== undefined) return undefined;
      stopBlockedTurn = end.turn;
      return { continueWith: `Stop hook feedback:\n${v.block}` };
    };
  }
  hooks.shouldStop = () => stopAsked === undefined ? undefined : STOP_COMPLETED;
  return hooks;
}

/** Fires one event with the session's fields added; its problems and messages already said. */
type Fire = (
  event: HookEvent,
  input: Record<string, unknown>,
  o: { match?: string; toolUseId?: string; ctx?: ToolContext },
) => Promise<HookVerdict>;

/** PreToolUse before the permission gate: a block or deny refuses, allow/ask/updatedInput go to the gate. */
function preToolUse(fire: Fire): NonNullable<LoopHooks["beforePermission"]> {
  return async ({ call, input, ctx }: ToolCallRequest) => {
    const v = await fire("PreToolUse", {
      tool_name: call.name,
      tool_input: isRecord(input) ? input : call.input,
      tool_use_id: call.id,
    }, { match: call.name, toolUseId: call.id, ctx });
    const label = `PreToolUse:${call.name} hook error`;
    if (v.block !== undefined) return { decision: "deny", reason: `${label}: ${v.block}` };
    if (v.permission === "deny") {
      return { decision: "deny", reason: `${label}: ${v.permissionReason ?? "denied"}` };
    }
    return { decision: v.permission, reason: v.permissionReason, input: v.updatedInput };
  };
}

/** PostToolUse after each call: a block's reason and added context annotate the result. */
function postToolUse(fire: Fire): NonNullable<LoopHooks["afterToolCall"]> {
  return async ({ call, input, ctx }, result) => {
    const v = await fire("PostToolUse", {
      tool_name: call.name,
      tool_input: isRecord(input) ? input : call.input,
      tool_response: { content: result.content, is_error: result.isError },
      tool_use_id: call.id,
    }, { match: call.name, toolUseId: call.id, ctx });
    const notes = [
      ...v.block === undefined ? [] : [`PostToolUse:${call.name} hook error: ${v.block}`],
      ...contextTexts(`PostToolUse:${call.name} hook additional context`, v),
    ];
    return notes.length === 0 ? undefined : { annotate: notes.join("\n") };
  };
}

function contextTexts(prefix: string, v: HookVerdict): string[] {
  return (v.context ?? []).map((c) => `${prefix}: ${c}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
