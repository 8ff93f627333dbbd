// Test harness for background subagents (lib/manager/*_test.ts, lib/executor/settle_test.ts): a real
// temp workspace and storage root, the real FileSidecarStore (wrapped to count writes), BackgroundRuns,
// Heartbeat and ShellTasks, a one-agent registry and a hand-written model whose replies the test
// decides per request (and may hold on a Gate). Also builds parent-session loops over real transcripts.
// Does not run the CLI (tests/support/blade.ts does) and never sleeps.

import type { Clock } from "../../lib/sys/clock.ts";
import { type Ports, realPorts } from "../../lib/sys/mod.ts";
import type { Message, ToolCallBlock } from "../../lib/protocol/messages.ts";
import { NO_RULES } from "../../lib/protocol/tool_rule.ts";
import type { ModelRequest, Provider, ProviderEvent, StreamOptions } from "../../lib/protocol/provider.ts";
import type { RuntimeEvent, TranscriptEvent } from "../../lib/protocol/events.ts";
import { type StorageLayout, storageLayout } from "../../lib/config/storage.ts";
import { FileSidecarStore } from "../../lib/store/file_store.ts";
import type {
  LoadResult,
  SidecarChange,
  SidecarCompletion,
  SidecarListing,
  SidecarOwner,
  SidecarStore,
} from "../../lib/store/store.ts";
import type { SidecarRecord } from "../../lib/store/schema.ts";
import { Heartbeat } from "../../lib/store/heartbeat.ts";
import { BackgroundRuns } from "../../lib/manager/background.ts";
import { ShellTasks } from "../../lib/manager/shells.ts";
import { Semaphore } from "../../lib/manager/semaphore.ts";
import { type SubagentEnv, SubagentRuntime } from "../../lib/manager/subagents.ts";
import { InThreadRunner } from "../../lib/manager/child_runner.ts";
import { agentDefinitionSchema } from "../../lib/registry/schema.ts";
import { RegistrySnapshot } from "../../lib/registry/snapshot.ts";
import { coreTools } from "../../lib/tools/registry.ts";
import type { AnyTool, ToolContext } from "../../lib/tools/tool.ts";
import { AgentLoop } from "../../lib/executor/loop.ts";
import type { PendingWork } from "../../lib/protocol/delivery.ts";
import { parseTranscript, TranscriptWriter } from "../../lib/session/transcript.ts";
import { Inbox } from "../../lib/session/inbox.ts";

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
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A SidecarStore that forwards to another and records every write. */
export class CountingStore implements SidecarStore {
  #inner: SidecarStore;
  /** Every write: method and id; `heartbeat` is an `update(id, {})` (the Heartbeat's bump). */
  readonly writes: { method: "create" | "save" | "update" | "markCompleted" | "heartbeat"; id: string }[] =
    [];

  constructor(inner: SidecarStore) {
    this.#inner = inner;
  }

  heartbeats(id: string): number {
    return this.writes.filter((w) => w.method === "heartbeat" && w.id === id).length;
  }

  create(record: SidecarRecord): Promise<void> {
    this.writes.push({ method: "create", id: record.id });
    return this.#inner.create(record);
  }
  save(record: SidecarRecord): Promise<void> {
    this.writes.push({ method: "save", id: record.id });
    return this.#inner.save(record);
  }
  load(id: string): Promise<LoadResult | null> {
    return this.#inner.load(id);
  }
  update(id: string, change: SidecarChange): Promise<SidecarRecord> {
    const bump = typeof change === "object" && Object.keys(change).length === 0;
    this.writes.push({ method: bump ? "heartbeat" : "update", id });
    return this.#inner.update(id, change);
  }
  markCompleted(id: string, completion: SidecarCompletion): Promise<SidecarRecord> {
    this.writes.push({ method: "markCompleted", id });
    return this.#inner.markCompleted(id, completion);
  }
  list(owner: SidecarOwner): Promise<SidecarRecord[]> {
    return this.#inner.list(owner);
  }
  listAll(): Promise<SidecarListing> {
    return this.#inner.listAll();
  }
  remove(id: string): Promise<boolean> {
    return this.#inner.remove(id);
  }
  cleanupExpired(owner: SidecarOwner, olderThanMs: number, options?: { now?: number }): Promise<number> {
    return this.#inner.cleanupExpired(owner, olderThanMs, options);
  }
}

/** The one agent type of the harness registry: no tools, so a child only talks to the model. */
export const WORKER = "worker";

export interface HarnessOptions {
  reply: ReplyFn;
  /** Default: the real clock. */
  clock?: Clock;
}

export interface ParentSession {
  sessionId: string;
  owner: SidecarOwner;
  transcript: TranscriptWriter;
  runtime: SubagentRuntime;
  /** A loop for this session, seeded with `history` (default: empty). */
  loop(options?: {
    tools?: AnyTool[];
    pending?: PendingWork;
    history?: { messages: Message[]; turns: number };
  }): AgentLoop;
  /** Every event of this session's transcript so far. */
  events(): Promise<TranscriptEvent[]>;
  inbox(): Inbox;
}

