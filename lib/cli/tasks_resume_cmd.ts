// Owns `blade tasks resume <id> "prompt"`: continues a finished run of this folder as a new run with
// the source's frozen configuration, history and lineage — the same launch path as Task `resume_from`
// (launch/launch_plan.ts → subagents.ts), under the source's owner so the lineage stays whole. Prints
// the new run's id and result; exit 0/1 by the new run's outcome. `--background` starts a detached copy
// (like `blade run --background`) and returns once the new run is recorded.

import { resumeOutcome } from "../executor/run_outcome.ts";
import { parseArgs } from "./parse_args.ts";
import type { Ports } from "../sys/mod.ts";
import { BladeError, usageError } from "../errors.ts";
import { type App, createApp } from "../app.ts";
import { type Io, redactedIo } from "./io.ts";
import { onceWarnings } from "./warnings.ts";
import { parseOrUsage, RUN_OPTIONS } from "./args.ts";
import { claudeArgv } from "./claude_argv.ts";
import { appFlagsOf, outputFormatOf, rulesFromFlags, type Values } from "./print_flags.ts";
import { interruptController, type PrintSink, printSink } from "./print_turn.ts";
import { runHookEngine, runHooksOf } from "./hook_wiring.ts";
import type { OutputFormat } from "./print_render.ts";
import type { SidecarOwner, SidecarStore } from "../store/store.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { readStdin } from "../sys/signals.ts";
import { SubagentRuntime } from "../run/subagents.ts";
import type { SubagentEnv } from "../run/subagent_env.ts";
import { newAgentId } from "../sys/ids.ts";
import { validateSessionId } from "../protocol/ids.ts";
import { readTranscript } from "../session/transcript.ts";
import { startDetached } from "./run_cmd.ts";
import { reconcile } from "../recovery/recovery.ts";
import { type ProjectHere, rootHere, sameProject } from "../store/project_key.ts";

export const RESUME_HELP = `Usage: blade tasks resume <id> "prompt" [options]

Continues a finished run of this folder (with --store, of any clone of this project, in the same
place of this checkout) as a new run: same agent, same frozen configuration (model, permission
mode, tools, system prompt), the source's history, and its lineage (resumed_from, root, depth + 1).
The source run is never changed. Prints the new run's id and result; exit 0 when it succeeded, 1
when it failed.

  --background           start it in a detached process, print its id and exit at once
  --output-format <f>    text (default) | json | stream-json   (--json = --output-format json)
  plus --provider, --script, --trust-workspace, --debug (see blade --help)
`;

export async function runTasksResume(argv: string[], ports: Ports, io: Io): Promise<number> {
  const args = await resumeArgs(argv, ports);
  if (args === undefined) {
    io.out(RESUME_HELP);
    return 0;
  }
  const { values, sourceId, prompt } = args;
  const format = values.json === true ? "json" : outputFormatOf(values);
  if (values.background === true) {
    return await startDetached(argv.filter((a) => a !== "--json"), ports, io, {
      agent: sourceId,
      json: format === "json",
      command: ["tasks", "resume"],
    });
  }
  const sinks = { debugSink: (l: string) => io.err(`[debug] ${l}\n`), warnSink: onceWarnings(io) };
  const app = await createApp(ports, appFlagsOf(values), sinks);
  // Disposed after the runtime (the shared store's connection outlives the run's last write).
  await using _app = { [Symbol.asyncDispose]: () => app.close() };
  io = redactedIo(io, app.redact);
  const made = resumeRuntime(app, { io, format, values });
  const sink = made.sink;
  await using run = made.runtime;
  const env = await run.env();
  {
    const { source, depth } = await reconciledSource(ports, app, { env, sourceId });
    made.parentIs(source.parentSessionId);
    const runtime = new SubagentRuntime(env, {
      sessionId: source.parentSessionId,
      projectPath: app.workspace,
      // A run another clone started works here in the same place of the folder (planResume refuses
      // one that has no such place).
      workspaceRoot: rootHere(source, app.workspace) ?? source.workspaceRoot,
      model: source.configSnapshot.model,
      mode: source.configSnapshot.permissionMode,
      depth: depth - 1,
    });
    const detachedId = values["agent-id"];
    const id = detachedId === undefined ? newAgentId(ports.ids) : validateSessionId(detachedId);
    const interrupt = interruptController();
    try {
      const result = await runtime.launch({
        resume_from: sourceId,
        description: source.description,
        prompt,
        subagent_session_id: id,
        ...(detachedId === undefined ? {} : { run_in_background: true }),
      }, {
        ports,
        sessionId: source.parentSessionId,
        workspaceRoot: source.workspaceRoot,
        storageRoot: app.layout.root,
        trusted: app.trust.trusted,
        mode: source.configSnapshot.permissionMode,
        callId: `resume_${ports.ids.random21()}`,
        signal: interrupt.signal,
        emit: sink.emit,
      });
      if (detachedId !== undefined && !result.isError) await env.background.wait(id, 0, interrupt.signal);
      const after = await env.store.load(id);
      const record = after !== null && "record" in after ? after.record : undefined;
      const ok = record?.status === "completed";
      reportResumed(io, sink, format, {
        source,
        id,
        record,
        content: result.content,
        interrupted: interrupt.interrupted(),
      });
      if (interrupt.interrupted()) return 130;
      return ok ? 0 : 1;
    } finally {
      interrupt.dispose();
    }
  }
}

/**
 * Where the resumed run's events go and its subagent runtime, with the hooks the resumed child fires
 * (the run's and its frozen agent hooks: docs/guides/hooks.md), named after its parent once known.
 */
