// Owns `blade -p`: turns flags into an App, runs the top-level session once and prints it in the
// chosen output format. Exit codes: 0 success, 1 failure, 2 usage, 130 interrupted.

import type { Ports } from "../sys/mod.ts";
import type { Clock } from "../sys/clock.ts";
import { usageError } from "../errors.ts";
import { isValidSessionId } from "../protocol/ids.ts";
import type { App, AppFlags } from "../app.ts";
import { createApp } from "../app.ts";
import type { RuntimeEvent, RuntimeWarning } from "../protocol/events.ts";
import { onInterrupt, readStdin } from "../sys/signals.ts";
import { type Io, redactedIo } from "./io.ts";
import { bladeEventLine, type OutputFormat, type PrintSummary, textRenderer } from "./print_render.ts";
import { RunLedger } from "./run_ledger.ts";
import { claudeResult } from "./claude_result.ts";
import { claudeStream } from "./claude_stream.ts";
import { runMainSession } from "../executor/main_runner.ts";
import { type RunRules, runRules } from "../permissions/run_rules.ts";
import { mcpFlagsOf, startMcp } from "./mcp_wiring.ts";
import type { McpHub } from "../mcp/hub.ts";
import { notYetWarnings } from "./claude_flags.ts";
import { trustWarning } from "./trust_warning.ts";
import {
  budgetOf,
  jsonSchemaOf,
  onlyToolsOf,
  parseStreamJsonInput,
  type PromptFlags,
  promptFlags,
} from "./print_inputs.ts";

// deno-lint-ignore no-explicit-any
type Values = Record<string, any>;

export function outputFormatOf(values: Values): OutputFormat {
  const f = values["output-format"] ?? "text";
  if (f === "text" || f === "json" || f === "stream-json" || f === "blade-events") return f;
  throw usageError(
    `Unknown output format "${f}".`,
    "Use --output-format text, json, stream-json or blade-events.",
  );
}

function intFlag(values: Values, name: string, min: number, max: number): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw usageError(
      `--${name} must be a whole number from ${min} to ${max}, got "${raw}".`,
      `Pass --${name} with a value from ${min} to ${max}, e.g. --${name} 10. See \`blade --help\`.`,
    );
  }
  return n;
}

export function appFlagsOf(values: Values): AppFlags {
  const maxTurns = intFlag(values, "max-turns", 1, 1000);
  // --dangerously-skip-permissions is Claude Code's bypassPermissions; it does not grant Workspace Trust.
  const mode = values["permission-mode"] ?? values.permissionMode ??
    (values["dangerously-skip-permissions"] === true ? "bypassPermissions" : undefined);
  return {
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.provider === undefined ? {} : { provider: values.provider }),
    ...(values.script === undefined ? {} : { script: values.script }),
    ...(mode === undefined ? {} : { permissionMode: mode }),
    ...(maxTurns === undefined ? {} : { maxTurns }),
    ...(values.debug === true ? { debug: true } : {}),
    ...(values["trust-workspace"] === true ? { trustWorkspace: true } : {}),
    ...(values.agents === undefined ? {} : { agentsJson: values.agents }),
    ...(values.settings === undefined ? {} : { settings: values.settings }),
  };
}

export function listFlag(values: Values, ...names: string[]): string[] {
  return names.flatMap((n) => (values[n] as string[] | undefined) ?? []);
}

/** The run's rules from --allowed-tools / --disallowed-tools; warns about rules naming no tool. */
export function rulesFromFlags(values: Values, io: Io, app?: Pick<App, "claude">): RunRules {
  const rules = runRules({
    allowedTools: listFlag(values, "allowed-tools", "allowedTools"),
    disallowedTools: listFlag(values, "disallowed-tools", "disallowedTools"),
    // settings permissions (Claude Code's files and Blade's; project ones only when trusted, deny always).
    ...(app === undefined
      ? {}
      : { settings: { allow: app.claude.allow, deny: app.claude.deny, ask: app.claude.ask } }),
  });
  for (const w of rules.warnings) io.err(`blade: warning: ${w}\n`);
  return rules;
}

/** Wires Ctrl-C to an AbortController; the second Ctrl-C is left to the default handler. */
export function interruptController(): {
  signal: AbortSignal;
  interrupted: () => boolean;
  /** Stops the run for another reason than Ctrl-C (e.g. --max-budget-usd). */
  abort: () => void;
  dispose: () => void;
} {
  const controller = new AbortController();
  let interrupted = false;
  const dispose = onInterrupt(() => {
    if (interrupted) return;
    interrupted = true;
    controller.abort(new Error("interrupted"));
  });
  return {
    signal: controller.signal,
    interrupted: () => interrupted,
    abort: () => controller.abort(new Error("stopped")),
    dispose,
  };
}

