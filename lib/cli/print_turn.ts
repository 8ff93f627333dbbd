// One print-mode turn: where its events go (the print sink), Ctrl-C wiring, running the main session
// once and printing its result object. Used by `blade -p`, `blade run` and `blade tasks resume`.

import { type Clock, realClock } from "../sys/clock.ts";
import { type Ids, realIds } from "../sys/ids.ts";
import type { App } from "../app.ts";
import type { RuntimeEvent, RuntimeWarning } from "../protocol/events.ts";
import { onInterrupt } from "../sys/signals.ts";
import { providerErrorHint } from "../provider/error_hint.ts";
import { type Io, redactedIo } from "./io.ts";
import { deltaRedaction } from "./redact_deltas.ts";
import { bladeEventLine, type OutputFormat, type PrintSummary, textRenderer } from "./print_render.ts";
import { RunLedger } from "./run_ledger.ts";
import { jsonTerminalSafe, terminalSafe } from "./sanitize.ts";
import { claudeResult } from "./claude_result.ts";
import { apiErrorOf, refusedWork } from "./turn_failures.ts";
import { FailedDuringSession } from "./report_error.ts";
import { claudeStream } from "./claude_stream.ts";
import { type MainRunResult, runMainSession } from "../executor/main_runner.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { ModelOptions } from "../executor/loop_options.ts";
import type { RunRules } from "../permissions/run_rules.ts";
import type { McpHub } from "../mcp/hub.ts";
import type { PromptFlags } from "./print_inputs.ts";
import type { Approver } from "../protocol/approval.ts";
import type { HookCallbacks } from "../protocol/hook_callbacks.ts";
import { type HookLifetime, printHooks } from "./hook_wiring.ts";
import type { StructuredOutput, StructuredOutputState } from "../tools/structured_output.ts";
import { contextSinks, sessionContextOf } from "./context_wiring.ts";
import { turnOutcome } from "../executor/run_outcome.ts";

/**
 * Wires Ctrl-C to an AbortController; the second Ctrl-C is left to the default handler. `external`
 * (the Agent SDK's interrupt request) stops the run the same way.
 */
