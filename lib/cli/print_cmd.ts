// Owns `blade -p`: turns flags into an App, runs the top-level session once and prints it in the
// chosen output format. Exit codes: 0 success, 1 failure, 2 usage, 130 interrupted.

import type { Ports } from "../sys/mod.ts";
import type { App, AppOptions } from "../app.ts";
import { onceWarnings } from "./warnings.ts";
import { createApp } from "../app.ts";
import type { Io } from "./io.ts";
import { mcpFlagsOf, startMcp } from "./mcp_wiring.ts";
import { notYetWarnings, refusePrintOnly } from "./claude_flags.ts";
import type { McpStarter } from "./sdk_outbox.ts";
import { promptToolApprover } from "./permission_prompt_tool.ts";
import { sessionWorktree } from "./session_worktree.ts";
import { budgetOf, jsonSchemaOf, onlyToolsOf, promptFlags } from "./print_inputs.ts";
import {
  appFlagsOf,
  backgroundWaitOf,
  checkSessionFlags,
  grantedRun,
  inputFormatOf,
  nameSession,
  outputFormatOf,
  resumeTarget,
  textPrompt,
  type Values,
} from "./print_flags.ts";
import { profileMark } from "../sys/profile.ts";
import { appendWriter } from "../sys/append_file.ts";
import { usageError } from "../errors.ts";
import { runTurn, type SessionChoice, type TurnFlags } from "./print_turn.ts";
import { HookLifetime } from "./hook_wiring.ts";
import { contextSinks, sessionContextOf } from "./context_wiring.ts";

export async function runPrint(values: Values, positionals: string[], ports: Ports, io: Io): Promise<number> {
  const format = outputFormatOf(values);
  // stream-json input (the Agent SDK) is read as it arrives, by cli/sdk_session.ts.
  const prompt = inputFormatOf(values) === "text" ? await textPrompt(positionals, ports) : undefined;
  checkSessionFlags(values);
  refusePrintOnly(values);
  const backgroundWaitMs = backgroundWaitOf(values);
  for (const warning of notYetWarnings(values)) io.err(warning);
  if (values["fork-session"] === true && values.resume === undefined && values.continue !== true) {
    // As Claude Code: nothing to fork, so a new session starts.
    io.err(
      "blade: warning: --fork-session has nothing to fork without --resume or --continue; a new session starts.\n",
    );
  }
  const flags: Omit<TurnFlags, "rules"> = {
    format,
    prompts: await promptFlags(values, ports),
    jsonSchema: await jsonSchemaOf(values, ports),
    budgetUsd: budgetOf(values),
    onlyTools: onlyToolsOf(values),
    backgroundWaitMs,
    includePartialMessages: values["include-partial-messages"] === true,
    includeHookEvents: values["include-hook-events"] === true,
    replayUserMessages: values["replay-user-messages"] === true,
    verbose: values.verbose === true,
  };
  // `--debug-file <path>`: the debug lines go to that file (appended), else to stderr.
  using debugLog = debugLogOf(values, ports, io);
  const sinks = { debugSink: debugLog.sink, warnSink: onceWarnings(io) };
  let app: App = await createApp(ports, appFlagsOf(values), sinks);
  // `-w, --worktree`: the session runs in a managed worktree (the folder's trust goes with it).
  await using worktree = values.worktree === undefined
    ? undefined
    : await sessionWorktree(app, values.worktree, io);
  if (worktree !== undefined) {
    const trust = app.trust.trusted ? { trustWorkspace: true } : {};
    app = await createApp(worktree.ports, { ...appFlagsOf(values), ...trust }, sinks);
  }
  profileMark("config + trust");
  if (values.agent !== undefined) app = await asAgent(app, values, ports, flags, sinks);
  // An untrusted folder: what the command line grants applies; settings grant nothing more.
  const granted = await grantedRun(app, values, io);
  app = granted.app;
  // SessionStart fires for the run's first turn, SessionEnd once the run has printed its result.
  const hookLife = new HookLifetime();
  const turn: TurnFlags = { ...flags, rules: granted.rules, hookLife };
  // Memory and skills are read while MCP and the session start (the first turn awaits them).
  sessionContextOf(app, contextSinks(app, io)).catch(() => {});
  // The first turn opens (or resumes, or forks) the session; later stream-json turns continue it.
  const resume = await resumeTarget(app, values);
  const open: SessionChoice = {
    ...(resume === undefined ? {} : { resume }),
    ...(values.continue === true ? { continueLatest: true } : {}),
    ...(values["session-id"] === undefined ? {} : { sessionId: values["session-id"] }),
    ...(values["fork-session"] === true ? { fork: true } : {}),
  };
  let code: number;
  try {
    if (prompt === undefined) {
      // The Agent SDK's session starts the servers once its initialize (with its own servers) is in.
      const { runSdkSession } = await import("./sdk_session.ts");
      const startSdkMcp: McpStarter = (extra) => startMcp(app, { ...mcpFlagsOf(values), ...extra }, io);
      code = await runSdkSession({ app, io, ports, values, turn, open, startMcp: startSdkMcp });
    } else {
      // MCP servers start once for the run (nothing loads when none is configured) and end with it.
      const mcp = await startMcp(app, mcpFlagsOf(values), io);
      profileMark("mcp sources read");
      try {
        // `--permission-prompt-tool mcp__server__tool`: calls that need approval are put to that tool.
        const approve = promptToolApprover(values, mcp);
        const once: TurnFlags = {
          ...turn,
          refusedWorkFails: true,
          ...(approve === undefined ? {} : { approve }),
        };
        const done = await runTurn(app, io, prompt, open, once, mcp);
        await nameSession(app, { values, sessionId: done.sessionId });
        code = done.code;
      } finally {
        await hookLife.end("other");
        await mcp?.close();
      }
    }
  } finally {
    // The shared store's connection (--store nats://…) outlives the run's last write.
    await app.close();
  }
  worktree?.succeeded(code === 0);
  profileMark("result printed");
  return code;
}