export interface PrintSink {
  emit: (event: RuntimeEvent) => void;
  finish: (summary: PrintSummary) => void;
  ledger: RunLedger;
  subagents: RunLedger["subagents"];
  /** `--replay-user-messages`: echo the user message on stream-json. */
  replayUser: (text: string) => void;
  /** The first warning that lost a child's work (the run then fails), if any. */
  lostWork: () => RuntimeWarning | undefined;
}

export interface PrintSinkOptions {
  format: OutputFormat;
  mainSessionId: () => string | undefined;
  now?: () => number;
  /** Redraws the text renderer's status lines while children run. */
  timer?: Clock["timer"];
  cwd: string;
  includePartialMessages?: boolean;
  apiKeySource?: string;
  additionalDirectories?: string[];
  /** `--max-budget-usd`: called once when the run's cost passes it. */
  budgetUsd?: number;
  onBudgetExceeded?: () => void;
}

/** Where a run's events go: the chosen renderer, and the ledger the result object is built from. */
export function printSink(io: Io, o: PrintSinkOptions): PrintSink {
  const ledger = new RunLedger();
  const text = textRenderer(io, {
    live: io.tty,
    mainSessionId: o.mainSessionId,
    ...(o.now === undefined ? {} : { now: o.now }),
    ...(o.timer === undefined ? {} : { timer: o.timer }),
  });
  const stream = claudeStream({
    cwd: o.cwd,
    includePartialMessages: o.includePartialMessages === true,
    apiKeySource: o.apiKeySource ?? "none",
    uuid: () => crypto.randomUUID(),
    now: o.now ?? (() => Date.now()),
    ...(o.additionalDirectories === undefined ? {} : { additionalDirectories: o.additionalDirectories }),
  });
  let budgetHit = false;
  let lost: RuntimeWarning | undefined;
  return {
    ledger,
    lostWork: () => lost,
    subagents: ledger.subagents,
    replayUser(text) {
      if (o.format === "stream-json") io.out(stream.userLine(text) + "\n");
    },
    emit(event) {
      ledger.add(event);
      if (event.type === "runtime_warning") {
        if (event.workLost) lost ??= event;
        // stdout keeps its one JSON object (json) or its stream (stream-json carries it as a line).
        if (o.format === "text" || o.format === "json") io.err(`blade: warning: ${event.message}\n`);
      }
      if (o.budgetUsd !== undefined && !budgetHit && ledger.totalCostUSD > o.budgetUsd) {
        budgetHit = true;
        o.onBudgetExceeded?.();
      }
      if (o.format === "stream-json") { for (const line of stream.onEvent(event)) io.out(line + "\n"); }
      else if (o.format === "blade-events") io.out(bladeEventLine(event) + "\n");
      else if (o.format === "text") text.onEvent(event);
    },
    finish(summary) {
      if (o.format === "text") text.finish(summary);
      else {
        const result = claudeResult(summary, ledger, crypto.randomUUID());
        // stream-json results also carry the usage since the previous result (one result per run here).
        if (o.format === "stream-json") result.model_usage_since_last_result = result.modelUsage;
        io.out(JSON.stringify(result) + "\n");
      }
    },
  };
}

/** Where the API key came from, in Claude Code's words (system/init `apiKeySource`). */
function apiKeySourceOf(app: App): string {
  if (app.config.provider !== "anthropic") return "none";
  return app.config.anthropic.apiKeySource ?? "none";
}

/** Agent files in the project's agent folders (what an untrusted run does not load). */
async function projectAgentNames(ports: Ports, workspace: string): Promise<string[]> {
  const names: string[] = [];
  for (const dir of [".claude/agents", ".blade/agents"]) {
    try {
      for (const e of await ports.fs.readDir(`${workspace}/${dir}`)) {
        if (e.isFile && e.name.endsWith(".md")) names.push(e.name.slice(0, -3));
      }
    } catch { /* no such folder */ }
  }
  return [...new Set(names)].sort();
}

async function userTurns(values: Values, positionals: string[], ports: Ports): Promise<string[]> {
  const input = values["input-format"] ?? "text";
  if (input !== "text" && input !== "stream-json") {
    throw usageError(`Unknown input format "${input}".`, "Use --input-format text or stream-json.");
  }
  if (input === "stream-json") {
    if (values["output-format"] !== "stream-json") {
      throw usageError("--input-format stream-json needs --output-format stream-json (as in Claude Code).");
    }
    return parseStreamJsonInput(await readStdin());
  }
  let prompt = positionals.join(" ");
  if (prompt.trim() === "" && !ports.env.stdinIsTerminal()) prompt = (await readStdin()).trim();
  if (prompt.trim() === "") {
    throw usageError("No prompt given.", 'Pass it after -p (blade -p "…") or on standard input.');
  }
  return [prompt];
}

