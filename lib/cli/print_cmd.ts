// Owns `blade -p`: turns flags into an App, runs the top-level session once and prints it in the
// chosen output format. Exit codes: 0 success, 1 failure, 2 usage, 130 interrupted.

import type { Ports } from "../sys/mod.ts";
import type { App } from "../app.ts";
import { createApp } from "../app.ts";
import type { Io } from "./io.ts";
import { mcpFlagsOf, startMcp } from "./mcp_wiring.ts";
import { notYetWarnings } from "./claude_flags.ts";
import { printTrustWarning } from "./trust_warning.ts";
import { budgetOf, jsonSchemaOf, onlyToolsOf, promptFlags } from "./print_inputs.ts";
import {
  appFlagsOf,
  backgroundWaitOf,
  checkSessionFlags,
  inputFormatOf,
  outputFormatOf,
  rulesFromFlags,
  textPrompt,
  type Values,
} from "./print_flags.ts";
import { profileMark } from "../sys/profile.ts";
import { runTurn, type SessionChoice, type TurnFlags } from "./print_turn.ts";
import { contextSinks, sessionContextOf } from "./context_wiring.ts";

export async function runPrint(values: Values, positionals: string[], ports: Ports, io: Io): Promise<number> {
  const format = outputFormatOf(values);
  // stream-json input (the Agent SDK) is read as it arrives, by cli/sdk_session.ts.
  const prompt = inputFormatOf(values) === "text" ? await textPrompt(positionals, ports) : undefined;
  checkSessionFlags(values);
  const backgroundWaitMs = backgroundWaitOf(values);
  for (const warning of notYetWarnings(values)) io.err(warning);
  const flags: Omit<TurnFlags, "rules"> = {
    format,
    prompts: await promptFlags(values, ports),
    jsonSchema: await jsonSchemaOf(values, ports),
    budgetUsd: budgetOf(values),
    onlyTools: onlyToolsOf(values),
    backgroundWaitMs,
    includePartialMessages: values["include-partial-messages"] === true,
    replayUserMessages: values["replay-user-messages"] === true,
  };
  const debugSink = (l: string) => io.err(`[debug] ${l}\n`);
  let app: App = await createApp(ports, appFlagsOf(values), { debugSink });
  profileMark("config + trust");
  if (values.agent !== undefined) app = await asAgent(app, values, ports, flags, debugSink);
  const turn: TurnFlags = { ...flags, rules: rulesFromFlags(values, io, app) };
  // Memory and skills are read while MCP and the session start (the first turn awaits them).
  sessionContextOf(app, contextSinks(app, io)).catch(() => {});
  await printTrustWarning(ports, io, {
    trusted: app.trust.trusted,
    workspace: app.workspace,
    mode: app.config.permissionMode,
    allow: turn.rules.texts.allow,
  });
  // The first turn opens (or resumes, or forks) the session; later stream-json turns continue it.
  const open: SessionChoice = {
    ...(values.resume === undefined ? {} : { resume: values.resume }),
    ...(values.continue === true ? { continueLatest: true } : {}),
    ...(values["session-id"] === undefined ? {} : { sessionId: values["session-id"] }),
    ...(values["fork-session"] === true ? { fork: true } : {}),
  };
  // MCP servers start once for the run (nothing loads when none is configured) and end with it.
  const mcp = await startMcp(app, mcpFlagsOf(values), io);
  profileMark("mcp sources read");
  let code: number;
  try {
    if (prompt !== undefined) code = (await runTurn(app, io, prompt, open, turn, mcp)).code;
    else {
      const { runSdkSession } = await import("./sdk_session.ts");
      code = await runSdkSession({ app, io, ports, values, turn, open, mcp });
    }
  } finally {
    await mcp?.close();
    await app.close();
  }
  profileMark("result printed");
  return code;
}

/** --agent: the main session runs as that agent: its prompt, tools, and model / mode unless flags say. */
async function asAgent(
  app: App,
  values: Values,
  ports: Ports,
  flags: Omit<TurnFlags, "rules">,
  debugSink: (l: string) => void,
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
    }, { debugSink });
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
