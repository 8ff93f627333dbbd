// Owns a child session's hooks across the thread boundary (docs/guides/hooks.md "Subagents"): the hook
// points of a child's loop as plain messages, since a Worker child never runs a hook itself (Workers
// start no processes) but asks the main thread, which runs them in the child's sandbox
// (run_hooks.ts). The Worker's side is `workerHooks` (LoopHooks that ask); the main thread answers
// with `answerHookCall` from the child's real hooks (session_hooks.ts). Answers are checked by
// `isChildHookAnswer` before the Worker uses them. No I/O; loaded by the Worker, so nothing heavy.

import type { Message } from "../protocol/messages.ts";
import type {
  AfterToolCallResult,
  BeforePermissionResult,
  LoopHooks,
  ToolCallRequest,
} from "../executor/hooks.ts";
import { STOP_COMPLETED } from "../executor/hooks.ts";

/** The hook points a child's loop may have; only those some hook listens to are sent. */
export const CHILD_HOOK_POINTS = ["beforePermission", "afterToolCall", "onTurnEnd"] as const;
export type ChildHookPoint = typeof CHILD_HOOK_POINTS[number];

/** A call of the child's, as the hooks see it. */
export interface HookedCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** One hook point of a child's loop, asked of the main thread. */
export type ChildHookCall =
  | { point: "beforePermission"; call: HookedCall; input: Record<string, unknown> }
  | {
    point: "afterToolCall";
    call: HookedCall;
    input: Record<string, unknown>;
    result: { content: string; isError: boolean; response?: Record<string, unknown> };
  }
  /** `conversation`: the child's messages before the answer (a SubagentStop `prompt` hook judges them). */
  | { point: "onTurnEnd"; turn: number; answer: Message; conversation: Message[] };

/** The main thread's answer to one ChildHookCall. */
export interface ChildHookAnswer {
  permission?: BeforePermissionResult;
  after?: AfterToolCallResult;
  continueWith?: string;
  /** A hook said `continue: false`: the child's run ends after this step. */
  stop?: boolean;
}

/** What the main thread's side of a child's hooks does with one call (the child's ToolContext is its own). */
export type ChildHookAnswerer = (call: ChildHookCall) => Promise<ChildHookAnswer>;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const optionalText = (v: unknown) => v === undefined || typeof v === "string";

/** A ChildHookAnswer as the main thread sends it (checked before use all the same). */
export function isChildHookAnswer(value: unknown): value is ChildHookAnswer {
  if (!isRecord(value)) return false;
  const p = value.permission;
  if (p !== undefined) {
    if (!isRecord(p) || !optionalText(p.reason)) return false;
    if (p.decision !== undefined && !["allow", "deny", "ask"].includes(p.decision as string)) return false;
    if (p.input !== undefined && !isRecord(p.input)) return false;
  }
  const a = value.after;
  if (a !== undefined) {
    if (!isRecord(a) || !optionalText(a.annotate)) return false;
    if (
      a.context !== undefined && (!Array.isArray(a.context) || a.context.some((c) => typeof c !== "string"))
    ) {
      return false;
    }
    if (a.replace !== undefined && (!isRecord(a.replace) || typeof a.replace.content !== "string")) {
      return false;
    }
  }
  return optionalText(value.continueWith) && (value.stop === undefined || typeof value.stop === "boolean");
}

/** The call of a request, as the hooks see it (the input as the schema parsed it). */
function hooked(
  request: Pick<ToolCallRequest, "call" | "input">,
): { call: HookedCall; input: Record<string, unknown> } {
  const { call } = request;
  return {
    call: { id: call.id, name: call.name, input: call.input },
    input: isRecord(request.input) ? request.input : call.input,
  };
}

/**
 * The hook points of a child's loop in its Worker: each asks the main thread (`ask`); `continue:
 * false` in any answer ends the run after that step (shouldStop). Only `points` are set.
 */
export function workerHooks(points: readonly ChildHookPoint[], ask: ChildHookAnswerer): LoopHooks {
  if (points.length === 0) return {};
  let stopped = false;
  const asked = async (call: ChildHookCall) => {
    const answer = await ask(call);
    if (answer.stop === true) stopped = true;
    return answer;
  };
  const hooks: LoopHooks = { shouldStop: () => stopped ? STOP_COMPLETED : undefined };
  if (points.includes("beforePermission")) {
    hooks.beforePermission = async (request) =>
      (await asked({ point: "beforePermission", ...hooked(request) })).permission ?? {};
  }
  if (points.includes("afterToolCall")) {
    hooks.afterToolCall = async (request, result) =>
      (await asked({
        point: "afterToolCall",
        ...hooked(request),
        result: result.response === undefined
          ? { content: result.content, isError: result.isError }
          : { content: result.content, isError: result.isError, response: result.response },
      })).after;
  }
  if (points.includes("onTurnEnd")) {
    hooks.onTurnEnd = async ({ turn, answer, conversation }) => {
      const text = (await asked({ point: "onTurnEnd", turn, answer, conversation: [...conversation ?? []] }))
        .continueWith;
      return text === undefined ? undefined : { continueWith: text };
    };
  }
  return hooks;
}
