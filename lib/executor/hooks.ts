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

/**
 * `beforePermission`'s answer (settings, agent and SDK PreToolUse hooks, lib/hooks/): `deny` refuses the
 * call; `allow` approves a refusal a person could have approved (no question asked), never one no one
 * may approve (a deny rule, the ceiling, a protected path, trust); `ask` puts the question to a person
 * even where the gate allows (no one to ask: refused); `input` replaces the call's input before the
 * gate decides (validated, then gated as the input that runs). No decision: the gate decides alone.
 */
export interface BeforePermissionResult {
  decision?: "allow" | "deny" | "ask" | undefined;
  /** Why (the refusal's text for `deny`, the question's reason for `ask`). */
  reason?: string | undefined;
  input?: Record<string, unknown> | undefined;
}

/**
 * `afterToolCall`'s answer: `replace` the result's content (and error flag), `annotate` it with text,
 * or add `context`: text sent to the model after the results, the result itself unchanged (Claude
 * Code's PostToolUse additionalContext).
 */
export interface AfterToolCallResult {
  replace?: { content: string; isError?: boolean };
  /** Appended to the result's content after a blank line (several annotations in hook order). */
  annotate?: string;
  /** Texts after the step's results, a system turn (ToolResult.systemContext), in hook order. */
  context?: string[];
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
  /** The conversation before the answer (a Stop `prompt` hook judges it); absent: not known. */
  conversation?: readonly Message[];
}

/** One step of a turn is done: a model answer and, when it called tools, their results. */
export interface StepEnd {
  sessionId: string;
  turn: number;
  /** True when the answer had no tool calls (the turn ends unless a hook continues it). */
  final: boolean;
}

/** A prompt the user submitted, before its turn opens (Claude Code's UserPromptSubmit hooks). */
export interface UserPrompt {
  sessionId: string;
  /** The prompt as the user typed it. */
  text: string;
}

/**
 * `onUserPrompt`'s answer: `block` drops the prompt (it is never sent nor written; `message` is what
 * the user is shown, `reason` the hook's own words), or `messages` (hidden) join the turn after it.
 */
export interface UserPromptAnswer {
  block?: { message: string; reason: string };
  messages?: Message[];
}

/** A compaction is about to ask for its summary (Claude Code's PreCompact). */
export interface CompactionStart {
  sessionId: string;
  trigger: CompactTrigger;
  /** The user's own instructions (`/compact <instructions>`). */
  instructions?: string;
}

/** `beforeCompact`'s answer: instructions for the summary, or a block (what the user is told). */
export interface CompactionAnswer {
  instructions?: string;
  /** Shown to the user once the compaction is done (compacted event's `said`). */
  said?: string[];
  block?: string;
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
 *   to keep them out of the visible conversation); system turns among them follow the input instead,
 *   before `onUserPrompt`'s (Claude Code's order). Merge: all hooks' messages, in hook order.
 * - `onUserPrompt`: each turn that opens with a user's prompt (`TurnInput.prompt`), after
 *   `onSessionStart`, before anything of the turn is written: see UserPromptAnswer. A blocked prompt
 *   opens no turn (the session's start messages wait for the next one). Merge: in hook order, the
 *   first block wins and later hooks are not asked; messages accumulate.
 * - `beforePermission`: each validated call, before the permission gate (Claude Code's PreToolUse runs
 *   there): see BeforePermissionResult. Deny beats allow: its `allow` only skips a question. Merge:
 *   deny beats ask beats allow, the first rewrite wins (later hooks see it). A throw refuses the call.
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
 *   hook event: hooks/session_hooks.ts). `instructions` it returns are added to the summary's
 *   instructions after the user's own; a `block` (what the user is told) stops the compaction: no
 *   request, the conversation unchanged. Merge: in hook order, the first block wins and later hooks
 *   are not asked; the texts join, separated by a blank line.
 */
export interface LoopHooks {
  onSessionStart?:
    | ((session: SessionStart) => { messages?: Message[] } | void | Promise<{ messages?: Message[] } | void>)
    | undefined;
  onUserPrompt?:
    | ((prompt: UserPrompt) => UserPromptAnswer | Promise<UserPromptAnswer>)
    | undefined;
  beforePermission?:
    | ((request: ToolCallRequest) => BeforePermissionResult | Promise<BeforePermissionResult>)
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
    | ((start: CompactionStart) => CompactionAnswer | void | Promise<CompactionAnswer | void>)
    | undefined;
}

/** `shouldStop`'s answer that ends the run as completed. */
export const STOP_COMPLETED = { completed: true } as const;

/** What `shouldStop` may answer: the run fails with an error, or ends completed. */
export type StopAnswer = RunError | typeof STOP_COMPLETED;

