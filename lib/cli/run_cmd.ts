// Owns the command line of `blade run <agent> "prompt"`: parses it, builds the ad-hoc parent session
// and the subagent runtime, hands the run to lib/admin/direct_run.ts and prints its outcome (useful
// in CI: `blade run review "…" --output-format json`). Exit 0/1 by the child's success.

import { parseArgs } from "./parse_args.ts";
import type { Ports } from "../sys/mod.ts";
import { BladeError, usageError } from "../errors.ts";
import { type App, createApp } from "../app.ts";
import { type Io, redactedIo } from "./io.ts";
import { onceWarnings } from "./warnings.ts";
import { parseOrUsage, RUN_OPTIONS } from "./args.ts";
import { claudeArgv } from "./claude_argv.ts";
import { appFlagsOf, grantedRun, outputFormatOf } from "./print_flags.ts";
import type { OutputFormat } from "./print_render.ts";
import { interruptController, type PrintSink, printSink } from "./print_turn.ts";
import { runHookEngine, runHooksOf } from "./hook_wiring.ts";
import { readStdin } from "../sys/signals.ts";
import { mcpFlagsOf, startMcp } from "./mcp_wiring.ts";
import { SubagentRuntime } from "../run/subagents.ts";
import type { SubagentEnv } from "../run/subagent_env.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import { VERDICT_AGENTS } from "../verification/verdict.ts";
import { directRunOutcome } from "../executor/run_outcome.ts";
import { openSession } from "../session/open.ts";
import { ChildUsage, type DirectRunOutcome, runDirect } from "../admin/direct_run.ts";
import { newAgentId } from "../sys/ids.ts";
import { validateSessionId } from "../protocol/ids.ts";
import { selfCommand } from "../sys/self.ts";
import { resolveStorageRoot, storageLayout } from "../config/storage.ts";
import { bladeProcessPermissions, toDenoFlags } from "../permissions/deno_permissions.ts";
import { childContextOf } from "./context_wiring.ts";

const HELP = `Usage: blade run <agent> "prompt" [options]

Runs one subagent directly, as the child of a new parent session, and prints its final answer.
Exit code 0 when the agent succeeded, 1 when it failed. For verification and goal-verification, 0 only
when the verdict is pass: fail, partial and no verdict exit 1 and say which.

  --description <text>   the run's short description (default: the first words of the prompt)
  --background           start the agent in a detached process, print its id and exit at once;
                         follow it with \`blade tasks output <id> --wait\`, stop it with \`blade tasks cancel <id>\`
  --output-format <f>    text (default) | json | stream-json
  plus the options of blade -p: --model, --provider, --script, --permission-mode, --agents,
  --trust-workspace, --debug (see blade --help)

Examples:
  blade run review "Review the staged changes" --output-format json
  blade run verification "Verify the last change" --trust-workspace
`;

function parseRunArgs(argv: string[]) {
  return parseOrUsage(() =>
    parseArgs({
      args: claudeArgv(argv),
      options: { ...RUN_OPTIONS, description: { type: "string" }, "agent-id": { type: "string" } },
      allowPositionals: true,
      strict: true,
    }), "blade run");
}

/** The agent and the prompt (the words after it, else standard input when it is not a terminal). */
async function agentAndPrompt(
  positionals: string[],
  ports: Ports,
): Promise<{ agent: string; prompt: string }> {
  const [agent, ...words] = positionals;
  if (agent === undefined) {
    throw usageError("blade run needs an agent name.", 'Example: blade run review "check the diff"');
  }
  let prompt = words.join(" ");
  if (prompt.trim() === "" && !ports.env.stdinIsTerminal()) prompt = (await readStdin()).trim();
  if (prompt.trim() === "") throw usageError("No prompt given.", `Example: blade run ${agent} "what to do"`);
  return { agent, prompt };
}

/** Prints the run's result; a verification agent's run passes only with verdict pass (docs/guides/ci.md). */
function finishRun(
  sink: PrintSink,
  run: { sessionId: string; agent: string; agentId: string },
  outcome: DirectRunOutcome,
): "completed" | "failed" | "cancelled" {
  const audited = VERDICT_AGENTS.includes(run.agent);
  const failure = outcome.error === undefined ? undefined : {
    message: outcome.error,
    ...(outcome.errorCode === undefined ? {} : { lost: { code: outcome.errorCode, message: outcome.error } }),
  };
  const { status, error } = directRunOutcome({
    status: outcome.status,
    audited,
    ...(failure === undefined ? {} : { failure }),
    ...(outcome.verdict === undefined ? {} : { verdict: outcome.verdict }),
  });
  sink.finish({
    sessionId: run.sessionId,
    status,
    result: outcome.result,
    agentId: run.agentId,
    numTurns: 0,
    toolCalls: outcome.toolCalls,
    usage: outcome.usage,
    durationMs: outcome.durationMs,
    subagents: sink.subagents,
    ...(error === undefined ? {} : { error }),
    ...(audited ? { verdict: outcome.verdict ?? null } : {}),
  });
  return status;
}

/** How `blade run` launches its one child: as a Task call of its ad-hoc parent session at depth 0. */
function directLauncher(
  env: SubagentEnv,
  ports: Ports,
  app: App,
  sessionId: string,
  call: { callId: string; signal: AbortSignal; emit: (event: RuntimeEvent) => void },
): (input: Parameters<SubagentRuntime["launch"]>[0]) => ReturnType<SubagentRuntime["launch"]> {
  const runtime = new SubagentRuntime(env, {
    sessionId,
    projectPath: app.workspace,
    workspaceRoot: app.workspace,
    model: app.config.model,
    mode: app.config.permissionMode,
    depth: 0,
  });
  return (input) =>
    runtime.launch(input, {
      ports,
      sessionId,
      workspaceRoot: app.workspace,
      storageRoot: app.layout.root,
      trusted: app.trust.trusted,
      mode: app.config.permissionMode,
      ...call,
    });
}