export function interruptController(external?: AbortSignal): {
  signal: AbortSignal;
  interrupted: () => boolean;
  /** Stops the run for another reason than Ctrl-C (e.g. --max-budget-usd). */
  abort: () => void;
  dispose: () => void;
} {
  const controller = new AbortController();
  let interrupted = false;
  const stop = () => {
    if (interrupted) return;
    interrupted = true;
    controller.abort(new Error("interrupted"));
  };
  const dispose = onInterrupt(stop);
  if (external?.aborted) stop();
  external?.addEventListener("abort", stop);
  return {
    signal: controller.signal,
    interrupted: () => interrupted,
    abort: () => controller.abort(new Error("stopped")),
    dispose: () => {
      dispose();
      external?.removeEventListener("abort", stop);
    },
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
  /** The run's clock and ids (default: the real ones, lib/sys/). */
  now?: () => number;
  ids?: Pick<Ids, "uuid">;
  /** Redraws the text renderer's status lines while children run. */
  timer?: Clock["timer"];
  cwd: string;
  includePartialMessages?: boolean;
  /** `--include-hook-events`: stream-json shows each hook's start and end. */
  includeHookEvents?: boolean;
  apiKeySource?: string;
  additionalDirectories?: string[];
  /** `--max-budget-usd`: called once when the run's cost passes it. */
  budgetUsd?: number;
  onBudgetExceeded?: () => void;
  /** `--output-format json --verbose`: one JSON array of every message line, the result last. */
  verbose?: boolean;
  /** The run's secrets: text deltas are redacted on their joined text (redact_deltas.ts). */
  secrets?: () => readonly string[];
}

/**
 * Where a run's events go: the chosen renderer, and the ledger the result object is built from.
 * Nothing model-controlled reaches the terminal raw: text goes through terminalSafe (in the renderer),
 * JSON lines through jsonTerminalSafe, warnings on stderr through terminalSafe.
 */
export function printSink(io: Io, o: PrintSinkOptions): PrintSink {
  const ledger = new RunLedger();
  const line = (json: string) => io.out(jsonTerminalSafe(json) + "\n");
  const text = textRenderer(io, {
    live: io.tty,
    mainSessionId: o.mainSessionId,
    ...(o.now === undefined ? {} : { now: o.now }),
    ...(o.timer === undefined ? {} : { timer: o.timer }),
  });
  const stream = claudeStream({
    cwd: o.cwd,
    includePartialMessages: o.includePartialMessages === true,
    includeHookEvents: o.includeHookEvents === true,
    apiKeySource: o.apiKeySource ?? "none",
    uuid: () => ids.uuid(),
    now: o.now ?? realClock().now,
    ...(o.additionalDirectories === undefined ? {} : { additionalDirectories: o.additionalDirectories }),
  });
  const ids = o.ids ?? realIds();
  let budgetHit = false;
  let lost: RuntimeWarning | undefined;
  // json --verbose: the stream-json message lines, printed as one array with the result (Claude Code's).
  const messages: string[] | undefined = o.format === "json" && o.verbose === true ? [] : undefined;
  const deltas = o.secrets === undefined ? undefined : deltaRedaction(o.secrets);
  // stream-json prints its lines; json --verbose keeps them for the array.
  const put = (lines: string[]) => {
    if (o.format === "stream-json") { for (const json of lines) line(json); }
    else messages?.push(...lines);
  };
  const show = (event: RuntimeEvent) => {
    ledger.add(event);
    if (event.type === "runtime_warning") {
      if (event.workLost) lost ??= event;
      // stdout keeps its one JSON object (json) or its stream (stream-json carries it as a line).
      if (o.format === "text" || o.format === "json") {
        io.err(`blade: warning: ${terminalSafe(event.message)}\n`);
      }
    }
    if (o.budgetUsd !== undefined && !budgetHit && ledger.totalCostUSD > o.budgetUsd) {
      budgetHit = true;
      o.onBudgetExceeded?.();
    }
    // Text mode says each refusal on stderr with the rule that would allow it (json keeps permission_denials).
    if (o.format === "text") {
      const refusal = refusalLine(event);
      if (refusal !== undefined) io.err(refusal);
    }
    if (o.format === "stream-json" || messages !== undefined) put(stream.onEvent(event));
    else if (o.format === "blade-events") line(bladeEventLine(event));
    else if (o.format === "text") text.onEvent(event);
  };
  return {
    ledger,
    lostWork: () => lost,
    subagents: ledger.subagents,
    replayUser(text) {
      if (o.format === "stream-json") put([...stream.flush(), stream.userLine(text)]);
    },
    emit(event) {
      if (deltas === undefined) show(event);
      else for (const e of deltas.map(event)) show(e);
    },
    finish(summary) {
      for (const e of deltas?.flush() ?? []) show(e);
      if (o.format === "text") text.finish(summary);
      else {
        put(stream.flush()); // lines claude_stream.ts holds are never lost, whatever ended the run

        // A run the API refused ends with Claude Code's synthetic assistant line saying so.
        if (summary.apiError !== undefined && o.format !== "blade-events") {
          const synthetic = stream.syntheticLine(summary.apiError);
          if (o.format === "stream-json") line(synthetic);
          else messages?.push(synthetic);
        }
        const result = claudeResult(summary, ledger, ids.uuid());
        // stream-json results also carry the usage since the previous result (one result per run here).
        if (o.format === "stream-json") result.model_usage_since_last_result = result.modelUsage;
        line(
          messages === undefined
            ? JSON.stringify(result)
            : `[${[...messages, JSON.stringify(result)].join(",")}]`,
        );
      }
    },
  };
}

/** Where the API key came from, in Claude Code's words (system/init `apiKeySource`). */
function apiKeySourceOf(app: App): string {
  if (app.config.provider !== "anthropic") return "none";
  return app.config.anthropic.apiKeySource ??
    (app.claude.apiKeyHelper === undefined ? "none" : "apiKeyHelper");
}

export interface TurnFlags {
  format: OutputFormat;
  prompts: PromptFlags;
  budgetUsd: number | undefined;
  onlyTools: string[] | undefined;
  rules: RunRules;
  backgroundWaitMs: number | undefined;
  includePartialMessages: boolean;
  /** `--include-hook-events`: stream-json shows each hook's start and end. */
  includeHookEvents?: boolean;
  replayUserMessages: boolean;
  /** `--verbose`: with `--output-format json`, the whole message list (a JSON array) instead of the result. */
  verbose?: boolean;
  /** `--json-schema`: the answer must be one object matching it, returned through StructuredOutput. */
  jsonSchema: Record<string, unknown> | undefined;
  /** Who approves a call the gate would refuse (the Agent SDK's canUseTool); without it the refusal stands. */
  approve?: Approver;
  /** The Agent SDK's hook callbacks: one more hook source beside the settings' (lib/hooks/). */
  sdkHooks?: HookCallbacks;
  /** The permission mode the hooks' input names (an SDK session changes it between turns). */
  hookMode?: () => string;
  /** The run's hook lifetime across its turns: SessionStart once, SessionEnd when the run ends. */
  hookLife?: HookLifetime;
  /**
   * A run all of whose requested work was refused fails (`blade -p "prompt"`); an SDK session's turn
   * reports its refusals in `permission_denials` and goes on.
   */
  refusedWorkFails?: boolean;
  /** The Agent SDK's setMaxThinkingTokens: the thinking budget of this turn's requests (0 = off). */
  thinkingBudget?: number;
  /** … and its display (`summarized`, `highlights`). */
  thinkingDisplay?: string;
  /** Told the turn's runtime while it runs, then undefined (the Agent SDK's stopTask reaches its tasks). */
  onRuntime?: (runtime: Runtime | undefined) => void;
}

export interface SessionChoice {
  resume?: string;
  continueLatest?: boolean;
  sessionId?: string;
  fork?: boolean;
}

/**
 * One user turn of a print-mode run: runs it, prints it, returns the exit code and session id.
 * `stop` aborts it as Ctrl-C does (the Agent SDK's interrupt request).
 */
export async function runTurn(
  app: App,
  io: Io,
  prompt: string,
  open: SessionChoice,
  f: TurnFlags,
  mcp: McpHub | undefined,
  stop?: AbortSignal,
): Promise<{ code: number; sessionId: string }> {
  // A key that reached the conversation (a tool's output, an error) is never printed.
  io = redactedIo(io, app.redact);
  let sessionId: string | undefined;
  const interrupt = interruptController(stop);
  let overBudget = false;
  const sink = turnSink(app, io, f, () => sessionId, () => {
    overBudget = true;
    interrupt.abort();
  });
  const context = await sessionContextOf(app, contextSinks(app, io));
  const hooks = printHooks(app, {
    io,
    f,
    emit: sink.emit,
    sessionId: () => sessionId,
    signal: interrupt.signal,
  });
  // Background commands the model started, idle child Workers and agents' MCP servers do not outlive the run.
  await using runtime = app.runtime(sink.emit, {
    hooks: hooks.run,
    ...(context?.child === undefined ? {} : { childContext: context.child }),
    rules: f.rules.texts,
    ...(f.approve === undefined ? {} : { approve: f.approve }),
    ...(mcp === undefined ? {} : { mcp }),
    ...(f.onlyTools === undefined ? {} : { onlyTools: f.onlyTools }),
  });
  // Each turn returns its own object (loaded only with --json-schema: it brings zod).
  const structured = await structuredOutputOf(f.jsonSchema, app.config.structuredOutputAttempts);
  f.onRuntime?.(runtime);
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
      subagents: (id) => runtime.subagentsFor(id),
      recovery: runtime.recovery,
      ...(f.backgroundWaitMs === undefined ? {} : { backgroundWaitMs: f.backgroundWaitMs }),
      ...(mcp === undefined ? {} : { mcp }),
      ...(structured === undefined ? {} : { structured: structuredHooks(structured) }),
      ...(f.approve === undefined ? {} : { approve: f.approve }),
      ...(context === undefined ? {} : { context }),
      hooks: hooks.session,
      modelOptions: thinkingOf(f),
    });
    // A continued session whose transcript had a torn or bad line: the rest was kept; say so.
    for (const d of run.transcriptDiagnostics) {
      io.err(`blade: warning: transcript of ${run.sessionId}: ${terminalSafe(d.message)}\n`);
    }
    for (const w of run.recoveryWarnings) io.err(`blade: warning: ${terminalSafe(w)}\n`);
    const r = run.result;
    const summary = turnSummary(app, run, sink, { f, overBudget, shape: structured?.state });
    sink.finish(summary);
    hooks.printed();
    if (overBudget) return { code: 1, sessionId: run.sessionId };
    if (interrupt.interrupted() || r.status === "cancelled") return { code: 130, sessionId: run.sessionId };
    return { code: summary.status === "completed" ? 0 : 1, sessionId: run.sessionId };
  } catch (e) {
    // Past session_started the result object names the session, so a script can --resume it.
    throw sessionId === undefined ? e : new FailedDuringSession(sessionId, e);
  } finally {
    f.onRuntime?.(undefined);
    interrupt.dispose();
  }
}