const POINTS = [
  "onSessionStart",
  "onUserPrompt",
  "beforePermission",
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
  const prompts = having("onUserPrompt");
  if (prompts.length > 0) merged.onUserPrompt = mergedPrompt(prompts);
  const permissions = having("beforePermission");
  if (permissions.length > 0) merged.beforePermission = mergedPermission(permissions);
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
  if (afters.length > 0) merged.afterToolCall = mergedAfter(afters);
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
      const texts: string[] = [];
      for (const h of ends) {
        const text = ((await h.onTurnEnd!(end)) || {}).continueWith;
        if (text !== undefined) texts.push(text);
      }
      return texts.length === 0 ? {} : { continueWith: texts.join("\n\n") };
    };
  }
  const compacts = having("beforeCompact");
  if (compacts.length > 0) merged.beforeCompact = mergedCompact(compacts);
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

/** `beforeCompact` of several hooks: the first block wins; else the instructions join, in hook order. */
function mergedCompact(list: readonly LoopHooks[]): NonNullable<LoopHooks["beforeCompact"]> {
  return async (start) => {
    const texts: string[] = [];
    const said: string[] = [];
    for (const h of list) {
      const answer = (await h.beforeCompact!(start)) || {};
      if (answer.block !== undefined) return { block: answer.block };
      if (answer.instructions !== undefined && answer.instructions !== "") texts.push(answer.instructions);
      said.push(...answer.said ?? []);
    }
    const merged: CompactionAnswer = texts.length === 0 ? {} : { instructions: texts.join("\n\n") };
    if (said.length > 0) merged.said = said;
    return merged;
  };
}

/** `afterToolCall` of several hooks: each sees the result as the previous left it; notes and context add up. */
function mergedAfter(list: readonly LoopHooks[]): NonNullable<LoopHooks["afterToolCall"]> {
  return async (request, result) => {
    let current = result;
    const notes: string[] = [];
    const context: string[] = [];
    for (const h of list) {
      const answer = await h.afterToolCall!(request, current);
      if (answer?.replace !== undefined) current = replaced(current, answer.replace);
      if (answer?.annotate !== undefined) notes.push(answer.annotate);
      context.push(...answer?.context ?? []);
    }
    const replace = current === result
      ? {}
      : { replace: { content: current.content, isError: current.isError } };
    return {
      ...replace,
      ...(notes.length === 0 ? {} : { annotate: notes.join("\n\n") }),
      ...(context.length === 0 ? {} : { context }),
    };
  };
}

/** `onUserPrompt` of several hooks: in order, the first block wins (later ones are not asked). */
function mergedPrompt(list: readonly LoopHooks[]): NonNullable<LoopHooks["onUserPrompt"]> {
  return async (prompt) => {
    const messages: Message[] = [];
    for (const h of list) {
      const answer = await h.onUserPrompt!(prompt);
      if (answer.block !== undefined) return { block: answer.block };
      messages.push(...answer.messages ?? []);
    }
    return { messages };
  };
}

const RANK = { none: -1, allow: 0, ask: 1, deny: 2 } as const;

/** `beforePermission` of several hooks: deny beats ask beats allow; the first rewrite wins. */
function mergedPermission(list: readonly LoopHooks[]): NonNullable<LoopHooks["beforePermission"]> {
  return async (request) => {
    const out: BeforePermissionResult = {};
    for (const h of list) {
      const answer = await h.beforePermission!(
        out.input === undefined ? request : { ...request, input: out.input },
      );
      if (answer.input !== undefined && out.input === undefined) out.input = answer.input;
      if (answer.decision !== undefined && RANK[answer.decision] > RANK[out.decision ?? "none"]) {
        out.decision = answer.decision;
        out.reason = answer.reason;
      }
    }
    return out;
  };
}

function replaced(result: ToolResult, replace: { content: string; isError?: boolean }): ToolResult {
  return { ...result, content: replace.content, isError: replace.isError ?? result.isError };
}

/** `result` with an `afterToolCall` answer applied. */
export function applyAfterToolCall(result: ToolResult, answer: AfterToolCallResult | void): ToolResult {
  if (answer === undefined) return result;
  const replacedOrNot = answer.replace === undefined ? result : replaced(result, answer.replace);
  const next = answer.context === undefined || answer.context.length === 0
    ? replacedOrNot
    : { ...replacedOrNot, systemContext: [...replacedOrNot.systemContext ?? [], ...answer.context] };
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

  async userPrompt(prompt: UserPrompt): Promise<UserPromptAnswer> {
    try {
      return (await this.hooks.onUserPrompt?.(prompt)) ?? {};
    } catch (e) {
      this.#warn("onUserPrompt", e);
      return {};
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

  /** `beforeCompact`: instructions hooks add to a compaction's summary, or a block (a throw: neither). */
  async compact(start: CompactionStart): Promise<CompactionAnswer> {
    try {
      return (await this.hooks.beforeCompact?.(start)) || {};
    } catch (e) {
      this.#warn("beforeCompact", e);
      return {};
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

  /** `beforePermission`; a throw refuses the call, saying the check failed. */
  async beforePermission(request: ToolCallRequest): Promise<BeforePermissionResult> {
    const hook = this.hooks.beforePermission;
    if (hook === undefined) return {};
    try {
      return await hook(request);
    } catch (e) {
      return {
        decision: "deny",
        reason: `${request.call.name} was refused: a PreToolUse hook failed (${describeError(e)}).`,
      };
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
