// Owns the agent loop of one session (docs/reference/sessions.md) as control flow: a turn sends the
// conversation to the provider (model_turn.ts), makes the answer and its tool calls (with durable ids)
// durable before running them, runs the tools (tool_runner.ts: validation, permission gate, hooks),
// and repeats until the model stops, fails, is cancelled or reaches maxTurns. What may change a step
// is asked of the hook points (hooks.ts: onSessionStart, beforeToolCall, afterToolCall,
// transformContext, onTurnEnd, shouldStop); every step is made durable by the journal (journal.ts)
// before it is reported. No I/O of its own; never prints.

import {
  addUsage,
  emptyUsage,
  INTERRUPTED_BY_USER,
  type Message,
  textOf,
  type ToolCallBlock,
  type ToolResultBlock,
  type Usage,
  userText,
} from "../protocol/messages.ts";
import type { TranscriptPart, TurnAbortCause } from "../protocol/events.ts";
import type { ToolResult } from "../tools/tool.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import type { Delivery } from "../protocol/delivery.ts";
import { type ModelAnswer, modelTurn } from "./model_turn.ts";
import { toolResultsDir } from "./result_persistence.ts";
import { ToolRunner } from "./tool_runner.ts";
import { approvalAsker } from "./approval_step.ts";
import type { RunError, RunResult, RunStatus, TurnInput } from "./run_result.ts";
import { TurnOpening } from "./turn_opening.ts";
import { HookPoints, hookPoints, type StopAnswer } from "./hooks.ts";
import type { LoopOptions } from "./loop_options.ts";
import { type JournalMessage, type LoopJournal, transcriptJournal } from "./journal.ts";
import { openingMessages, resultContext, resultSystemTurn, withContext } from "./request_context.ts";
import type { CompactionOutcome } from "./compactor.ts";
import { ContextCompaction, type TurnCompaction } from "./context_compaction.ts";
import { SessionToolSpecs } from "./session_tool_specs.ts";

export type { RunError, RunResult, RunStatus, TurnInput } from "./run_result.ts";
export type { LoopOptions } from "./loop_options.ts";

/** What one `run()` accumulates until it ends. */
interface TurnState {
  turn: number;
  started: number;
  startRequests: number;
  usage: Usage;
  toolCalls: number;
  toolResults: RunResult["toolResults"];
  /** Inbox ids this turn's `turn_completed` acknowledges. */
  acknowledge: string[];
  /** Index in `messages` of this run's first message (its final text is looked for from there). */
  firstOfRun: number;
  /** A UserPromptSubmit hook blocked the prompt; the turn runs only for the notices it delivers. */
  blocked?: { message: string; reason: string };
}

/**
 * One session's loop. `run()` performs one user turn: it may make many model requests. The
 * conversation lives in `messages`; callers seed it from a transcript to continue a session.
 */