/** The turn's own thinking (the Agent SDK's setMaxThinkingTokens), only the fields it sets. */
function thinkingOf(f: TurnFlags): ModelOptions {
  return {
    ...(f.thinkingBudget === undefined ? {} : { thinkingBudget: f.thinkingBudget }),
    ...(f.thinkingDisplay === undefined ? {} : { thinkingDisplay: f.thinkingDisplay }),
  };
}

/** The print sink of one turn; `onBudgetExceeded` is called once when --max-budget-usd is passed. */
function turnSink(
  app: App,
  io: Io,
  f: TurnFlags,
  sessionId: () => string | undefined,
  onBudgetExceeded: () => void,
): PrintSink {
  const { ports } = app;
  return printSink(io, {
    format: f.format,
    mainSessionId: sessionId,
    now: () => ports.clock.now(),
    ids: ports.ids,
    timer: ports.clock.timer.bind(ports.clock),
    cwd: app.workspace,
    includePartialMessages: f.includePartialMessages,
    includeHookEvents: f.includeHookEvents === true,
    apiKeySource: apiKeySourceOf(app),
    additionalDirectories: [...app.additionalDirs],
    verbose: f.verbose === true,
    ...(f.budgetUsd === undefined ? {} : { budgetUsd: f.budgetUsd, onBudgetExceeded }),
    secrets: app.secrets,
  });
}

