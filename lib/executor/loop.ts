// Owns the agent loop of one session (docs/reference/sessions.md): a turn sends the conversation to the provider
// (model_turn.ts), persists the answer and its tool calls (with durable ids) before running them,
// runs the tools (tool_runner.ts: validation, permission gate, `beforeToolCall`), and repeats until
// the model stops, fails, is cancelled or reaches maxTurns. Every state change is written to the
// transcript (events built by session/events.ts) before it is reported. Never prints.

import {
  addUsage,
  emptyUsage,
  type Message,
  textOf,
  type ToolCallBlock,
  type ToolResultBlock,
  type ToolSpec,
  type Usage,
  userText,
} from "../protocol/messages.ts";
import type { Provider, RequestMeta } from "../protocol/provider.ts";
import type { RuntimeEventSink, TranscriptPart, TurnAbortCause } from "../protocol/events.ts";
import type { TranscriptWriter } from "../session/transcript.ts";
import { deliveryEvents, messageEvents, turnAbortedEvent, turnCompletedEvents } from "../session/events.ts";
import type { Ports } from "../sys/mod.ts";
import type { AnyTool, LiveTools, ToolResult } from "../tools/tool.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import type { Delivery, PendingWork } from "../protocol/delivery.ts";
import { type ModelAnswer, modelTurn } from "./model_turn.ts";
import { type BeforeToolCall, type ToolPolicy, ToolRunner } from "./tool_runner.ts";
import type { Approver } from "../protocol/approval.ts";
import { approvalAsker } from "./approval_step.ts";
import type { RunError, RunResult, RunStatus, TurnInput } from "./run_result.ts";
import { TurnOpening } from "./turn_opening.ts";
import { type RequestContext, resultContext, withContext } from "./request_context.ts";

export type { RunError, RunResult, RunStatus, TurnInput } from "./run_result.ts";

/** A session's loop: its model, transcript, tools and the policy they run under (ToolPolicy). */
export interface LoopOptions extends ToolPolicy, RequestContext {
  ports: Ports;
  provider: Provider;
  transcript: TranscriptWriter;
  /**
   * The session's tools. A promise lets a child start its first model request while the tool
   * modules (and zod) still load; `specs` must then describe them.
   */
  tools: readonly AnyTool[] | PromiseLike<readonly AnyTool[]>;
  /** The tools as the model sees them, when already known (saves converting the schemas again). */
  specs?: ToolSpec[];
  /** Tools that can change between model requests (MCP servers); offered after `tools`. */
  live?: LiveTools;
  system: string;
  model: string;
  maxTokens: number;
  meta: RequestMeta;
  emit: RuntimeEventSink;
  /** Model requests allowed in one run before it ends with `max_turns_exceeded`. */
  maxTurns?: number;
  /** This session's background children: notices arriving mid-turn are delivered before the next request. */
  pending?: PendingWork;
  /**
   * Asked when the model answers without tool calls: a message to send back instead of ending the run
   * (the corrective retries of StructuredOutput), or undefined to end it.
   */
  followUp?: () => string | undefined;
  /** Asked after each answer and its tool results: why StructuredOutput's attempts ran out (ends the run). */
  exhausted?: () => string | undefined;
  /** A gate after the permission gate (deny beats allow), for checks the session adds. */
  beforeToolCall?: BeforeToolCall;
  /** Who approves a call the gate would refuse but a person may allow (the interactive session). */
  approve?: Approver;
}

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
}

/**
 * One session's loop. `run()` performs one user turn: it may make many model requests. The
 * conversation lives in `messages`; callers seed it from a transcript to continue a session.
 */
export class AgentLoop {
  readonly messages: Message[];
  #o: LoopOptions;
  #tools: ToolRunner;
  #turn: number;
  #specs: ToolSpec[] | undefined;
  #liveSpecs: ToolSpec[] = [];
  #liveSeen = -1;
  #modelRequests = 0;