export interface BackgroundHarness extends AsyncDisposable {
  dir: string;
  /** Canonical workspace path (also the parents' project path). */
  workspace: string;
  storage: string;
  home: string;
  ports: Ports;
  model: FakeModel;
  store: CountingStore;
  layout: StorageLayout;
  env: SubagentEnv;
  /** Every runtime event emitted through the env. */
  events: RuntimeEvent[];
  /** Called for every runtime event (after it is recorded). */
  onEvent: ((event: RuntimeEvent) => void) | undefined;
  /** The runtime of a top-level session (default owner: `session-parent` in the workspace). */
  runtime(parent?: { sessionId?: string; projectPath?: string }): SubagentRuntime;
  /**
   * A top-level session with a transcript: `session_created` is written unless `reopen` is set (a
   * restarted process opening an existing session with a fresh writer).
   */
  parent(sessionId?: string, options?: { reopen?: boolean }): Promise<ParentSession>;
  ctx(overrides?: Partial<ToolContext>): ToolContext;
  /** The sidecar file of `id` as stored on disk. */
  sidecar(id: string): Promise<SidecarRecord & Record<string, unknown>>;
  /** Another process's view: same store and layout, its own (empty) BackgroundRuns. */
  otherProcessEnv(): SubagentEnv;
}

export async function backgroundHarness(options: HarnessOptions): Promise<BackgroundHarness> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-bg-" }));
  const workspace = `${dir}/work`;
  const storage = `${dir}/storage`;
  const home = `${dir}/home`;
  for (const d of [workspace, storage, home]) await Deno.mkdir(d);
  const real = realPorts();
  const ports: Ports = { ...real, clock: options.clock ?? real.clock };
  const layout = storageLayout(storage);
  const store = new CountingStore(
    new FileSidecarStore({ fs: ports.fs, clock: ports.clock, storageRoot: storage }),
  );
  const model = new FakeModel(options.reply);
  const worker = agentDefinitionSchema.parse({
    name: WORKER,
    description: "Does one thing and answers.",
    systemPrompt: "You are a worker.",
    tools: [],
    source: "flag",
    path: "--agents",
  });
  const events: RuntimeEvent[] = [];
  const env: SubagentEnv = {
    ports,
    layout,
    store,
    registry: new RegistrySnapshot(workspace, [worker]),
    aliases: {},
    trusted: true,
    maxDepth: 3,
    slots: new Semaphore(20),
    coreTools,
    emit: (event) => {
      events.push(event);
      harness.onEvent?.(event);
    },
    background: new BackgroundRuns({ ports, store, layout }),
    heartbeat: new Heartbeat(store, { clock: ports.clock }),
    shells: new ShellTasks(ports),
    // In this thread, so children talk to the FakeModel.
    runner: new InThreadRunner({ ports, provider: model, layout, maxTokens: 1000 }),
  };
  const runtime = (parent: { sessionId?: string; projectPath?: string } = {}) =>
    new SubagentRuntime(env, {
      sessionId: parent.sessionId ?? "session-parent",
      projectPath: parent.projectPath ?? workspace,
      workspaceRoot: workspace,
      model: "test-model",
      mode: "yolo",
      depth: 0,
    });
  const ctx = (overrides: Partial<ToolContext> = {}): ToolContext => ({
    ports,
    sessionId: "session-parent",
    workspaceRoot: workspace,
    storageRoot: storage,
    trusted: true,
    mode: "yolo",
    callId: "call_test",
    signal: new AbortController().signal,
    emit: env.emit,
    ...overrides,
  });
  const harness: BackgroundHarness = {
    dir,
    workspace,
    storage,
    home,
    ports,
    model,
    store,
    layout,
    env,
    events,
    onEvent: undefined,
    runtime,
    ctx,
    async parent(sessionId = "session-parent", o = {}) {
      const transcript = new TranscriptWriter({
        fs: ports.fs,
        clock: ports.clock,
        ids: ports.ids,
        path: layout.transcriptPath(workspace, sessionId),
        sessionId,
        projectPath: workspace,
      });
      if (o.reopen !== true) {
        await transcript.append([{
          type: "session_created",
          data: { agentType: "main", model: "test-model", depth: 0 },
        }]);
      }
      const rt = runtime({ sessionId });
      return {
        sessionId,
        owner: rt.owner,
        transcript,
        runtime: rt,
        loop: (o = {}) =>
          new AgentLoop({
            ports,
            provider: model,
            transcript,
            tools: o.tools ?? rt.tools(),
            system: "You are the parent.",
            model: "test-model",
            maxTokens: 1000,
            meta: { sessionId, agentType: "main", depth: 0 },
            trusted: true,
            mode: "yolo",
            rules: NO_RULES,
            workspaceRoot: workspace,
            storageRoot: storage,
            emit: env.emit,
            ...(o.pending === undefined ? {} : { pending: o.pending }),
          }, o.history ?? { messages: [], turns: 0 }),
        events: async () => parseTranscript(await Deno.readTextFile(transcript.path)).events,
        inbox: () => env.background.inboxFor(rt.owner),
      };
    },
    async sidecar(id) {
      return JSON.parse(await Deno.readTextFile(`${storage}/agents/sessions/${id}.json`));
    },
    otherProcessEnv() {
      return {
        ...env,
        background: new BackgroundRuns({ ports, store, layout }),
        shells: new ShellTasks(ports),
      };
    },
    async [Symbol.asyncDispose]() {
      const spawned = events.flatMap((e) => (e.type === "subagent_spawned" ? [e.subagent.session_id] : []));
      for (const id of spawned) env.background.abort(id, "test finished");
      await env.background.settleAll();
      await env.shells.stopAll();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
  return harness;
}

/** Events of the transcript that persist messages with an inbox id (delivery receipts). */
export function deliveredIn(events: readonly TranscriptEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === "message_created" && e.data.inboxId !== undefined ? [e.data.inboxId] : []
  );
}

/** How often `needle` occurs in `haystack`. */
export function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** Checks `check` every 20 ms until it holds; fails after `timeoutMs` (default 5 s). */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 5000);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `promise`, or a rejection naming `what` when it takes longer than `ms`: a hang fails the test. */
export async function bounded<T>(what: string, promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}
