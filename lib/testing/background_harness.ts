// Test harness for background subagents (lib/run/*_test.ts, lib/executor/settle_test.ts, tests/): a real
// temp workspace and storage root, the real FileSidecarStore (wrapped to count writes), BackgroundRuns,
// Heartbeat and ShellTasks, a one-agent registry and a hand-written model whose replies the test
// decides per request (and may hold on a Gate). Also builds parent-session loops over real transcripts.
// FakeModel (fake_model.ts) and CountingStore (counting_store.ts) are re-exported for its tests. Does not
// run the CLI (tests/support/blade.ts does) and never sleeps.

import { faultyFs } from "./fakes.ts";
import type { Clock } from "../sys/clock.ts";
import { type Ports, realPorts } from "../sys/mod.ts";
import type { Message } from "../protocol/messages.ts";
import { NO_RULES } from "../protocol/tool_rule.ts";
import type { RuntimeEvent, TranscriptEvent } from "../protocol/events.ts";
import { type StorageLayout, storageLayout } from "../config/storage.ts";
import { FileSidecarStore } from "../store/file_store.ts";
import type { SidecarOwner } from "../store/store.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { Heartbeat } from "../store/heartbeat.ts";
import { BackgroundRuns } from "../run/background.ts";
import { ShellTasks } from "../run/shells.ts";
import { Semaphore } from "../run/semaphore.ts";
import { SubagentRuntime } from "../run/subagents.ts";
import type { SubagentEnv } from "../run/subagent_env.ts";
import { InThreadRunner } from "../child/child_runner.ts";
import { ownProcessOf } from "../runtime/runtime.ts";
import { agentDefinitionSchema } from "../registry/schema.ts";
import { RegistrySnapshot } from "../registry/snapshot.ts";
import { coreTools } from "../tools/registry.ts";
import type { AnyTool, ToolContext } from "../tools/tool.ts";
import { AgentLoop } from "../executor/loop.ts";
import type { PendingWork } from "../protocol/delivery.ts";
import { parseTranscript, TranscriptWriter } from "../session/transcript.ts";
import type { SessionInbox } from "../session/inbox.ts";

import { FakeModel, type ReplyFn } from "./fake_model.ts";
import { CountingStore } from "./counting_store.ts";

export { FakeModel, firstUserText, Gate, type Reply, type ReplyFn, turnIndex } from "./fake_model.ts";
export { CountingStore } from "./counting_store.ts";

/** The one agent type of the harness registry: no tools, so a child only talks to the model. */
export const WORKER = "worker";

export interface HarnessOptions {
  reply: ReplyFn;
  /** Default: the real clock. */
  clock?: Clock;
  /** Atomic writes (sidecars, inboxes) to paths it accepts fail with PermissionDenied (faultyFs). */
  failWrites?: (path: string) => boolean;
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
  inbox(): SessionInbox;
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
  const fs = options.failWrites === undefined
    ? real.fs
    : faultyFs(real.fs, { writeAtomic: options.failWrites });
  const ports: Ports = { ...real, fs, clock: options.clock ?? real.clock };
  const layout = storageLayout(storage);
  const store = new CountingStore(
    new FileSidecarStore({ fs: ports.fs, clock: ports.clock, storageRoot: storage }),
  );
  const model = new FakeModel(options.reply);
  const events: RuntimeEvent[] = [];
  const env = harnessEnv({ ports, layout, store, model, workspace }, (event) => {
    events.push(event);
    harness.onEvent?.(event);
  });
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
    parent: (sessionId = "session-parent", o = {}) =>
      openParent(
        { ports, model, layout, env, workspace, storage },
        () => runtime({ sessionId }),
        sessionId,
        o,
      ),
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
    [Symbol.asyncDispose]: () => disposeHarness(dir, env, events),
  };
  return harness;
}

/** Stops every child and shell the harness started, then removes its folder. */
async function disposeHarness(dir: string, env: SubagentEnv, events: readonly RuntimeEvent[]): Promise<void> {
  const spawned = events.flatMap((e) => (e.type === "subagent_spawned" ? [e.subagent.session_id] : []));
  for (const id of spawned) env.background.abort(id, "test finished");
  await env.background.settleAll();
  await env.shells.stopAll();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/** The env of the harness: one worker agent type, its own BackgroundRuns, children in this thread. */
function harnessEnv(
  base: { ports: Ports; layout: StorageLayout; store: CountingStore; model: FakeModel; workspace: string },
  emit: (event: RuntimeEvent) => void,
): SubagentEnv {
  const { ports, layout, store, model, workspace } = base;
  const worker = agentDefinitionSchema.parse({
    name: WORKER,
    description: "Does one thing and answers.",
    systemPrompt: "You are a worker.",
    tools: [],
    source: "flag",
    path: "--agents",
  });
  return {
    ports,
    layout,
    store,
    registry: new RegistrySnapshot(workspace, [worker]),
    aliases: {},
    trusted: true,
    maxDepth: 3,
    slots: new Semaphore(20),
    coreTools,
    emit,
    background: new BackgroundRuns({ ports, store, layout }),
    heartbeat: new Heartbeat(store, { clock: ports.clock }),
    shells: new ShellTasks(ports),
    // In this thread, so children talk to the FakeModel.
    runner: new InThreadRunner({ ports, provider: model, layout, maxTokens: 1000 }),
    ownProcess: ownProcessOf(ports),
  };
}

/** A top-level session: its transcript (`session_created` written unless `o.reopen`) and runtime. */
async function openParent(
  base: {
    ports: Ports;
    model: FakeModel;
    layout: StorageLayout;
    env: SubagentEnv;
    workspace: string;
    storage: string;
  },
  runtimeOf: () => SubagentRuntime,
  sessionId: string,
  o: { reopen?: boolean },
): Promise<ParentSession> {
  const { ports, model, layout, env, workspace, storage } = base;
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
  const rt = runtimeOf();
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