/** Where the run's events go: its output format, redacted (secrets split over deltas too). */
function runSink(io: Io, app: App, format: OutputFormat): PrintSink {
  const timer = app.ports.clock.timer.bind(app.ports.clock);
  return printSink(io, {
    format,
    mainSessionId: () => undefined,
    cwd: app.workspace,
    timer,
    secrets: app.secrets,
  });
}

export async function runAgentCommand(argv: string[], ports: Ports, io: Io): Promise<number> {
  const { values, positionals } = parseRunArgs(argv);
  if (values.help === true) {
    io.out(HELP);
    return 0;
  }
  const { agent, prompt } = await agentAndPrompt(positionals, ports);
  if (values.background === true) {
    return await startDetached(argv, ports, io, { agent, json: values["output-format"] === "json" });
  }
  const detachedId = values["agent-id"];
  const format = outputFormatOf(values);
  const created = await createApp(ports, appFlagsOf(values), {
    debugSink: (l) => io.err(`[debug] ${l}\n`),
    warnSink: onceWarnings(io),
  });
  // Disposed after everything below (the shared store's connection outlives the run's last write).
  await using _app = { [Symbol.asyncDispose]: () => created.close() };
  io = redactedIo(io, created.redact);
  // An untrusted folder (a CI checkout): what the command line grants applies; settings grant nothing more.
  const { app, rules } = await grantedRun(created, values, io);
  const parent = await openSession(ports, {
    layout: app.layout,
    workspace: app.workspace,
    model: app.config.model,
    redact: app.redact,
  });
  const sink = runSink(io, app, format);
  // A detached copy (`--background`) runs the child as a background run of its ad-hoc parent, so
  // `blade tasks cancel` reaches it, and waits for it before exiting.
  const id = detachedId === undefined ? newAgentId(ports.ids) : validateSessionId(detachedId);
  const usage = new ChildUsage(id);
  const mcp = await startMcp(app, mcpFlagsOf(values), io);
  // Disposed last (after the runtime's children): the servers outlive every call to them.
  await using _mcp = { [Symbol.asyncDispose]: async () => await mcp?.close() };
  // The child fires the run's hooks and its agent's (docs/guides/hooks.md), named after the ad-hoc parent.
  const hooks = runHooksOf(app, { engine: runHookEngine(app, { io, always: true })!, io });
  hooks?.bind({ sessionId: parent.sessionId, transcriptPath: parent.transcript.path });
  await using run = app.runtime((event) => {
    usage.observe(event);
    sink.emit(event);
  }, { hooks, rules: rules.texts, ...(mcp === undefined ? {} : { mcp }), ...await childContextOf(app, io) });
  const env = await run.env();
  env.registry.require(agent);
  const callId = `run_${ports.ids.random21()}`;
  const interrupt = interruptController();
  try {
    const outcome = await runDirect({
      ids: ports.ids,
      transcript: parent.transcript,
      store: env.store,
      launch: directLauncher(env, ports, app, parent.sessionId, {
        callId,
        signal: interrupt.signal,
        emit: sink.emit,
      }),
      waitBackground: async (child) => {
        await env.background.wait(child, 0, interrupt.signal);
      },
    }, {
      agent,
      prompt,
      description: values.description ?? shortDescription(prompt),
      agentId: id,
      callId,
      background: detachedId !== undefined,
      interrupted: () => interrupt.interrupted(),
      usage,
      lostWork: sink.lostWork,
    });
    const status = finishRun(sink, { sessionId: parent.sessionId, agent, agentId: id }, outcome);
    if (interrupt.interrupted()) return 130;
    return status === "completed" ? 0 : 1;
  } finally {
    interrupt.dispose();
  }
}

/**
 * `blade run --background`: starts a detached copy of this command, waits until that copy has
 * recorded the run (so `blade tasks output <id>` works at once), prints the child's id and returns.
 */
export async function startDetached(
  argv: string[],
  ports: Ports,
  io: Io,
  o: { agent: string; json: boolean; command?: string[] },
): Promise<number> {
  const root = resolveStorageRoot(ports.env);
  const id = newAgentId(ports.ids);
  const args = [...argv.filter((a) => a !== "--background"), `--agent-id=${id}`];
  const [command, ...base] = selfCommand([
    ...toDenoFlags(bladeProcessPermissions()),
    "--unstable-worker-options",
  ]);
  const pid = ports.process.spawnDetached(command!, [...base, ...(o.command ?? ["run"]), ...args], {
    cwd: ports.env.cwd(),
  });
  const sidecar = `${storageLayout(root).sessionsDir}/${id}.json`;
  const deadline = ports.clock.now() + 30_000;
  while ((await ports.fs.stat(sidecar)) === null) {
    if (!(await ports.process.isAlive(pid)) || ports.clock.now() > deadline) {
      throw new BladeError("background_start_failed", `The background run of ${o.agent} did not start.`, {
        hint: "Run the same command without --background to see what went wrong.",
      });
    }
    await ports.clock.sleep(50);
  }
  if (o.json) {
    io.out(JSON.stringify({ agent_id: id, status: "running", pid }) + "\n");
  } else {
    io.out(`Started ${o.agent} in the background: ${id}\n`);
    io.out(
      `Follow it with \`blade tasks output ${id} --wait\`; stop it with \`blade tasks cancel ${id}\`.\n`,
    );
  }
  return 0;
}

function shortDescription(prompt: string): string {
  const flat = prompt.replace(/\s+/g, " ").trim();
  const cut = flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
  return cut.length >= 3 ? cut : `${cut} run`.slice(0, 100);
}
