// Owns FakeModel, a hand-written Provider for in-process tests: the test decides each reply per request
// (text in deltas, tool calls, an error, a pause on a Gate), and the model records every request and
// which streams were aborted. Also Gate, a latch tests hold a reply on. Never sleeps.

import type { Message, ToolCallBlock } from "../protocol/messages.ts";
import type { ModelRequest, Provider, ProviderEvent, StreamOptions } from "../protocol/provider.ts";

/** A latch: `wait()` resolves once `open()` was called (or rejects when `signal` aborts first). */
export class Gate {
  #open = false;
  #waiters: (() => void)[] = [];

  get isOpen(): boolean {
    return this.#open;
  }

  open(): void {
    this.#open = true;
    for (const w of this.#waiters.splice(0)) w();
  }

  wait(signal?: AbortSignal): Promise<void> {
    if (this.#open) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== done);
        reject(signal?.reason);
      };
      this.#waiters.push(done);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** One model answer. */
export interface Reply {
  text?: string;
  /** Stream the text in this many deltas (default 1). */
  deltas?: number;
  /** Awaited between groups of deltas: the deltas are split into `pauses.length + 1` groups. */
  pauses?: (() => Promise<void>)[];
  toolCalls?: { name: string; input: Record<string, unknown>; id?: string }[];
}

/** Decides the answer to one request; may wait (e.g. on a Gate with `signal`). */
export type ReplyFn = (request: ModelRequest, signal: AbortSignal) => Reply | Promise<Reply>;

/** The text of the first user message: what a session was started with. */
export function firstUserText(request: ModelRequest): string {
  const first = request.messages.find((m) => m.role === "user");
  return first?.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("") ?? "";
}

/** Assistant messages already in the request: 0 for a session's first request. */
export function turnIndex(request: ModelRequest): number {
  return request.messages.filter((m) => m.role === "assistant").length;
}

/** A hand-written model: answers each request with `reply`, records requests and aborts. */
export class FakeModel implements Provider {
  readonly name = "fake";
  /** Every request, with a copy of its messages as sent. */
  readonly requests: ModelRequest[] = [];
  /** Requests whose stream was aborted, by session id. */
  readonly aborted: string[] = [];
  #reply: ReplyFn;
  #calls = 0;

  constructor(reply: ReplyFn) {
    this.#reply = reply;
  }

  requestsOf(agentType: string): ModelRequest[] {
    return this.requests.filter((r) => r.meta.agentType === agentType);
  }

  async *stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<ProviderEvent> {
    const signal = options.signal ?? new AbortController().signal;
    this.requests.push({ ...request, messages: structuredClone(request.messages) });
    const usage = { inputTokens: 1, outputTokens: 1 };
    const aborted = (): ProviderEvent => {
      this.aborted.push(request.meta.sessionId);
      return {
        type: "error",
        error: { kind: "aborted", message: "The request was aborted." },
        stopReason: "aborted",
        usage,
      };
    };
    yield { type: "request_started", attempt: 1 };
    let reply: Reply;
    try {
      reply = await abortable(Promise.resolve(this.#reply(request, signal)), signal);
      const text = reply.text ?? "";
      const groups = (reply.pauses?.length ?? 0) + 1;
      const pieces = split(text, Math.max(reply.deltas ?? 1, groups));
      const perGroup = Math.ceil(pieces.length / groups);
      for (let g = 0; g < groups; g++) {
        for (const piece of pieces.slice(g * perGroup, (g + 1) * perGroup)) {
          yield { type: "text_delta", text: piece };
        }
        const pause = reply.pauses?.[g];
        if (pause !== undefined) await abortable(pause(), signal);
      }
    } catch {
      yield aborted();
      return;
    }
    if (signal.aborted) {
      yield aborted();
      return;
    }
    const calls: ToolCallBlock[] = (reply.toolCalls ?? []).map((c) => ({
      type: "tool_call",
      id: c.id ?? `call_${request.meta.agentType}_${++this.#calls}`,
      name: c.name,
      input: c.input,
    }));
    const message: Message = {
      role: "assistant",
      content: [...(reply.text === undefined ? [] : [{ type: "text" as const, text: reply.text }]), ...calls],
    };
    yield { type: "done", message, stopReason: calls.length > 0 ? "tool_use" : "end_turn", usage };
  }
}

function split(text: string, n: number): string[] {
  if (text === "") return [];
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The reply may reject with the same reason: handled here, never an unhandled rejection.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