export async function runPrint(values: Values, positionals: string[], ports: Ports, io: Io): Promise<number> {
  const format = outputFormatOf(values);
  const turns = await userTurns(values, positionals, ports);
  if (values.resume !== undefined && values.continue === true) {
    throw usageError("--resume and --continue cannot be used together.");
  }
  for (const flag of ["resume", "session-id"] as const) {
    const id = values[flag];
    if (id !== undefined && !isValidSessionId(id)) {
      throw usageError(
        `Invalid session ID for --${flag}: ${JSON.stringify(id).slice(0, 80)}`,
        "Session ids use letters, digits, '.', '_' and '-' (at most 200 characters); `blade tasks list` shows them.",
      );
    }
  }
  const waitRaw = values["background-wait"];
  let backgroundWaitMs: number | undefined;
  if (waitRaw !== undefined) {
    const n = Number(waitRaw);
    if (!Number.isFinite(n) || n < 0) {
      throw usageError(`--background-wait must be a number of seconds, got "${waitRaw}".`);
    }
    backgroundWaitMs = Math.round(n * 1000);
  }
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
  if (values.agent !== undefined) {
    // --agent: the main session runs as that agent: its prompt, tools, and model / mode unless flags say.
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
      appendSystemPrompt: [agent.systemPrompt, flags.prompts.appendSystemPrompt].filter((x) =>
        x !== undefined
      )
        .join("\n\n"),
    };
    if (agent.tools !== null && flags.onlyTools === undefined) {
      // The agent's tool list names the tools; a specifier (Bash(git:*)) keeps the whole tool here.
      flags.onlyTools = agent.tools.map((t) => t.replace(/\(.*$/s, "").trim());
    }
  }
  const turn: TurnFlags = { ...flags, rules: rulesFromFlags(values, io, app) };
  for (
    const line of trustWarning({
      trusted: app.trust.trusted,
      mode: app.config.permissionMode,
      allow: turn.rules.texts.allow,
      skippedAgents: app.trust.trusted ? [] : await projectAgentNames(ports, app.workspace),
    })
  ) io.err(line);
  // The first turn opens (or resumes, or forks) the session; later stream-json turns continue it.
  let open: SessionChoice = {
    ...(values.resume === undefined ? {} : { resume: values.resume }),
    ...(values.continue === true ? { continueLatest: true } : {}),
    ...(values["session-id"] === undefined ? {} : { sessionId: values["session-id"] }),
    ...(values["fork-session"] === true ? { fork: true } : {}),
  };
  // MCP servers start once for the run (nothing loads when none is configured) and end with it.
  const mcp = await startMcp(app, mcpFlagsOf(values), io);
  let code = 0;
  try {
    for (const prompt of turns) {
      const done = await runTurn(app, io, prompt, open, turn, mcp);
      code = done.code;
      if (code !== 0) break;
      open = { resume: done.sessionId };
    }
  } finally {
    await mcp?.close();
  }
  return code;
}

interface TurnFlags {
  format: OutputFormat;
  prompts: PromptFlags;
  budgetUsd: number | undefined;
  onlyTools: string[] | undefined;
  rules: RunRules;
  backgroundWaitMs: number | undefined;
  includePartialMessages: boolean;
  replayUserMessages: boolean;
  /** `--json-schema`: the answer must be one object matching it, returned through StructuredOutput. */
  jsonSchema: Record<string, unknown> | undefined;
}

interface SessionChoice {
  resume?: string;
  continueLatest?: boolean;
  sessionId?: string;
  fork?: boolean;
}

