// Owns the agent loop's hook points and their contracts (ARCHITECTURE.md, "The agent loop's hook
// points"): what each point is asked, when, what it may answer, and how the answers of several hooks
// merge (`mergeHooks`). Every hook point is optional, may answer synchronously or with a promise, and
// must not throw: the loop defends anyway (`HookPoints`), and a hook that throws counts as having no
// opinion (a `hook_failed` runtime warning says so), except `beforeToolCall`, which then refuses the
// call (a failed check never lets a call through). Commit points are not hooks: durability is the
// journal's (journal.ts). Settings hooks, Stop hooks, StructuredOutput and compaction plug in here.

import type { Message, ToolCallBlock } from "../protocol/messages.ts";
import type { CompactTrigger, RuntimeEventSink } from "../protocol/events.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";
import { describeError } from "../errors.ts";
import type { RunError } from "./run_result.ts";

/** A call that passed validation and the permission gate, about to run. */
export interface ToolCallRequest {
  tool: AnyTool;
  call: ToolCallBlock;
  /** The input as the tool's schema parsed it. */
  input: unknown;
  ctx: ToolContext;
}

/**
 * `beforeToolCall`'s answer. `allow: false` blocks the call: `message` is the result the model sees.
 * `allow: true` with `input` rewrites the call's input; the rewritten input is validated and passed
 * through the permission gate again (a rewrite never gets past a rule the original could not).
 */
export type BeforeToolCallResult =
  | { allow: true; input?: Record<string, unknown> }
  | { allow: false; message: string; askable?: boolean };

/** `afterToolCall`'s answer: `replace` the result's content (and error flag), `annotate` it with text. */
export interface AfterToolCallResult {
  replace?: { content: string; isError?: boolean };
  /** Appended to the result's content after a blank line (several annotations in hook order). */
  annotate?: string;
}

/** What the model is sent in one request. */
export interface ModelContext {
  system: string;
  messages: Message[];
}

/** The model answered without tool calls: the turn would end here. */
export interface TurnEnd {
  sessionId: string;
  turn: number;
  answer: Message;
}

/** One step of a turn is done: a model answer and, when it called tools, their results. */
export interface StepEnd {
  sessionId: string;
  turn: number;
  /** True when the answer had no tool calls (the turn ends unless a hook continues it). */
  final: boolean;
}

/** A compaction is about to ask for its summary (Claude Code's PreCompact). */
export interface CompactionStart {
  sessionId: string;
  trigger: CompactTrigger;
  /** The user's own instructions (`/compact <instructions>`). */
  instructions?: string;
}

export interface SessionStart {
  sessionId: string;
  agentType: string;
  depth: number;
  /** The session continues an earlier one (its history is not empty). */
  resumed: boolean;
}

/**
 * The loop's hook points. Contracts (all: must not throw; a promise is awaited):
 *
 * - `onSessionStart`: once per loop, before its first turn's opening batch is written. Messages it
 *   returns open that turn before its input, written in the same durable batch (mark them `hidden`
 *   to keep them out of the visible conversation). Merge: all hooks' messages, in hook order.
 * - `beforeToolCall`: each call after validation and the permission gate (deny beats allow: a hook
 *   never sees a call the gate refused and cannot allow one). Blocks with a reason, or rewrites the
 *   input (validated and gated again). Merge: in hook order, each seeing the previous rewrite; the
 *   first block wins and later hooks are not asked. A throw refuses the call.
 * - `afterToolCall`: each call that ran, with its result, before the results are persisted. Merge:
 *   in hook order, each seeing the result as the previous hooks left it; annotations accumulate.
 * - `transformContext`: before each model request, the system prompt and messages to send. What it
 *   returns is sent instead, for that request only: the loop's conversation and the transcript keep
 *   everything (a hook that compacts records its own summary). Merge: chained in hook order.
 * - `onTurnEnd`: the model answered without tool calls. A `continueWith` text is sent back to the
 *   model as a hidden user message, persisted with the answer, instead of ending the turn
 *   (StructuredOutput's corrective retries, Stop hooks that block). Asked once per such answer.
 *   Merge: every hook is asked; the texts join, in hook order, separated by a blank line.
 * - `shouldStop`: after each step (an answer and its tool results, or a final answer): a RunError ends
 *   the run as failed with it (StructuredOutput's exhausted attempts), `STOP_COMPLETED` ends it as
 *   completed (an accepted `--json-schema` object: no further request). May be asked more than once
 *   per step, so it answers from its state without changing it. Merge: the first error wins, then a
 *   completed end.
 * - `beforeCompact`: before a compaction's summary request (compactor.ts; Claude Code's PreCompact
 *   hook event, wired by the settings hooks). `instructions` it returns are added to the summary's
 *   instructions after the user's own; it cannot stop the compaction. Merge: the texts join, in hook
 *   order, separated by a blank line.
 */
