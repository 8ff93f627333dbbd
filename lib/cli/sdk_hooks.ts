// Owns what the Agent SDK's hook callbacks do in a Blade session until the hook engine (SPEC §17)
// fires every event: PreToolUse callbacks run before each call of the top-level session (after the
// permission gate), with Claude Code's input, and their deny or block refuses the call with the hook's
// reason; `allow` and `ask` grant nothing past the gate. Callbacks of other events are registered and
// reachable through the HookCallbacks port (protocol/hook_callbacks.ts) but not fired yet: the run says
// so once. A callback that fails or times out is reported and the call goes on, as in Claude Code.

import type { HookCallbacks } from "../protocol/hook_callbacks.ts";
import { hookMatcherMatches } from "../protocol/hook_callbacks.ts";
import type { BeforeToolCall } from "../executor/tool_runner.ts";
import type { GateDecision } from "../permissions/gate.ts";
import { isRecord } from "./sdk_control.ts";

/** The events this bridge fires. */
export const FIRED_EVENTS = ["PreToolUse"] as const;

/** Seconds a callback may take when its matcher sets none (Claude Code's default hook timeout). */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

export interface PreToolUseContext {
  sessionId: () => string;
  transcriptPath: () => string;
  cwd: string;
  permissionMode: () => string;
  /** A callback that failed: reported, never fatal. */
  warn: (line: string) => void;
}

/** The events registered that no one fires yet (for the run's one warning line). */
export function unfiredEvents(hooks: HookCallbacks): string[] {
  return hooks.events().filter((e) => !(FIRED_EVENTS as readonly string[]).includes(e));
}

/** The deny a PreToolUse answer asks for, if any: `permissionDecision: deny`, `decision: block`, `continue: false`. */
export function preToolUseDenial(answer: Record<string, unknown>): string | undefined {
  const specific = isRecord(answer.hookSpecificOutput) ? answer.hookSpecificOutput : {};
  const reason = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v : undefined);
  if (specific.permissionDecision === "deny") {
    return reason(specific.permissionDecisionReason) ?? reason(answer.reason) ??
      "A PreToolUse hook denied it.";
  }
  if (answer.decision === "block" || answer.decision === "deny") {
    return reason(answer.reason) ?? "A PreToolUse hook blocked it.";
  }
  if (answer.continue === false) return reason(answer.stopReason) ?? "A PreToolUse hook stopped it.";
  return undefined;
}

/** The top-level session's check that runs the SDK's matching PreToolUse callbacks for each call. */
export function preToolUseHooks(hooks: HookCallbacks, ctx: PreToolUseContext): BeforeToolCall {
  return async ({ call, input, ctx: tool }): Promise<GateDecision> => {
    for (const m of hooks.matchers("PreToolUse")) {
      if (!hookMatcherMatches(m.matcher, call.name)) continue;
      for (const id of m.callbackIds) {
        const input_ = {
          session_id: ctx.sessionId(),
          transcript_path: ctx.transcriptPath(),
          cwd: ctx.cwd,
          permission_mode: ctx.permissionMode(),
          hook_event_name: "PreToolUse",
          tool_name: call.name,
          tool_input: isRecord(input) ? input : call.input,
          tool_use_id: call.id,
        };
        const timeout = AbortSignal.timeout((m.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_S) * 1000);
        let answer: Record<string, unknown>;
        try {
          answer = await hooks.call(id, input_, {
            toolUseId: call.id,
            signal: AbortSignal.any([timeout, tool.signal]),
          });
        } catch (e) {
          if (tool.signal.aborted) throw e;
          ctx.warn(
            `the Agent SDK's PreToolUse hook ${id} for ${call.name} ${
              timeout.aborted ? "timed out" : `failed: ${e instanceof Error ? e.message : String(e)}`
            }; the call goes on`,
          );
          continue;
        }
        const denial = preToolUseDenial(answer);
        if (denial !== undefined) return { allow: false, askable: false, message: denial };
      }
    }
    return { allow: true };
  };
}