/** One user turn of a print-mode run: runs it, prints it, returns the exit code and session id. */
async function runTurn(
  app: App,
  io: Io,
  prompt: string,
  open: SessionChoice,
  f: TurnFlags,
  mcp: McpHub | undefined,
): Promise<{ code: number; sessionId: string }> {
  const { ports } = app;
  // A key that reached the conversation (a tool's output, an error) is never printed.
  io = redactedIo(io, app.redact);
  let sessionId: string | undefined;
  const interrupt = interruptController();
  let overBudget = false;
  const sink = printSink(io, {
    format: f.format,
    mainSessionId: () => sessionId,
    now: () => ports.clock.now(),
    timer: ports.clock.timer.bind(ports.clock),
    cwd: app.workspace,
    includePartialMessages: f.includePartialMessages,
    apiKeySource: apiKeySourceOf(app),
    ...(f.budgetUsd === undefined ? {} : {
      budgetUsd: f.budgetUsd,
      onBudgetExceeded: () => {
        overBudget = true;
        interrupt.abort();
      },
    }),
  });
  // Background commands the model started, idle child Workers and agents' MCP servers do not outlive the run.
  await using runtime = app.runtime(sink.emit, {
    rules: f.rules.texts,
    ...(mcp === undefined ? {} : { mcp }),
    ...(f.onlyTools === undefined ? {} : { onlyTools: f.onlyTools }),
  });
  // Each turn returns its own object (loaded only with --json-schema: it brings zod).
  const structured = f.jsonSchema === undefined
    ? undefined
    : new (await import("../tools/structured_output.ts")).StructuredOutput({ schema: f.jsonSchema });
  try {
    const run = await runMainSession(app, {
      prompt,
      ...f.prompts,
      ...open,
      ...(f.onlyTools === undefined ? {} : { onlyTools: f.onlyTools }),
      rules: f.rules.rules,
      emit: (e) => {
        if (e.type === "session_started" && sessionId === undefined) {
          sessionId = e.sessionId;
          sink.emit(e);
          if (f.replayUserMessages) sink.replayUser(prompt);
          return;
        }
        sink.emit(e);
      },
      signal: interrupt.signal,
      extraTools: (id) => runtime.extraTools(id),
      ...(f.backgroundWaitMs === undefined ? {} : { backgroundWaitMs: f.backgroundWaitMs }),
      ...(mcp === undefined ? {} : { mcp }),
      ...(structured === undefined
        ? {}
        : { structured: { tool: structured.tool(), followUp: () => structured.followUp() } }),
    });
    // A continued session whose transcript had a torn or bad line: the rest was kept; say so.
    for (const d of run.transcriptDiagnostics) {
      io.err(`blade: warning: transcript of ${run.sessionId}: ${d.message}\n`);
    }
    for (const w of run.recoveryWarnings) io.err(`blade: warning: ${w}\n`);
    const r = run.result;
    // A run that dropped a child's work never reports success (docs/reference/background.md).
    const dropped = run.abandoned.length > 0 && r.status === "completed";
    const lost = r.status === "completed" ? sink.lostWork() : undefined;
    const shape = structured?.state;
    const misshapen = r.status === "completed" && shape !== undefined && shape.status !== "accepted";
    const error = overBudget
      ? {
        code: "max_budget_exceeded",
        message: `Stopped: the run cost $${
          sink.ledger.totalCostUSD.toFixed(4)
        }, over --max-budget-usd ${f.budgetUsd}.`,
      }
      : dropped
      ? {
        code: "background_wait_expired",
        message: `Stopped waiting for background subagents; cancelled: ${run.abandoned.join(", ")}.`,
      }
      : lost !== undefined
      ? { code: lost.code, message: app.redact(lost.message) }
      : misshapen
      ? {
        code: "structured_output_invalid",
        message: app.redact(
          `No structured output: ${
            shape.status === "rejected" ? shape.reason : "StructuredOutput was not called with a valid object"
          }.`,
        ),
      }
      : r.error === undefined
      ? undefined
      : { code: r.error.type, message: app.redact(r.error.message) };
    const summary: PrintSummary = {
      sessionId: run.sessionId,
      status: overBudget || dropped || lost !== undefined || misshapen ? "failed" : r.status,
      result: r.finalText,
      // Claude Code counts the turn max-turns refused: `--max-turns 1` reports num_turns 2.
      numTurns: run.modelRequests + (r.error?.type === "max_turns_exceeded" ? 1 : 0),
      toolCalls: run.totals.toolCalls,
      usage: run.totals.usage,
      durationMs: run.totals.durationMs,
      subagents: sink.subagents,
      ...(shape?.status === "accepted" ? { structuredOutput: shape.value } : {}),
      ...(error === undefined ? {} : { error }),
      ...(r.error?.providerError?.status === undefined
        ? {}
        : { apiErrorStatus: r.error.providerError.status }),
    };
    sink.finish(summary);
    if (overBudget) return { code: 1, sessionId: run.sessionId };
    if (interrupt.interrupted() || r.status === "cancelled") return { code: 130, sessionId: run.sessionId };
    return { code: summary.status === "completed" ? 0 : 1, sessionId: run.sessionId };
  } finally {
    interrupt.dispose();
  }
}