function resumeRuntime(app: App, o: { io: Io; format: OutputFormat; values: Values }) {
  const { io } = o;
  const sink = printSink(io, {
    format: o.format,
    mainSessionId: () => undefined,
    cwd: app.workspace,
    secrets: app.secrets,
  });
  const hooks = runHooksOf(app, { engine: runHookEngine(app, { io, always: true })!, io });
  return {
    sink,
    runtime: app.runtime(sink.emit, { hooks, rules: rulesFromFlags(o.values, io, app).texts }),
    parentIs: (sessionId: string) =>
      hooks?.bind({ sessionId, transcriptPath: app.layout.transcriptPath(app.workspace, sessionId) }),
  };
}

/** The parsed flags, the source id and the prompt; undefined for --help. */
async function resumeArgs(argv: string[], ports: Ports) {
  const { values, positionals } = parseOrUsage(() =>
    parseArgs({
      args: claudeArgv(argv),
      options: { ...RUN_OPTIONS, json: { type: "boolean" }, "agent-id": { type: "string" } },
      allowPositionals: true,
      strict: true,
    }), "blade tasks resume");
  if (values.help === true) return undefined;
  const [sourceArg, ...words] = positionals;
  if (sourceArg === undefined) {
    throw usageError(
      "blade tasks resume needs the id of the run to resume.",
      'Example: blade tasks resume agent-… "continue"',
    );
  }
  const sourceId = validateSessionId(sourceArg);
  let prompt = words.join(" ");
  if (prompt.trim() === "" && !ports.env.stdinIsTerminal()) prompt = (await readStdin()).trim();
  if (prompt.trim() === "") {
    throw usageError("No prompt given.", `Example: blade tasks resume ${sourceId} "what to do next"`);
  }
  return { values, sourceId, prompt };
}

/**
 * Runs of this project left "running" by a dead process reconciled first (a crashed source becomes
 * interrupted, and resumable) — this folder's, and with a shared store those of its project key
 * (store/project_key.ts), as `blade tasks` selects them — then the run to resume and its depth.
 */
async function reconciledSource(
  ports: Ports,
  app: App,
  o: { env: SubagentEnv; sourceId: string },
): Promise<{ source: SidecarRecord; depth: number }> {
  const { env } = o;
  const here = { path: app.workspace, key: await app.projectKey() };
  const inboxes = (owner: SidecarOwner) => env.background.inboxFor(owner);
  const deps = { ports, store: env.store, layout: app.layout, redact: app.redact, inboxes };
  await reconcile({ ...deps, checkout: app.workspace }, (r) => sameProject(r, here));
  return await resumeSource(ports, app, { store: env.store, here, sourceId: o.sourceId });
}

/**
 * The run to resume (a run of this project, any session: `sameProject`) and its depth;
 * session_not_found otherwise.
 */
async function resumeSource(
  ports: Ports,
  app: App,
  o: { store: SidecarStore; here: ProjectHere; sourceId: string },
): Promise<{ source: SidecarRecord; depth: number }> {
  const { sourceId } = o;
  const loaded = await o.store.load(sourceId);
  if (loaded === null || !("record" in loaded) || !sameProject(loaded.record, o.here)) {
    throw new BladeError(
      "session_not_found",
      `Cannot resume "${sourceId}": session not found in this workspace.`,
      {
        hint: "`blade tasks list` shows the runs of this project.",
      },
    );
  }
  const source = loaded.record;
  const header =
    (await readTranscript(ports.fs, app.layout.transcriptPath(source.parentProjectPath, source.id)))
      ?.events.find((e) => e.type === "session_created");
  // Another clone's run has its transcript there: its depth is counted by its ancestors' records.
  const depth = header?.type === "session_created"
    ? Math.max(1, header.data.depth)
    : await depthByRecords(o.store, source);
  return { source, depth };
}

/**
 * A run's nesting depth counted by the records of its ancestors (1: a child of a top-level session,
 * which has no record), at most 64 hops (a cycle of hand-edited records is not followed for ever).
 */
async function depthByRecords(store: SidecarStore, run: SidecarRecord): Promise<number> {
  let depth = 1;
  for (let parent = run.parentSessionId; depth <= 64; depth++) {
    const loaded = await store.load(parent).catch(() => null);
    if (loaded === null || !("record" in loaded)) break;
    parent = loaded.record.parentSessionId;
  }
  return depth;
}

/** Prints the new run's result object (and, as text, its lineage line). */
function reportResumed(
  io: Io,
  sink: PrintSink,
  format: OutputFormat,
  r: {
    source: SidecarRecord;
    id: string;
    record: SidecarRecord | undefined;
    content: string;
    interrupted: boolean;
  },
): void {
  const { source, id, record } = r;
  const { status, error } = resumeOutcome({ record, refusal: r.content, interrupted: r.interrupted });
  sink.finish({
    sessionId: source.parentSessionId,
    status,
    result: record?.result.message ?? "",
    agentId: id,
    numTurns: 0,
    toolCalls: record?.stats.toolCalls ?? 0,
    usage: { inputTokens: record?.stats.tokens ?? 0, outputTokens: 0 },
    durationMs: record?.stats.durationMs ?? 0,
    subagents: sink.subagents,
    ...(record === undefined ? {} : {
      lineage: {
        resumed_from: record.resumedFrom ?? null,
        root_agent_id: record.rootAgentId,
        resume_depth: record.resumeDepth,
      },
    }),
    ...(error === undefined ? {} : { error }),
  });
  if (format === "text" && record !== undefined) {
    io.out(
      `agentId: ${id} (resumed_from: ${
        record.resumedFrom ?? "none"
      }, root_agent_id: ${record.rootAgentId}, ` +
        `resume_depth: ${record.resumeDepth})\n`,
    );
  }
}
