// Owns the agent loop of one session (SPEC §3): a turn sends the conversation to the provider,
// persists the answer and its tool calls (with durable ids) before running them, runs the tools
// through the permission gate, and repeats until the model stops, fails, is cancelled or reaches
// maxTurns. Every state change is written to the transcript before it is reported. Never prints.

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
import type { Provider, ProviderError, RequestMeta, StopReason } from "../protocol/provider.ts";
import type {
  NewTranscriptEvent,
  RuntimeEventSink,
  TranscriptPart,
  TurnAbortCause,
} from "../protocol/events.ts";
import type { TranscriptWriter } from "../session/transcript.ts";
import type { Ports } from "../sys/mod.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";
import { decide } from "../permissions/gate.ts";
import { pathArgument, type RuleSet, type ToolRule } from "../protocol/tool_rule.ts";
import { canonicalPath, resolveToolPath } from "../tools/paths.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { describeError } from "../errors.ts";
import type { Delivery, PendingWork } from "../protocol/delivery.ts";

export interface LoopOptions {
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
  system: string;
  model: string;
  maxTokens: number;
  meta: RequestMeta;
  trusted: boolean;
  mode: PermissionMode;
  /** Allow, ask and deny rules of the run (flags, settings, and for a child its agent's disallowedTools). */
  rules: RuleSet;
  /** An agent's own tool rules (`tools: Bash(git:*)`): calls of a tool they name must match one. */
  limits?: readonly ToolRule[];
  workspaceRoot: string;
  storageRoot: string;
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
}

export type RunStatus = "completed" | "failed" | "cancelled";

export interface RunError {
  type: "max_turns_exceeded" | "provider_error" | "cancelled";
  message: string;
  providerError?: ProviderError;
}

export interface RunResult {
  status: RunStatus;
  /** The whole conversation after the run. */
  messages: Message[];
  /** The model's last text of this run. */
  finalText: string;
  error?: RunError;
  usage: Usage;
  toolCalls: number;
  modelRequests: number;
  durationMs: number;
  /** Tool results with metadata, in call order (used for modified files, verification evidence). */
  toolResults: { call: ToolCallBlock; result: ToolResult }[];
}

export interface TurnInput {
  /** Messages to append before the model is asked (the user prompt). */
  messages: Message[];
  /** Completion notices delivered with the turn's opening batch (hidden message + receipt parts). */
  deliveries?: Delivery[];
  /** Inbox ids already in the transcript but not yet acknowledged (e.g. after a restart). */
  acknowledge?: string[];
  /** Events written in the same batch, before turn_started (a new child's session_created). */
  prelude?: NewTranscriptEvent[];
}

let partCounter = 0;

function partId(ids: Ports["ids"]): string {
  return `part-${ids.random21()}-${++partCounter}`;
}

/** The events that persist one message with all its parts, in one batch. */
export function messageEvents(
  ids: Ports["ids"],
  message: Message,
  extra: { inboxId?: string; parts?: TranscriptPart[]; final?: boolean; adopted?: boolean } = {},
): NewTranscriptEvent[] {
  const messageId = `msg-${ids.random21()}`;
  const created: NewTranscriptEvent = {
    type: "message_created",
    data: {
      messageId,
      role: message.role,
      ...(message.hidden === true ? { hidden: true } : {}),
      ...(extra.inboxId === undefined ? {} : { inboxId: extra.inboxId }),
      ...(extra.final === true ? { final: true as const } : {}),
      ...(extra.adopted === true ? { adopted: true as const } : {}),
    },
  };
  const parts: TranscriptPart[] = [...message.content, ...(extra.parts ?? [])];
  return [
    created,
    ...parts.map((part): NewTranscriptEvent => ({
      type: "part_created",
      data: { messageId, partId: partId(ids), part },
    })),
  ];
}

/**
 * One session's loop. `run()` performs one user turn: it may make many model requests. The
 * conversation lives in `messages`; callers seed it from a transcript to continue a session.
 */
export class AgentLoop {
  readonly messages: Message[];
  #o: LoopOptions;
  #turn: number;
  #specs: ToolSpec[] | undefined;
  #modelRequests = 0;

  constructor(options: LoopOptions, history: { messages: Message[]; turns: number }) {
    this.#o = options;
    this.messages = [...history.messages];
    this.#turn = history.turns;
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
  }