export interface LoopHooks {
  onSessionStart?:
    | ((session: SessionStart) => { messages?: Message[] } | void | Promise<{ messages?: Message[] } | void>)
    | undefined;
  beforeToolCall?:
    | ((request: ToolCallRequest) => BeforeToolCallResult | Promise<BeforeToolCallResult>)
    | undefined;
  afterToolCall?:
    | ((
      request: ToolCallRequest,
      result: ToolResult,
    ) => AfterToolCallResult | void | Promise<AfterToolCallResult | void>)
    | undefined;
  transformContext?:
    | ((context: ModelContext, signal: AbortSignal) => ModelContext | Promise<ModelContext>)
    | undefined;
  onTurnEnd?:
    | ((end: TurnEnd) => { continueWith?: string } | void | Promise<{ continueWith?: string } | void>)
    | undefined;
  shouldStop?: ((step: StepEnd) => StopAnswer | undefined) | undefined;
  beforeCompact?:
    | ((
      start: CompactionStart,
    ) => { instructions?: string } | void | Promise<{ instructions?: string } | void>)
    | undefined;
}

/** `shouldStop`'s answer that ends the run as completed. */
export const STOP_COMPLETED = { completed: true } as const;

/** What `shouldStop` may answer: the run fails with an error, or ends completed. */
export type StopAnswer = RunError | typeof STOP_COMPLETED;

const POINTS = [
  "onSessionStart",
  "beforeToolCall",
  "afterToolCall",
  "transformContext",
  "onTurnEnd",
  "shouldStop",
  "beforeCompact",
] as const;

/** The hook points set in `o` (a wider options object, such as LoopOptions), and nothing else. */
export function hookPoints(o: LoopHooks): LoopHooks {
  const picked: LoopHooks = {};
  for (const point of POINTS) {
    // deno-lint-ignore no-explicit-any
    if (o[point] !== undefined) (picked as any)[point] = o[point];
  }
  return picked;
}

/** One LoopHooks answering as `hooks` do together, by the merge rules above. */
export function mergeHooks(...hooks: readonly (LoopHooks | undefined)[]): LoopHooks {
  const list = hooks.filter((h): h is LoopHooks => h !== undefined);
  if (list.length === 1) return list[0]!;
  const having = <P extends keyof LoopHooks>(point: P) => list.filter((h) => h[point] !== undefined);
  const merged: LoopHooks = {};
  const starts = having("onSessionStart");
  if (starts.length > 0) {
    merged.onSessionStart = async (session) => {
      const messages: Message[] = [];
      for (const h of starts) messages.push(...((await h.onSessionStart!(session)) || {}).messages ?? []);
      return { messages };
    };
  }
  const befores = having("beforeToolCall");
  if (befores.length > 0) {
    merged.beforeToolCall = async (request) => {
      let input: Record<string, unknown> | undefined;
      for (const h of befores) {
        const answer = await h.beforeToolCall!(input === undefined ? request : { ...request, input });
        if (!answer.allow) return answer;
        if (answer.input !== undefined) input = answer.input;
      }
      return input === undefined ? { allow: true } : { allow: true, input };
    };
  }
  const afters = having("afterToolCall");
  if (afters.length > 0) {
    merged.afterToolCall = async (request, result) => {
      let current = result;
      const notes: string[] = [];
      for (const h of afters) {
        const answer = await h.afterToolCall!(request, current);
        if (answer?.replace !== undefined) current = replaced(current, answer.replace);
        if (answer?.annotate !== undefined) notes.push(answer.annotate);
      }
      const replace = current === result
        ? {}
        : { replace: { content: current.content, isError: current.isError } };
      return notes.length === 0 ? replace : { ...replace, annotate: notes.join("\n\n") };
    };
  }
  const transforms = having("transformContext");
  if (transforms.length > 0) {
    merged.transformContext = async (context, signal) => {
      let current = context;
      for (const h of transforms) current = await h.transformContext!(current, signal);
      return current;
    };
  }
  const ends = having("onTurnEnd");
  if (ends.length > 0) {
    merged.onTurnEnd = async (end) => {
      const text = await joined(ends, async (h) => ((await h.onTurnEnd!(end)) || {}).continueWith);
      return text === undefined ? {} : { continueWith: text };
    };
  }
  const compacts = having("beforeCompact");
  if (compacts.length > 0) {
    merged.beforeCompact = async (start) => {
      const text = await joined(compacts, async (h) => ((await h.beforeCompact!(start)) || {}).instructions);
      return text === undefined ? {} : { instructions: text };
    };
  }
  const stops = having("shouldStop");
  if (stops.length > 0) {
    merged.shouldStop = (step) => {
      let completed: StopAnswer | undefined;
      for (const h of stops) {
        const answer = h.shouldStop!(step);
        if (answer === STOP_COMPLETED) completed = answer;
        else if (answer !== undefined) return answer;
      }
      return completed;
    };
  }
  return merged;
}