/** A run's StructuredOutput for the loop: its tool, corrective follow-ups, the end when exhausted or accepted. */
function structuredHooks(s: StructuredOutput) {
  return {
    tool: s.tool(),
    followUp: () => s.followUp(),
    exhausted: () => s.exhausted(),
    accepted: () => s.state.status === "accepted",
  };
}

async function structuredOutputOf(schema: Record<string, unknown> | undefined, attempts: number) {
  return schema === undefined
    ? undefined
    // Claude Code's limit: 5 StructuredOutput attempts (the first and 4 corrections; its
    // MAX_STRUCTURED_OUTPUT_RETRIES changes it), then the run ends.
    : new (await import("../tools/structured_output.ts")).StructuredOutput({
      schema,
      maxRetries: attempts - 1,
    });
}

/** A model API failure's hint (what to do), for the summary's error. */
function failureHint(app: App, error: NonNullable<MainRunResult["result"]["error"]>): { hint?: string } {
  if (error.providerError === undefined) return {};
  const hint = providerErrorHint(error.providerError, {
    provider: app.config.provider,
    model: app.config.model,
  });
  return hint === undefined ? {} : { hint };
}

/** The turn's result object: its outcome (decided in lib/executor/run_outcome.ts) with the run's figures. */
function turnSummary(
  app: App,
  run: MainRunResult,
  sink: PrintSink,
  o: { f: TurnFlags; overBudget: boolean; shape: StructuredOutputState | undefined },
): PrintSummary {
  const { overBudget, shape } = o;
  const budgetUsd = o.f.budgetUsd;
  const r = run.result;
  const lostWork = sink.lostWork();
  const refused = o.f.refusedWorkFails === true ? refusedWork(sink.ledger) : undefined;
  const outcome = turnOutcome({
    result: r,
    abandoned: run.abandoned,
    interrupted: run.interrupted,
    ...(lostWork === undefined ? {} : { lostWork }),
    ...(overBudget ? { overBudget: { costUsd: sink.ledger.totalCostUSD, limitUsd: budgetUsd } } : {}),
    ...(shape === undefined ? {} : { structured: shape }),
    // A text prompt all of whose requested work was refused never succeeds (docs/reference/errors.md).
    ...(refused === undefined ? {} : { refusedWork: refused }),
  });
  // Messages can quote the model or a child: a key that reached them is never printed.
  const error = outcome.error === undefined ? undefined : {
    code: outcome.error.code,
    message: app.redact(outcome.error.message),
    ...(outcome.error.code === "provider_error" && r.error !== undefined ? failureHint(app, r.error) : {}),
  };
  return {
    sessionId: run.sessionId,
    status: outcome.status,
    // With --json-schema the result is the accepted object's JSON text, as in Claude Code.
    result: shape?.status === "accepted" ? JSON.stringify(shape.value) : r.blocked?.message ?? r.finalText,
    // Claude Code counts the turn it refused: `--max-turns 1` reports num_turns 2, and 5 rejected
    // StructuredOutput attempts report 6 (tests/fixtures/claude/max_turns, structured_retries).
    // An accepted StructuredOutput ends the run at it and counts one more, as Claude Code counts it, and
    // so does a hook that stopped the run after a step's tools (tests/fixtures/claude/hooks_prompt_pretool).
    numTurns: run.modelRequests +
      (r.error?.type === "max_turns_exceeded" || r.error?.type === "structured_output_retries_exhausted" ||
          shape?.status === "accepted" || r.stoppedAfterTools === true
        ? 1
        : 0),
    toolCalls: run.totals.toolCalls,
    usage: run.totals.usage,
    durationMs: run.totals.durationMs,
    subagents: sink.subagents,
    ...(shape?.status === "accepted" ? { structuredOutput: shape.value } : {}),
    ...(error === undefined ? {} : { error }),
    ...apiErrorOf(r.error?.providerError, app),
  };
}

/**
 * The stderr line of a call the permission gate (or the tool) refused, at any depth: the refusal's
 * first sentence and, when one would, the rule that allows it. Undefined for any other event.
 */
export function refusalLine(event: RuntimeEvent, nested = false): string | undefined {
  if (event.type === "subagent_event") return refusalLine(event.event, true);
  if (event.type !== "tool_completed" || event.denied !== true) return undefined;
  const text = event.content.replace(/^Permission denied:\s*/, "").replace(/\s+/g, " ").trim();
  const first = /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;
  const reason = first.length > 300 ? `${first.slice(0, 299)}…` : first;
  const allow = event.allowWith === undefined
    ? ""
    : ` Allow it with --allowed-tools ${JSON.stringify(event.allowWith)}.`;
  const who = nested ? " (in a subagent)" : "";
  return `blade: denied ${event.name}${who}: ${terminalSafe(reason)}${terminalSafe(allow)}\n`;
}
