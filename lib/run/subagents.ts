// Owns launching child runs for one parent session (docs/reference/task-tool.md,
// docs/reference/sidecars.md): applies the pure launch plan (launch_plan.ts) and the worktree
// isolation, records the sidecar before the child starts, runs the child under its session lease
// and a concurrency slot through the run's ChildRunner (child_run.ts), and ends it there and in
// sidecar_lifecycle.ts. The child's view of the runtime is child_host.ts, the environment
// subagent_env.ts, the Task results result.ts, background runs background.ts, record projections
// projections.ts.

import { BladeError, describeError } from "../errors.ts";
import { profileMark } from "../sys/profile.ts";
import type { RuntimeEventSink, SubtaskRefPart } from "../protocol/events.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";
import { type SubagentLauncher, type TaskRequest, taskTool, type WarmCall } from "../tools/task.ts";
import type { ChildOutcome, ChildSpec } from "../executor/child.ts";
import type { ChildHost } from "../child/child_runner.ts";
import { abandon, isolate, worktreeDeps } from "./isolation.ts";
import { type SidecarOwner, wholeRecord } from "../store/store.ts";
import { deliverNotice, launchFailed, reportCrash, statusWriteFailed } from "./sidecar_lifecycle.ts";
import { taskOutputTool, taskStopTool } from "../tools/task_control.ts";
import { TaskControl } from "./task_control.ts";
import { runRemoteChild } from "./remote_child.ts";
import type { LentSlot } from "./semaphore.ts";
import { backgroundCapableBash } from "./shells.ts";
import { monitorTool } from "./monitor.ts";
import { subagentCompleted, subagentInfo } from "./projections.ts";
import { childHost, nestedParent } from "./child_host.ts";
import { launchParentOf, type SubagentEnv, taskControlDeps } from "./subagent_env.ts";
import { backgroundStarted, completion, foregroundResult, launchRefused } from "./result.ts";
import {
  type ChildLease,
  finishChild,
  type LeasedRun,
  lifecycleOf,
  releaseChildLease,
  runChildLeased,
  takeChildLease,
} from "./child_run.ts";
import { type AgentHookRequest, VERIFIER_AGENT } from "../hooks/agent_hook.ts";
import { verifierDefinition, verifierSpec, withVerifier } from "./hook_verifier.ts";
import {
  type ParentInfo,
  planLaunch,
  type ResumeLookup,
  resumeSourceOf,
  runningRef,
  warmSpec,
} from "../launch/launch_plan.ts";
import { sourceVisible } from "../launch/resume_plan.ts";
import type { OwnProcess } from "../launch/launch_record.ts";

export class SubagentRuntime implements SubagentLauncher {
  #env: SubagentEnv;
  #parent: ParentInfo;

  /** Whether this runtime's own session may ask the person (false below a background run). */
  #canAsk: boolean;

  /** A child session's concurrency slot, lent back while it waits on its own children (none at the top). */
  #slot: LentSlot | undefined;

  constructor(env: SubagentEnv, parent: ParentInfo, options: { canAsk?: boolean; slot?: LentSlot } = {}) {
    this.#env = env;
    this.#parent = parent;
    this.#canAsk = options.canAsk ?? true;
    this.#slot = options.slot;
  }