export class AgentLoop {
  readonly messages: Message[];
  #o: LoopOptions;
  #journal: LoopJournal;
  #hooks: HookPoints;
  #tools: ToolRunner;
  #turn: number;
  /** The session's first turn in this loop is still to come (onSessionStart is asked before it). */
  #starting = true;
  /**
   * What opens the next turn that runs: onSessionStart's messages, and a blocked prompt's prelude and
   * acknowledgements (a blocked prompt opens no turn, so they wait for the next).
   */
  #held: { messages: Message[]; prelude: NonNullable<TurnInput["prelude"]>; acknowledge: string[] } = {
    messages: [],
    prelude: [],
    acknowledge: [],
  };
  #resumed: boolean;
  #specs: SessionToolSpecs;
  #modelRequests = 0;
  #context: ContextCompaction;

  constructor(options: LoopOptions, history: { messages: Message[]; turns: number }) {
    this.#o = options;
    this.messages = [...history.messages];
    this.#turn = history.turns;
    this.#resumed = history.turns > 0 || history.messages.length > 0;
    this.#journal = options.journal ?? transcriptJournal(options.transcript, options.ports.ids);
    this.#hooks = new HookPoints(hookPoints(options), {
      emit: options.emit,
      sessionId: options.meta.sessionId,
    });
    const journal = this.#journal;
    this.#context = new ContextCompaction({
      options: () => this.#o,
      messages: this.messages,
      journal,
      hooks: this.#hooks,
      tools: () => this.#specs.list(),
      reread: (path, signal) => this.#tools.reread(path, signal),
    });
    // The policy, tools, ports, sink and tool hook points pass through as they are.
    this.#tools = new ToolRunner({
      ...options,
      sessionId: options.meta.sessionId,
      resultsDir: toolResultsDir(options.transcript.path),
      redact: options.transcript.redacted?.bind(options.transcript),
      ask: options.approve === undefined
        ? undefined
        : approvalAsker(options.approve, { journal, meta: options.meta }),
      // A child this session starts gets no more model requests than it has left (launch_plan.ts).
      turnsLeft: () => {
        const max = this.#o.maxTurns;
        return max === undefined ? undefined : Math.max(0, max - this.#modelRequests);
      },
    });
    this.#specs = new SessionToolSpecs({
      specs: options.specs,
      tools: () => this.#tools.tools(),
      live: options.live,
    });
  }

  get turn(): number {
    return this.#turn;
  }

  get modelRequests(): number {
    return this.#modelRequests;
  }

  get mode(): PermissionMode {
    return this.#o.mode;
  }

  get model(): string {
    return this.#o.model;
  }

  /** Changes the permission mode or model for the next turns (the interactive /permissions, /model). */
  configure(change: { mode?: PermissionMode; model?: string }): void {
    this.#o = { ...this.#o, ...change };
    if (change.mode !== undefined) this.#tools.configure({ mode: change.mode });
  }

  /** One user turn, as the lifecycle in ARCHITECTURE.md: open, ask, persist, run tools, repeat. */
  async run(input: TurnInput, signal: AbortSignal): Promise<RunResult> {
    const o = this.#o;
    if (this.#starting) {
      this.#starting = false;
      if (o.onSessionStart !== undefined) this.#held.messages.push(...await this.#sessionStart());
    }
    const prompted = await this.#userPrompt(input);
    if ("status" in prompted) return prompted;
    const held = this.#held;
    this.#held = { messages: [], prelude: [], acknowledge: [] };
    // The first request goes out while the opening batch is written (turn_opening.ts).
    const { state, opening } = this.#open({
      ...prompted.input,
      messages: openingMessages(held.messages, prompted.input.messages),
      prelude: [...held.prelude, ...prompted.input.prelude ?? []],
      acknowledge: [...held.acknowledge, ...prompted.input.acknowledge ?? []],
    });
    if (prompted.blocked !== undefined) state.blocked = prompted.blocked;
    while (true) {
      const outOfTurns = o.maxTurns !== undefined && this.#modelRequests >= o.maxTurns;
      if (signal.aborted || outOfTurns) await opening.durable;
      if (signal.aborted) return await this.#cancelled(state);
      if (outOfTurns) {
        return await this.#finish(state, "failed", {
          type: "max_turns_exceeded",
          message: `Reached the maximum number of turns (${o.maxTurns}) before the agent finished.`,
        });
      }
      await this.#context.beforeRequest(this.#compacting(state, opening, signal));
      this.#modelRequests++;
      const asked = o.ports.clock.now();
      const answer = await this.#ask(signal, opening);
      const apiMs = o.ports.clock.now() - asked;
      state.usage = addUsage(state.usage, answer.usage);
      if (answer.kind === "error") {
        if (answer.error.kind === "aborted" || signal.aborted) return await this.#cancelled(state);
        // "Prompt is too long": compact once and ask again (the failed request is not a turn).
        if (await this.#context.afterTooLong(answer.error, this.#compacting(state, opening, signal))) {
          this.#modelRequests--;
          continue;
        }
        return await this.#finish(state, "failed", {
          type: "provider_error",
          message: answer.error.message,
          providerError: answer.error,
        });
      }
      this.#context.answered(answer.usage);
      // Durable identity before execution: prepare each call, persist the message with its parts.
      const prepared = await this.#tools.prepare(answer.message, signal);
      // A final answer may still be sent back once more (onTurnEnd: StructuredOutput's corrective retries).
      const ending = prepared.calls.length > 0 ? undefined : this.#turnEnd(state, answer.message);
      const again = ending === undefined ? undefined : await ending;
      const correction = again === undefined ? undefined : userText(again, true);
      const final = correction === undefined && prepared.calls.length === 0;
      const announce = () =>
        o.emit({
          type: "assistant_message",
          sessionId: o.meta.sessionId,
          message: answer.message,
          model: o.model,
          stopReason: answer.stopReason,
          usage: answer.usage,
          apiMs,
        });
      // The final answer and the turn's end: one durable batch (one fsync fewer), announced after it.
      const answered = { message: answer.message, parts: prepared.parts, announce };
      if (final && this.#shouldStop(state, true) === undefined) {
        return await this.#finish(state, "completed", undefined, answered);
      }
      await this.#persist(answer.message, { parts: prepared.parts, final }, correction);
      announce();
      if (final) return await (this.#stopped(state, true) ?? this.#finish(state, "completed"));
      if (correction !== undefined) continue;

      state.toolCalls += prepared.calls.length;
      await this.#persistResults(state, prepared.calls, await prepared.run());
      if (signal.aborted) return await this.#cancelled(state);
      const stopped = this.#stopped(state, false);
      if (stopped !== undefined) return await stopped;
      // Delivery `current_turn`: notices that arrived while this turn runs join it before the next request.
      await this.#deliver(state, (await o.pending?.takeDeliveries()) ?? []);
    }
  }

  /**
   * Starts writing the turn's opening batch: prelude, `turn_started`, the input and delivered notices.
   * The conversation has them at once (the first request may go out); `turn_started` is announced
   * once the batch is durable.
   */
  #open(input: TurnInput): { state: TurnState; opening: TurnOpening } {
    const o = this.#o;
    const deliveries = input.deliveries ?? [];
    const state: TurnState = {
      turn: ++this.#turn,
      started: o.ports.clock.now(),
      startRequests: this.#modelRequests,
      usage: emptyUsage(),
      toolCalls: 0,
      toolResults: [],
      acknowledge: [...(input.acknowledge ?? []), ...deliveries.map((d) => d.inboxId)],
      firstOfRun: this.messages.length,
    };
    const step = { turn: state.turn, prelude: input.prelude ?? [], deliveries, messages: input.messages };
    const opening = new TurnOpening((onWritten) => this.#journal.openTurn(step, onWritten));
    this.messages.push(...deliveries.map((d) => d.message), ...input.messages);
    opening.after(() => o.emit({ type: "turn_started", sessionId: o.meta.sessionId, turn: state.turn }));
    return { state, opening };
  }

  /** onSessionStart, once, before the first turn: the messages it returns open that turn. */
  #sessionStart(): Promise<Message[]> {
    const { sessionId, agentType, depth } = this.#o.meta;
    return this.#hooks.sessionStart({ sessionId, agentType, depth, resumed: this.#resumed });
  }

  /**
   * onUserPrompt for a turn that opens with the user's prompt: its context joins the input, or it is
   * blocked (the run's result then, or, when the turn delivers notices, the turn runs without it:
   * notices are taken once).
   */
  async #userPrompt(
    input: TurnInput,
  ): Promise<RunResult | { input: TurnInput; blocked?: TurnState["blocked"] }> {
    const o = this.#o;
    if (input.prompt === undefined || o.onUserPrompt === undefined) return { input };
    const answer = await this.#hooks.userPrompt({ sessionId: o.meta.sessionId, text: input.prompt });
    const blocked = answer.block;
    if (blocked === undefined) {
      return { input: { ...input, messages: [...input.messages, ...answer.messages ?? []] } };
    }
    if ((input.deliveries ?? []).length === 0) return this.#blocked(input, blocked);
    o.emit({ type: "prompt_blocked", sessionId: o.meta.sessionId, ...blocked });
    return { input: { ...input, messages: [] }, blocked };
  }

  /**
   * A prompt a UserPromptSubmit hook blocked: no turn opens and nothing is written; what would have
   * opened the turn (the session's start, a prelude, acknowledgements) waits for the next one.
   */
  #blocked(input: TurnInput, block: { message: string; reason: string }): RunResult {
    const o = this.#o;
    this.#held.prelude.push(...input.prelude ?? []);
    this.#held.acknowledge.push(...input.acknowledge ?? []);
    o.emit({ type: "prompt_blocked", sessionId: o.meta.sessionId, ...block });
    return {
      status: "completed",
      messages: this.messages,
      finalText: block.message,
      usage: emptyUsage(),
      toolCalls: 0,
      modelRequests: 0,
      durationMs: 0,
      toolResults: [],
      blocked: block,
    };
  }

  /** onTurnEnd: the model answered without tool calls; a text to send back instead of ending. */
  #turnEnd(state: TurnState, answer: Message): Promise<string | undefined> | undefined {
    if (this.#o.onTurnEnd === undefined) return undefined;
    const { sessionId } = this.#o.meta;
    return this.#hooks.turnEnd({ sessionId, turn: state.turn, answer, conversation: this.messages });
  }

  /** shouldStop after a step: the error or completed end that ends the run, else undefined. */
  #shouldStop(state: TurnState, final: boolean): StopAnswer | undefined {
    if (this.#o.shouldStop === undefined) return undefined;
    return this.#hooks.stop({ sessionId: this.#o.meta.sessionId, turn: state.turn, final });
  }

  /**
   * The run's end when a shouldStop hook ends it: failed (StructuredOutput's attempts ran out) or
   * completed (its object accepted), else undefined.
   */
  #stopped(state: TurnState, final: boolean): Promise<RunResult> | undefined {
    const answer = this.#shouldStop(state, final);
    if (answer === undefined) return undefined;
    if (!("completed" in answer)) return this.#finish(state, "failed", answer);
    const done = this.#finish(state, "completed");
    return final ? done : done.then((r): RunResult => ({ ...r, stoppedAfterTools: true }));
  }

  /**
   * One model request. While the turn's opening batch is still being written, what the request emits
   * and warms is held until it is durable, and a failed write aborts the request; the answer is
   * returned only once the batch is durable (else the write's error is thrown).
   */
  async #ask(signal: AbortSignal, opening: TurnOpening): Promise<ModelAnswer> {
    const o = this.#o;
    const tools = await this.#specs.list();
    // The request goes out once the batch's bytes are written: its fsyncs then run alongside.
    if (opening.state === "writing") await opening.handed;
    // What this request sends: the session's context in front (request_context.ts), then as
    // transformContext leaves it (the conversation itself is kept whole).
    const request = { system: o.system, messages: withContext(this.messages, o.context) };
    const { system, messages } = o.transformContext === undefined
      ? request
      : await this.#hooks.context(request, signal);
    const answer = await modelTurn({
      provider: o.provider,
      emit: opening.hold(o.emit),
      sessionId: o.meta.sessionId,
      onToolCall: (call) => opening.after(() => this.#tools.warm(call)),
    }, {
      model: o.model,
      system,
      messages,
      tools,
      maxTokens: o.maxTokens,
      ...o.modelOptions,
      meta: o.meta,
    }, opening.signal(signal));
    await opening.durable;
    return answer;
  }

  /**
   * `/compact [instructions]`: compacts the conversation now, between turns. Its boundary is durable
   * when this resolves; `ok: false` says why nothing changed.
   */
  compact(signal: AbortSignal, o: { instructions?: string } = {}): Promise<CompactionOutcome> {
    return this.#context.run({ trigger: "manual", preTokens: this.#context.tokens(), ...o }, { signal });
  }

  /** A compaction within a turn: once its opening is durable; the run's kept messages still count as its own. */
  #compacting(state: TurnState, opening: TurnOpening, signal: AbortSignal): TurnCompaction {
    return {
      durable: () => opening.durable,
      signal,
      onReplaced: (before) => {
        state.firstOfRun = Math.max(0, this.messages.length - (before - state.firstOfRun));
      },
    };
  }

  /**
   * Makes one message durable (and a second sent with it, in the same batch: a correction sent back,
   * the system turn after results), then keeps them.
   */
  async #persist(
    message: Message,
    extra: { parts?: TranscriptPart[]; final?: boolean } = {},
    correction?: Message,
  ): Promise<void> {
    const list: JournalMessage[] = [{ message, extra }];
    if (correction !== undefined) list.push({ message: correction });
    await this.#journal.messages(list);
    this.messages.push(message, ...(correction === undefined ? [] : [correction]));
  }

  /** The results as one user message, with each result's own parts (a terminal `subtask_ref`). */
  async #persistResults(state: TurnState, calls: ToolCallBlock[], results: ToolResult[]): Promise<void> {
    const parts: TranscriptPart[] = [];
    const blocks: ToolResultBlock[] = results.map((result, i) => {
      const call = calls[i]!;
      state.toolResults.push({ call, result });
      if (result.parts !== undefined) parts.push(...result.parts);
      return { type: "tool_result", callId: call.id, content: result.content, isError: result.isError };
    });
    const message: Message = { role: "user", content: [...blocks, ...resultContext(results)] };
    await this.#persist(message, { parts }, resultSystemTurn(results));
  }

  async #deliver(state: TurnState, late: Delivery[]): Promise<void> {
    if (late.length === 0) return;
    await this.#journal.deliveries(late);
    for (const d of late) {
      this.messages.push(d.message);
      state.acknowledge.push(d.inboxId);
    }
  }

  #cancelled(state: TurnState): Promise<RunResult> {
    return this.#finish(
      state,
      "cancelled",
      { type: "cancelled", message: "The run was cancelled." },
      undefined,
      "cancelled",
    );
  }

  /** Writes the turn's end (`turn_completed` + acknowledgements + a final `answer`, or `turn_aborted`). */
  async #finish(
    state: TurnState,
    status: RunStatus,
    error?: RunError,
    answer?: { message: Message; parts: TranscriptPart[]; announce: () => void },
    cause?: TurnAbortCause,
  ): Promise<RunResult> {
    const o = this.#o;
    const { turn, usage, acknowledge } = state;
    const durationMs = o.ports.clock.now() - state.started;
    const turns = this.#modelRequests - state.startRequests;
    if (status === "completed") {
      const summary = { turn, turns, toolCalls: state.toolCalls, durationMs, usage };
      const said = answer === undefined
        ? {}
        : { answer: { message: answer.message, extra: { parts: answer.parts, final: true } } };
      await this.#journal.turnCompleted({ summary, acknowledge, ...said });
      if (answer !== undefined) {
        this.messages.push(answer.message);
        answer.announce();
      }
      if (acknowledge.length > 0) await o.pending?.acknowledged(acknowledge);
      o.emit({ type: "turn_completed", sessionId: o.meta.sessionId, turn, usage });
    } else {
      const reason = error?.type === "max_turns_exceeded" ? "max_turns_exceeded" : error?.message;
      const abortCause = cause ?? "failed";
      // A cancelled turn says so (Claude Code's marker), so it is never answered with the next prompt.
      const marker = abortCause === "cancelled" ? [userText(INTERRUPTED_BY_USER)] : [];
      await this.#journal.turnAborted({
        turn,
        cause: abortCause,
        ...(reason === undefined ? {} : { reason }),
        said: marker.map((message) => ({ message })),
      });
      this.messages.push(...marker);
      o.emit({
        type: "turn_aborted",
        sessionId: o.meta.sessionId,
        turn,
        cause: abortCause,
        ...(reason === undefined ? {} : { reason }),
      });
    }
    return {
      status,
      messages: this.messages,
      finalText: lastText(this.messages, state.firstOfRun),
      usage,
      toolCalls: state.toolCalls,
      modelRequests: turns,
      durationMs,
      toolResults: state.toolResults,
      ...(error === undefined ? {} : { error }),
      ...(state.blocked === undefined ? {} : { blocked: state.blocked }),
    };
  }
}

/** Text of the last assistant message produced in this run (from index `start`, not before it). */
function lastText(messages: Message[], start: number): string {
  for (let i = messages.length - 1; i >= start; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const text = textOf(m).trim();
    if (text !== "") return text;
  }
  return "";
}