/** Where `--debug` lines go: the `--debug-file` (opened here, closed with the run) or stderr. */
function debugLogOf(values: Values, ports: Ports, io: Io): { sink: (line: string) => void } & Disposable {
  const path = values["debug-file"];
  if (typeof path !== "string") return { sink: (l) => io.err(`[debug] ${l}\n`), [Symbol.dispose]: () => {} };
  const full = path.startsWith("/") ? path : `${ports.env.cwd()}/${path}`;
  let file: ReturnType<typeof appendWriter>;
  try {
    file = appendWriter(full);
  } catch (e) {
    throw usageError(
      `--debug-file: cannot open ${full} (${e instanceof Error ? e.message : String(e)}).`,
      "Give a file in an existing folder you may write to.",
    );
  }
  return { sink: (l) => file.write(`[debug] ${l}\n`), [Symbol.dispose]: () => file.close() };
}

/** --agent: the main session runs as that agent: its prompt, tools, and model / mode unless flags say. */
async function asAgent(
  app: App,
  values: Values,
  ports: Ports,
  flags: Omit<TurnFlags, "rules">,
  sinks: AppOptions,
): Promise<App> {
  const agent = (await app.registry()).require(values.agent);
  const model = values.model ?? (agent.model === "inherit" ? undefined : agent.model);
  const mode = agent.permissionMode === "inherit" ? undefined : agent.permissionMode;
  if (model !== undefined || (mode !== undefined && appFlagsOf(values).permissionMode === undefined)) {
    app = await createApp(ports, {
      ...appFlagsOf(values),
      ...(model === undefined ? {} : { model }),
      ...(mode === undefined || appFlagsOf(values).permissionMode !== undefined
        ? {}
        : { permissionMode: mode }),
    }, sinks);
  }
  flags.prompts = {
    ...flags.prompts,
    appendSystemPrompt: [agent.systemPrompt, flags.prompts.appendSystemPrompt].filter((x) => x !== undefined)
      .join("\n\n"),
  };
  if (agent.tools !== null && flags.onlyTools === undefined) {
    // The agent's tool list names the tools; a specifier (Bash(git:*)) keeps the whole tool here.
    flags.onlyTools = agent.tools.map((t) => t.replace(/\(.*$/s, "").trim());
  }
  return app;
}