  constructor(options: LoopOptions, history: { messages: Message[]; turns: number }) {
    this.#o = options;
    this.messages = [...history.messages];
    this.#turn = history.turns;
    this.#tools = new ToolRunner({
      ports: options.ports,
      tools: options.tools,
      ...(options.live === undefined ? {} : { live: options.live }),
      sessionId: options.meta.sessionId,
      workspaceRoot: options.workspaceRoot,
      ...(options.additionalDirs === undefined ? {} : { additionalDirs: options.additionalDirs }),
      storageRoot: options.storageRoot,
      ...(options.worktree === undefined ? {} : { worktree: options.worktree }),
      ...(options.commands === undefined ? {} : { commands: options.commands }),
      trusted: options.trusted,
      mode: options.mode,
      ...(options.extraEnv === undefined ? {} : { extraEnv: options.extraEnv }),
      rules: options.rules,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      web: options.web,
      emit: options.emit,
      ...(options.beforeToolCall === undefined ? {} : { beforeToolCall: options.beforeToolCall }),
      ...(options.approve === undefined ? {} : { ask: approvalAsker(options.approve, options) }),
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
    // The first request goes out while the opening batch is written (turn_opening.ts).
    const { state, opening } = this.#open(input);
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
      this.#modelRequests++;
      const asked = o.ports.clock.now();
      const answer = await this.#ask(signal, opening);
      const apiMs = o.ports.clock.now() - asked;
      state.usage = addUsage(state.usage, answer.usage);
      if (answer.kind === "error") {
        if (answer.error.kind === "aborted" || signal.aborted) return await this.#cancelled(state);
        return await this.#finish(state, "failed", {
          type: "provider_error",
          message: answer.error.message,
          providerError: answer.error,
        });
      }
      // Durable identity before execution: prepare each call, persist the message with its parts.
      const prepared = await this.#tools.prepare(answer.message, signal);
      // A final answer may still be sent back once more (StructuredOutput's corrective retries).
      const again = prepared.calls.length > 0 ? undefined : o.followUp?.();
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
      if (final && o.exhausted?.() === undefined) {
        return await this.#finish(state, "completed", undefined, answered);
      }
      await this.#persist(answer.message, { parts: prepared.parts, final }, correction);
      announce();
      if (final) return await (this.#exhaustedRun(state) ?? this.#finish(state, "completed"));
      if (correction !== undefined) continue;

      state.toolCalls += prepared.calls.length;
      await this.#persistResults(state, prepared.calls, await prepared.run());
      if (signal.aborted) return await this.#cancelled(state);
      const exhausted = this.#exhaustedRun(state);
      if (exhausted !== undefined) return await exhausted;
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
    const { ids } = o.ports;
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
    const opening = new TurnOpening((onWritten) =>
      o.transcript.append([
        ...(input.prelude ?? []),
        { type: "turn_started", data: { turn: state.turn } },
        // Notices first: they happened before the input that opens this turn.
        ...deliveryEvents(ids, deliveries),
        ...input.messages.flatMap((m) => messageEvents(ids, m)),
      ], { onWritten })
    );
    this.messages.push(...deliveries.map((d) => d.message), ...input.messages);
    opening.after(() => o.emit({ type: "turn_started", sessionId: o.meta.sessionId, turn: state.turn }));
    return { state, opening };
  }

  /**
   * One model request. While the turn's opening batch is still being written, what the request emits
   * and warms is held until it is durable, and a failed write aborts the request; the answer is
   * returned only once the batch is durable (else the write's error is thrown).
   */
  async #ask(signal: AbortSignal, opening: TurnOpening): Promise<ModelAnswer> {
    const o = this.#o;
    if (this.#specs === undefined) {
      if (o.specs !== undefined) this.#specs = o.specs;
      else {
        const { toolSpecs } = await import("../tools/registry.ts");
        this.#specs = toolSpecs(await this.#tools.tools());
      }
    }
    // MCP servers' tools: asked again whenever a server's list changed (or a server went away).
    const live = o.live;
    if (live !== undefined && live.version() !== this.#liveSeen) {
      this.#liveSeen = live.version();
      const { toolSpecs } = await import("../tools/registry.ts");
      const own = new Set(this.#specs.map((s) => s.name));
      this.#liveSpecs = toolSpecs(live.tools().filter((t) => !own.has(t.name)));
    }
    // The request goes out once the batch's bytes are written: its fsyncs then run alongside.
    if (opening.state === "writing") await opening.handed;
    const answer = await modelTurn({
      provider: o.provider,
      emit: opening.hold(o.emit),
      sessionId: o.meta.sessionId,
      onToolCall: (call) => opening.after(() => this.#tools.warm(call)),
    }, {
      model: o.model,
      system: o.system,
      messages: withContext(this.messages, o.context),
      tools: this.#liveSpecs.length === 0 ? this.#specs : [...this.#specs, ...this.#liveSpecs],
      maxTokens: o.maxTokens,
      meta: o.meta,
    }, opening.signal(signal));
    await opening.durable;
    return answer;
  }

  /** Persists one message (and a correction sent back with it, in the same batch), then keeps them. */
  async #persist(
    message: Message,
    extra: { parts?: TranscriptPart[]; final?: boolean } = {},
    correction?: Message,
  ): Promise<void> {
    const { ids } = this.#o.ports;
    await this.#o.transcript.append([
      ...messageEvents(ids, message, extra),
      ...(correction === undefined ? [] : messageEvents(ids, correction)),
    ]);
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
    await this.#persist({ role: "user", content: [...blocks, ...resultContext(results)] }, { parts });
  }

  async #deliver(state: TurnState, late: Delivery[]): Promise<void> {
    if (late.length === 0) return;
    await this.#o.transcript.append(deliveryEvents(this.#o.ports.ids, late));
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

  /** The run's failed end when StructuredOutput ran out of attempts, else undefined. */
  #exhaustedRun(state: TurnState): Promise<RunResult> | undefined {
    const message = this.#o.exhausted?.();
    const error = { type: "structured_output_retries_exhausted" as const, message: message ?? "" };
    return message === undefined ? undefined : this.#finish(state, "failed", error);
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
      const said = answer === undefined
        ? []
        : messageEvents(o.ports.ids, answer.message, { parts: answer.parts, final: true });
      const end = turnCompletedEvents(
        { turn, turns, toolCalls: state.toolCalls, durationMs, usage },
        acknowledge,
      );
      await o.transcript.append([...said, ...end]);
      if (answer !== undefined) {
        this.messages.push(answer.message);
        answer.announce();
      }
      if (acknowledge.length > 0) await o.pending?.acknowledged(acknowledge);
      o.emit({ type: "turn_completed", sessionId: o.meta.sessionId, turn, usage });
    } else {
      const reason = error?.type === "max_turns_exceeded" ? "max_turns_exceeded" : error?.message;
      const abortCause = cause ?? "failed";
      await o.transcript.append([turnAbortedEvent(turn, abortCause, reason)]);
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