  /** The tools this session gets for delegation. */
  tools(): AnyTool[] {
    const control = this.control();
    return [
      taskTool(this),
      taskOutputTool(control),
      taskStopTool(control),
      monitorTool(this.#env.shells, this.owner, this.#env.ports.clock),
    ];
  }

  /** TaskOutput and TaskStop for this session's runs (a blocking TaskOutput lends the slot back). */
  control(): TaskControl {
    return new TaskControl(
      { ...taskControlDeps(this.#env), waiting: (wait) => this.#waiting(wait) },
      this.owner,
    );
  }

  /** A wait on this session's own children: its slot is free for them meanwhile. */
  #waiting<T>(wait: () => Promise<T>): Promise<T> {
    return this.#slot === undefined ? wait() : this.#slot.whileWaiting(wait);
  }

  /** The core tools with Bash able to run commands in the background as this session's tasks. */
  coreTools(): AnyTool[] {
    return this.#env.coreTools().map((t) =>
      t.name === "Bash" ? backgroundCapableBash(t, this.#env.shells, this.owner) : t
    );
  }

  get owner(): SidecarOwner {
    return { parentSessionId: this.#parent.sessionId, parentProjectPath: this.#parent.projectPath };
  }

  agentTypes(): string[] {
    return this.#env.registry.names();
  }

  /**
   * Starts the Worker this call's child would run in, while the parent's answer still streams. This
   * process's identity, which the launch records, is read first: on Linux that runs a subprocess
   * (`cat /proc/<pid>/stat`), which then runs while `new Worker` holds this thread (~15 ms), not after.
   */
  warm(call: WarmCall): void {
    const env = this.#env;
    env.ownProcess().catch(() => {}); // read once; the launch awaits the same promise
    const spec = warmSpec(call, env.registry, launchParentOf(this.#env, this.#parent));
    if (spec === undefined) return;
    env.runner.warm(spec, this.#hostFor(spec, () => {}, new AbortController().signal));
  }

  async plan(input: TaskRequest): Promise<SubtaskRefPart | undefined> {
    const from = resumeSourceOf(input);
    if (from === undefined) return runningRef(input, this.#env.registry);
    const lookup = await this.#resumeLookup(from, input.subagent_session_id);
    if ("error" in lookup) return undefined; // launch reports it
    const source = lookup.source;
    if (source === null || !("record" in source)) return undefined;
    // Who sees a source is planResume's rule (the launch applies it again).
    const { projectKey } = ownedHere(await this.#env.ownProcess(), this.#parent);
    const who = {
      parentSessionId: this.#parent.sessionId,
      projectPath: this.#parent.projectPath,
      projectKey,
    };
    if (!sourceVisible(source.record, who)) return undefined;
    return runningRef(input, this.#env.registry, source.record);
  }

  /**
   * The resume source as stored and whether the new id is taken (planLaunch decides the rest), or
   * why they could not be looked up. Only an absent record (or an id no record can have) reads as
   * not found; any other failure (an unreadable sessions folder) is reported as itself.
   */
  async #resumeLookup(from: string, newId: string): Promise<ResumeLookup | { error: string }> {
    const store = this.#env.store;
    const load = async (id: string) => {
      try {
        return await store.load(id);
      } catch (e) {
        if (e instanceof BladeError && e.code === "invalid_session_id") return null;
        throw e;
      }
    };
    try {
      const source = await load(from);
      // A resume continues the whole conversation: what the source's record spilled is read back.
      const whole = source !== null && "record" in source
        ? { ...source, record: await wholeRecord(store, source.record) }
        : source;
      return { source: whole, newIdTaken: (await load(newId)) !== null };
    } catch (e) {
      return { error: `Cannot resume "${from}": its record could not be read (${describeError(e)}).` };
    }
  }

  async launch(input: TaskRequest, ctx: ToolContext): Promise<ToolResult> {
    const env = this.#env;
    const id = input.subagent_session_id;
    profileMark("Task launch");
    const parent = {
      ...launchParentOf(this.#env, this.#parent),
      process: ownedHere(await env.ownProcess(), this.#parent),
      turnsLeft: ctx.turnsLeft,
    };
    const from = resumeSourceOf(input);
    const lookup = from === undefined ? undefined : await this.#resumeLookup(from, id);
    if (lookup !== undefined && "error" in lookup) return launchRefused(lookup.error, id);
    const planned = planLaunch(input, {
      registry: env.registry,
      parent,
      now: env.ports.clock.now(),
      resume: lookup,
    });
    if (!planned.ok) return launchRefused(planned.refusal, id);
    const worktrees = worktreeDeps(env.ports, env.layout);
    const plan = await isolate(worktrees, planned, this.#parent.workspaceRoot);
    if ("refusal" in plan) return launchRefused(plan.refusal, id);
    const { record, spec } = plan;
    // A foreground child's lease is taken while its sidecar is created (a background one's when it runs).
    const lease = record.background ? undefined : takeChildLease(env, spec);
    try {
      await env.store.create(record);
    } catch (e) {
      if (lease !== undefined) await releaseChildLease(lease);
      await abandon(worktrees, record.worktree);
      return launchRefused(
        launchFailed(lifecycleOf(env), { parentSessionId: this.#parent.sessionId, id, cause: e }),
        id,
      );
    }
    profileMark("sidecar created");
    env.emit({
      type: "subagent_spawned",
      parentSessionId: this.#parent.sessionId,
      callId: ctx.callId,
      subagent: subagentInfo(record),
    });
    if (record.isolation === "remote") return this.#startRemote({ record, spec, callId: ctx.callId });
    if (record.background) return this.#startBackground(record, spec, ctx.callId);
    const { outcome, released } = await this.#waiting(() => this.#run(spec, ctx.signal, undefined, lease));
    profileMark("child outcome");
    // The child's lease is given back while its terminal sidecar is committed.
    const [done] = await Promise.all([
      finishChild(env, this.#parent.sessionId, record, { outcome, aborted: ctx.signal.aborted }),
      released,
    ]);
    profileMark("sidecar finished");
    const { status, summary } = this.#completed(ctx.callId, done, outcome);
    return foregroundResult(ctx.callId, done, outcome, status, summary, spec.capped);
  }

  /**
   * Runs an `agent` hook's verifier (hook_verifier.ts) as this session's foreground child: planned
   * like a Task call (its grant computed from this session's), recorded, run under its lease and a
   * slot, finished; its accepted StructuredOutput object, or why there is none. No Task events: the
   * verifier is the hook's, not a call of the model's; it never asks the person.
   */
  async verifyHook(
    request: AgentHookRequest,
    o: { signal: AbortSignal; turnsLeft?: number | undefined },
  ): Promise<{ answer: unknown } | { failed: string }> {
    const env = this.#env;
    const parent = {
      ...launchParentOf(env, this.#parent),
      process: ownedHere(await env.ownProcess(), this.#parent),
      turnsLeft: o.turnsLeft,
    };
    const input: TaskRequest = {
      subagent_type: VERIFIER_AGENT,
      description: "Verify a hook's condition",
      prompt: request.prompt,
      subagent_session_id: env.ports.ids.uuid(),
    };
    const registry = withVerifier(env.registry, verifierDefinition(request));
    const planned = planLaunch(input, { registry, parent, now: env.ports.clock.now() });
    if (!planned.ok) return { failed: planned.refusal };
    const record = planned.record;
    const spec = verifierSpec(planned.spec, { request, commandEnv: parent.auditEnv ?? {} });
    const lease = takeChildLease(env, spec);
    try {
      await env.store.create(record);
    } catch (e) {
      await releaseChildLease(lease);
      return { failed: describeError(e) };
    }
    // Its events stay out of the session's output and its own tool calls fire no hooks (no verifier
    // judges a verifier), as in Claude Code 2.1.332 (tests/fixtures/claude/hooks_agent_*).
    const { hooks: _, ...unhooked } = env;
    const quiet = new SubagentRuntime(
      {
        ...unhooked,
        emit: (e) => void (e.type === "subagent_event" && e.agentId === spec.id ? undefined : env.emit(e)),
      },
      this.#parent,
      { canAsk: false },
    );
    const { outcome, released } = await this.#waiting(() => quiet.#run(spec, o.signal, undefined, lease));
    await Promise.all([
      finishChild(env, this.#parent.sessionId, record, { outcome, aborted: o.signal.aborted }),
      released,
    ]);
    const shaped = outcome.structuredOutput;
    if (shaped?.status === "accepted") return { answer: shaped.value };
    return { failed: outcome.error ?? (shaped?.status === "rejected" ? shaped.reason : "no answer") };
  }

  #startBackground(record: SidecarRecord, spec: ChildSpec, callId: string): ToolResult {
    const env = this.#env;
    const id = record.id;
    const owner = this.owner;
    const lifecycle = lifecycleOf(env);
    // Its creation just set lastActiveAt: the child's first events within a second write nothing.
    env.heartbeat.wrote(id, record.lastActiveAt);
    env.background.start({ agentId: id, callId, owner }, async (signal) => {
      try {
        const beatFailed = statusWriteFailed(lifecycle, {
          sessionId: this.#parent.sessionId,
          id,
          what: "activity time",
        });
        const run = await this.#run(spec, signal, () => void env.heartbeat.beat(id).catch(beatFailed));
        const outcome = run.outcome;
        env.heartbeat.forget(id);
        const [done] = await Promise.all([
          finishChild(env, this.#parent.sessionId, record, { outcome, aborted: signal.aborted }),
          run.released,
        ]);
        await deliverNotice(lifecycle, done, owner);
        this.#completed(callId, done, outcome);
      } catch (e) {
        await reportCrash(lifecycle, { record, owner, cause: e });
      }
    });
    return backgroundStarted(record, spec.capped);
  }

  /** A remote child (remote_child.ts): placed on a worker, its end awaited through the shared store. */
  #startRemote(o: { record: SidecarRecord; spec: ChildSpec; callId: string }): ToolResult {
    const { record, spec, callId } = o;
    const env = this.#env;
    const owner = this.owner;
    const lifecycle = lifecycleOf(env);
    const remote = env.remote;
    if (remote === undefined) throw new Error("a remote launch was planned without a placement");
    env.background.start({ agentId: record.id, callId, owner }, async (signal) => {
      try {
        const done = await runRemoteChild({ ...lifecycle, remote }, { record, spec, owner, signal });
        this.#completed(callId, done, {
          success: done.result.success,
          message: done.result.message,
          ...(done.result.error === undefined ? {} : { error: done.result.error }),
          cancelled: done.status === "cancelled",
        });
      } catch (e) {
        await reportCrash(lifecycle, { record, owner, cause: e });
      }
    });
    return backgroundStarted(record, spec.capped);
  }

  #completed(
    callId: string,
    record: SidecarRecord,
    outcome: Pick<ChildOutcome, "success" | "message" | "error" | "cancelled">,
  ) {
    const end = completion(record, outcome);
    this.#env.emit(subagentCompleted(this.#parent.sessionId, callId, record, end));
    return end;
  }

  /**
   * `foreground`: the lease being taken for a run the parent waits for (so it may ask the person, in
   * interactive sessions); a background run takes its lease here.
   */
  #run(
    spec: ChildSpec,
    signal: AbortSignal,
    onActivity?: () => void,
    foreground?: Promise<ChildLease>,
  ): Promise<LeasedRun> {
    return runChildLeased(this.#env, spec, {
      parentSessionId: this.#parent.sessionId,
      ...(this.#parent.mcpTools === undefined ? {} : { parentMcpTools: this.#parent.mcpTools }),
      signal,
      ...(onActivity === undefined ? {} : { onActivity }),
      host: (emit, slot) => this.#hostFor(spec, emit, signal, { foreground: foreground !== undefined, slot }),
    }, foreground);
  }

  /** The child's view of this runtime (child_host.ts); only foreground chains up to an interactive session may ask. */
  #hostFor(
    spec: ChildSpec,
    emit: RuntimeEventSink,
    signal: AbortSignal,
    o: { foreground?: boolean; slot?: LentSlot } = {},
  ): ChildHost {
    const ask = o.foreground === true && this.#canAsk ? this.#env.approve : undefined;
    const nested = new SubagentRuntime(this.#env, nestedParent(this.#env, this.#parent, spec), {
      canAsk: ask !== undefined,
      ...(o.slot === undefined ? {} : { slot: o.slot }),
    });
    return childHost({ env: this.#env, spec, emit, signal, nested, ...(ask === undefined ? {} : { ask }) });
  }
}

/**
 * The process that owns a new run, with the key of the project it belongs to: the session's own when it
 * has one (a worker runs jobs of many projects, and a job's children are its project's), else the
 * process's.
 */
function ownedHere(process: OwnProcess, parent: ParentInfo): OwnProcess {
  return parent.projectKey === undefined ? process : { ...process, projectKey: parent.projectKey };
}