/** Every hook's text in hook order, joined by a blank line; undefined when none has one. */
async function joined(
  hooks: readonly LoopHooks[],
  ask: (hook: LoopHooks) => Promise<string | undefined>,
): Promise<string | undefined> {
  const texts: string[] = [];
  for (const h of hooks) {
    const text = await ask(h);
    if (text !== undefined) texts.push(text);
  }
  return texts.length === 0 ? undefined : texts.join("\n\n");
}

function replaced(result: ToolResult, replace: { content: string; isError?: boolean }): ToolResult {
  return { ...result, content: replace.content, isError: replace.isError ?? result.isError };
}

/** `result` with an `afterToolCall` answer applied. */
export function applyAfterToolCall(result: ToolResult, answer: AfterToolCallResult | void): ToolResult {
  if (answer === undefined) return result;
  const next = answer.replace === undefined ? result : replaced(result, answer.replace);
  if (answer.annotate === undefined || answer.annotate === "") return next;
  return {
    ...next,
    content: next.content === "" ? answer.annotate : `${next.content}\n\n${answer.annotate}`,
  };
}

/**
 * The loop's side of the hook points: asks a session's hooks, holding each to its contract (a throw is
 * no opinion plus a `hook_failed` warning). Points without a hook cost nothing (no await).
 */
export class HookPoints {
  readonly hooks: LoopHooks;
  #emit: RuntimeEventSink;
  #sessionId: string;

  constructor(hooks: LoopHooks, o: { emit: RuntimeEventSink; sessionId: string }) {
    this.hooks = hooks;
    this.#emit = o.emit;
    this.#sessionId = o.sessionId;
  }

  async sessionStart(session: SessionStart): Promise<Message[]> {
    try {
      return ((await this.hooks.onSessionStart?.(session)) || {}).messages ?? [];
    } catch (e) {
      this.#warn("onSessionStart", e);
      return [];
    }
  }

  async context(context: ModelContext, signal: AbortSignal): Promise<ModelContext> {
    try {
      return (await this.hooks.transformContext?.(context, signal)) ?? context;
    } catch (e) {
      this.#warn("transformContext", e);
      return context;
    }
  }

  async turnEnd(end: TurnEnd): Promise<string | undefined> {
    try {
      return ((await this.hooks.onTurnEnd?.(end)) || {}).continueWith;
    } catch (e) {
      this.#warn("onTurnEnd", e);
      return undefined;
    }
  }

  /** `beforeCompact`: instructions hooks add to a compaction's summary, or undefined. */
  async compact(start: CompactionStart): Promise<string | undefined> {
    try {
      return ((await this.hooks.beforeCompact?.(start)) || {}).instructions;
    } catch (e) {
      this.#warn("beforeCompact", e);
      return undefined;
    }
  }

  stop(step: StepEnd): StopAnswer | undefined {
    try {
      return this.hooks.shouldStop?.(step);
    } catch (e) {
      this.#warn("shouldStop", e);
      return undefined;
    }
  }

  /** `beforeToolCall`; a throw refuses the call, saying the check failed. */
  async before(request: ToolCallRequest): Promise<BeforeToolCallResult> {
    const hook = this.hooks.beforeToolCall;
    if (hook === undefined) return { allow: true };
    try {
      return await hook(request);
    } catch (e) {
      return {
        allow: false,
        askable: false,
        message: `${request.call.name} was refused: the permission check failed (${describeError(e)}).`,
      };
    }
  }

  async after(request: ToolCallRequest, result: ToolResult): Promise<ToolResult> {
    const hook = this.hooks.afterToolCall;
    if (hook === undefined) return result;
    try {
      return applyAfterToolCall(result, await hook(request, result));
    } catch (e) {
      this.#warn("afterToolCall", e);
      return result;
    }
  }

  #warn(point: keyof LoopHooks, error: unknown): void {
    this.#emit({
      type: "runtime_warning",
      sessionId: this.#sessionId,
      code: "hook_failed",
      message: `A ${point} hook failed and was ignored: ${describeError(error)}`,
      workLost: false,
    });
  }
}