  #loaded: readonly AnyTool[] | undefined;

  /** The tools, once loaded (see LoopOptions.tools). */
  async #tools(): Promise<readonly AnyTool[]> {
    return this.#loaded ??= await this.#o.tools;
  }

  /** A tool by name; undefined also while the tools are still loading (only stream-time hints ask then). */
  #toolByName(name: string): AnyTool | undefined {
    const tools = this.#loaded ?? (Array.isArray(this.#o.tools) ? this.#o.tools : undefined);
    return tools?.find((t) => t.name === name);
  }

  async run(input: TurnInput, signal: AbortSignal): Promise<RunResult> {
    const o = this.#o;
    const { clock, ids } = o.ports;
    const started = clock.now();
    const turn = ++this.#turn;
    let usage = emptyUsage();
    let toolCalls = 0;
    const toolResults: RunResult["toolResults"] = [];
    const startRequests = this.#modelRequests;
    const acknowledge = [...(input.acknowledge ?? [])];
    const opening: NewTranscriptEvent[] = [...(input.prelude ?? []), {
      type: "turn_started",
      data: { turn },
    }];
    for (const m of input.messages) opening.push(...messageEvents(ids, m));
    for (const d of input.deliveries ?? []) {
      opening.push(...messageEvents(ids, d.message, { inboxId: d.inboxId, parts: d.parts }));
      acknowledge.push(d.inboxId);
    }
    await o.transcript.append(opening);
    const firstOfRun = this.messages.length;
    this.messages.push(...input.messages, ...(input.deliveries ?? []).map((d) => d.message));
    o.emit({ type: "turn_started", sessionId: o.meta.sessionId, turn });

    const finish = async (
      status: RunStatus,
      error?: RunError,
      cause?: TurnAbortCause,
    ): Promise<RunResult> => {
      const durationMs = clock.now() - started;
      if (status === "completed") {
        const events: NewTranscriptEvent[] = [{
          type: "turn_completed",
          data: { turn, turns: this.#modelRequests - startRequests, toolCalls, durationMs, usage },
        }];
        if (acknowledge.length > 0) {
          events.push({ type: "inbox_acknowledged", data: { inboxIds: acknowledge } });
        }
        await o.transcript.append(events);
        if (acknowledge.length > 0) await o.pending?.acknowledged(acknowledge);
        o.emit({ type: "turn_completed", sessionId: o.meta.sessionId, turn, usage });
      } else {
        const reason = error?.type === "max_turns_exceeded" ? "max_turns_exceeded" : error?.message;
        await o.transcript.append([{
          type: "turn_aborted",
          data: reason === undefined
            ? { turn, cause: cause ?? "failed" }
            : { turn, cause: cause ?? "failed", reason },
        }]);
        o.emit({
          type: "turn_aborted",
          sessionId: o.meta.sessionId,
          turn,
          cause: cause ?? "failed",
          ...(reason === undefined ? {} : { reason }),
        });
      }
      const result: RunResult = {
        status,
        messages: this.messages,
        finalText: lastText(this.messages, firstOfRun),
        usage,
        toolCalls,
        modelRequests: this.#modelRequests - startRequests,
        durationMs,
        toolResults,
      };
      if (error !== undefined) result.error = error;
      return result;
    };

    while (true) {
      if (signal.aborted) return await finish("cancelled", cancelled(), "cancelled");
      if (o.maxTurns !== undefined && this.#modelRequests >= o.maxTurns) {
        return await finish("failed", {
          type: "max_turns_exceeded",
          message: `Reached the maximum number of turns (${o.maxTurns}) before the agent finished.`,
        });
      }
      this.#modelRequests++;
      const asked = clock.now();
      const response = await this.#ask(signal);
      const apiMs = clock.now() - asked;
      usage = addUsage(usage, response.usage);
      if (response.kind === "error") {
        if (response.error.kind === "aborted" || signal.aborted) {
          return await finish("cancelled", cancelled(), "cancelled");
        }
        return await finish("failed", {
          type: "provider_error",
          message: response.error.message,
          providerError: response.error,
        });
      }
      // Durable identity before execution: prepare each call, persist the message with its parts.
      const message = response.message;
      const extraParts: TranscriptPart[] = [];
      const contexts = new Map<string, ToolContext>();
      if (message.content.some((b) => b.type === "tool_call")) await this.#tools();
      for (const block of message.content) {
        if (block.type !== "tool_call") continue;
        const ctx = this.#context(block.id, signal);
        contexts.set(block.id, ctx);
        const tool = this.#toolByName(block.name);
        if (tool?.prepare !== undefined && block.inputError === undefined) {
          const prepared = await tool.prepare(block.input, ctx);
          block.input = prepared.input;
          if (prepared.parts !== undefined) extraParts.push(...prepared.parts);
        }
      }
      // A final answer may still be sent back once more (StructuredOutput's corrective retries).
      const again = message.content.some((b) => b.type === "tool_call") ? undefined : o.followUp?.();
      const correction = again === undefined ? undefined : userText(again, true);
      const final = correction === undefined && !message.content.some((b) => b.type === "tool_call");
      await o.transcript.append([
        ...messageEvents(ids, message, { parts: extraParts, final }),
        ...(correction === undefined ? [] : messageEvents(ids, correction)),
      ]);
      this.messages.push(message);
      o.emit({
        type: "assistant_message",
        sessionId: o.meta.sessionId,
        message,
        model: o.model,
        stopReason: response.stopReason,
        usage: response.usage,
        apiMs,
      });

      const calls = message.content.filter((b): b is ToolCallBlock => b.type === "tool_call");
      if (final) return await finish("completed");
      if (correction !== undefined) {
        this.messages.push(correction);
        continue;
      }

      toolCalls += calls.length;
      const results = await this.#runCalls(calls, contexts);
      const resultParts: TranscriptPart[] = [];
      const blocks: ToolResultBlock[] = [];
      results.forEach((result, i) => {
        const call = calls[i]!;
        toolResults.push({ call, result });
        blocks.push({
          type: "tool_result",
          callId: call.id,
          content: result.content,
          isError: result.isError,
        });
        if (result.parts !== undefined) resultParts.push(...result.parts);
      });
      const resultMessage: Message = { role: "user", content: blocks };
      await o.transcript.append(messageEvents(ids, resultMessage, { parts: resultParts }));
      this.messages.push(resultMessage);
      if (signal.aborted) return await finish("cancelled", cancelled(), "cancelled");
      // Delivery `current_turn`: notices that arrived while this turn runs join it before the next request.
      const late = (await o.pending?.takeDeliveries()) ?? [];
      if (late.length > 0) {
        await o.transcript.append(
          late.flatMap((d) => messageEvents(ids, d.message, { inboxId: d.inboxId, parts: d.parts })),
        );
        for (const d of late) {
          this.messages.push(d.message);
          acknowledge.push(d.inboxId);
        }
      }
    }
  }

  async #ask(
    signal: AbortSignal,
  ): Promise<
    | { kind: "done"; message: Message; usage: Usage; stopReason: StopReason }
    | { kind: "error"; error: ProviderError; usage: Usage }
  > {
    const o = this.#o;
    if (this.#specs === undefined) {
      if (o.specs !== undefined) this.#specs = o.specs;
      else {
        const { toolSpecs } = await import("../tools/registry.ts");
        this.#specs = toolSpecs(await this.#tools());
      }
    }
    const request = {
      model: o.model,
      system: o.system,
      messages: this.messages,
      tools: this.#specs,
      maxTokens: o.maxTokens,
      meta: o.meta,
    };
    try {
      for await (const event of o.provider.stream(request, { signal })) {
        switch (event.type) {
          case "text_delta":
            o.emit({ type: "text_delta", sessionId: o.meta.sessionId, text: event.text });
            break;
          case "retry":
            o.emit({
              type: "retry",
              sessionId: o.meta.sessionId,
              attempt: event.attempt,
              delayMs: event.delayMs,
              reason: event.reason,
            });
            break;
          case "done":
            return { kind: "done", message: event.message, usage: event.usage, stopReason: event.stopReason };
          case "error":
            return { kind: "error", error: event.error, usage: event.usage };
          case "tool_call":
            // The call is complete while the rest of the answer still streams: let the tool get ready.
            this.#toolByName(event.call.name)?.warm?.(event.call.input);
            break;
          case "request_started":
            break;
          default: {
            const never: never = event;
            void never;
          }
        }
      }
    } catch (e) {
      // The contract says providers never throw; if one does, it is still a failed request, not a crash.
      return { kind: "error", error: { kind: "stream", message: describeError(e) }, usage: emptyUsage() };
    }
    return {
      kind: "error",
      error: { kind: "stream", message: "The model stream ended without a result." },
      usage: emptyUsage(),
    };
  }

  #context(callId: string, signal: AbortSignal): ToolContext {
    const o = this.#o;
    return {
      ports: o.ports,
      sessionId: o.meta.sessionId,
      workspaceRoot: o.workspaceRoot,
      storageRoot: o.storageRoot,
      trusted: o.trusted,
      mode: o.mode,
      callId,
      signal,
      emit: o.emit,
    };
  }

  /** Concurrent tools (Task) start at once; the others run one after another in call order. */
  async #runCalls(calls: ToolCallBlock[], contexts: Map<string, ToolContext>): Promise<ToolResult[]> {
    const pending: Promise<ToolResult>[] = [];
    for (const call of calls) {
      const ctx = contexts.get(call.id)!;
      const tool = this.#toolByName(call.name);
      if (tool?.concurrent === true) {
        pending.push(this.#runOne(call, ctx));
      } else {
        const result = await this.#runOne(call, ctx);
        pending.push(Promise.resolve(result));
      }
    }
    return await Promise.all(pending);
  }

  async #runOne(call: ToolCallBlock, ctx: ToolContext): Promise<ToolResult> {
    const o = this.#o;
    o.emit({
      type: "tool_started",
      sessionId: o.meta.sessionId,
      callId: call.id,
      name: call.name,
      input: call.input,
    });
    const denied: { by?: string } = {};
    const result = await this.#execute(call, ctx, denied);
    o.emit({
      type: "tool_completed",
      sessionId: o.meta.sessionId,
      callId: call.id,
      name: call.name,
      isError: result.isError,
      content: result.content,
      ...(denied.by === undefined ? {} : { denied: true }),
    });
    return result;
  }

  /** The real path a path rule is matched against (undefined when the tool has no path or it cannot be resolved). */
  async #rulePath(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolContext,
  ): Promise<string | undefined> {
    const argument = pathArgument(name);
    if (argument === undefined) return undefined;
    const given = input[argument];
    const path = typeof given === "string" && given !== "" ? given : argument === "path" ? "." : undefined;
    if (path === undefined) return undefined;
    return await canonicalPath(ctx.ports.fs, resolveToolPath(ctx, path)).catch(() => undefined);
  }

  /** Runs one call; a refusal by the permission gate is marked in `denied` (print mode lists them). */
  async #execute(call: ToolCallBlock, ctx: ToolContext, denied: { by?: string }): Promise<ToolResult> {
    const o = this.#o;
    const tool = this.#toolByName(call.name);
    if (tool === undefined) {
      const names = (await this.#tools()).map((t) => t.name).join(", ") || "none";
      return { content: `Unknown tool "${call.name}". Available tools: ${names}.`, isError: true };
    }
    if (call.inputError !== undefined) {
      return { content: `Invalid tool input for ${call.name}: ${call.inputError}`, isError: true };
    }
    const parsed = tool.schema.safeParse(call.input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join(
        "; ",
      );
      return { content: `Invalid tool input for ${call.name}: ${issues}`, isError: true };
    }
    const path = await this.#rulePath(tool.name, call.input, ctx);
    const gate = decide({
      name: tool.name,
      kind: tool.kind,
      input: call.input,
      ...(path === undefined ? {} : { path }),
      trusted: o.trusted,
      mode: o.mode,
      rules: o.rules,
      ...(o.limits === undefined ? {} : { limits: o.limits }),
      scope: { workspaceRoot: o.workspaceRoot, ...(homeOf(o.ports)) },
      ...(tool.readOnly === true ? { readOnly: true } : {}),
    });
    if (!gate.allow) {
      denied.by = "gate";
      return { content: gate.message, isError: true };
    }
    if (ctx.signal.aborted) return { content: "Interrupted before the tool ran.", isError: true };
    try {
      return await tool.run(parsed.data, ctx);
    } catch (e) {
      return { content: `Tool ${call.name} failed unexpectedly: ${describeError(e)}`, isError: true };
    }
  }
}

function homeOf(ports: Ports): { home?: string } {
  const home = ports.env.home();
  return home === undefined ? {} : { home };
}

function cancelled(): RunError {
  return { type: "cancelled", message: "The run was cancelled." };
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
