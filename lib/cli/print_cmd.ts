// Owns `blade -p`: turns flags into an App, runs the top-level session once and prints it in the
// chosen output format. Exit codes: 0 success, 1 failure, 2 usage, 130 interrupted.

import type { Ports } from "../sys/mod.ts";
import { usageError } from "../errors.ts";
import type { App, AppFlags } from "../app.ts";
import { createApp } from "../app.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import { onInterrupt, readStdin } from "../sys/signals.ts";
import type { Io } from "./io.ts";
import {
  countSubagents,
  emptySubagentStats,
  type OutputFormat,
  type PrintSummary,
  resultObject,
  streamJsonLine,
  textRenderer,
} from "./print_render.ts";
import { runMainSession } from "../executor/main_runner.ts";
import { type RunRules, runRules } from "../permissions/run_rules.ts";
import { sessionSubagents } from "./subagent_wiring.ts";

// deno-lint-ignore no-explicit-any
type Values = Record<string, any>;

export function outputFormatOf(values: Values): OutputFormat {
  const f = values["output-format"] ?? "text";
  if (f === "text" || f === "json" || f === "stream-json") return f;
  throw usageError(`Unknown output format "${f}".`, "Use --output-format text, json or stream-json.");
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
  const mode = values["permission-mode"] ?? values.permissionMode;
  return {
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.provider === undefined ? {} : { provider: values.provider }),
    ...(values.script === undefined ? {} : { script: values.script }),
    ...(mode === undefined ? {} : { permissionMode: mode }),
    ...(maxTurns === undefined ? {} : { maxTurns }),
    ...(values.debug === true ? { debug: true } : {}),
    ...(values["trust-workspace"] === true ? { trustWorkspace: true } : {}),
    ...(values.agents === undefined ? {} : { agentsJson: values.agents }),
  };
}

export function listFlag(values: Values, ...names: string[]): string[] {
  return names.flatMap((n) => (values[n] as string[] | undefined) ?? []);
}

/** The run's rules from --allowed-tools / --disallowed-tools; warns about rules naming no tool. */
export function rulesFromFlags(values: Values, io: Io): RunRules {
  const rules = runRules({
    allowedTools: listFlag(values, "allowed-tools", "allowedTools"),
    disallowedTools: listFlag(values, "disallowed-tools", "disallowedTools"),
  });
  for (const w of rules.warnings) io.err(`blade: warning: ${w}\n`);
  return rules;
}

/** Wires Ctrl-C to an AbortController; the second Ctrl-C is left to the default handler. */
export function interruptController(): {
  signal: AbortSignal;
  interrupted: () => boolean;
  dispose: () => void;
} {
  const controller = new AbortController();
  let interrupted = false;
  const dispose = onInterrupt(() => {
    if (interrupted) return;
    interrupted = true;
    controller.abort(new Error("interrupted"));
  });
  return { signal: controller.signal, interrupted: () => interrupted, dispose };
}

export interface PrintSink {
  emit: (event: RuntimeEvent) => void;
  finish: (summary: PrintSummary) => void;
  subagents: ReturnType<typeof emptySubagentStats>;
}

export function printSink(
  io: Io,
  format: OutputFormat,
  mainSessionId: () => string | undefined,
  now?: () => number,
): PrintSink {
  const subagents = emptySubagentStats();
  const text = textRenderer(io, { live: io.tty, mainSessionId, ...(now === undefined ? {} : { now }) });
  return {
    subagents,
    emit(event) {
      countSubagents(subagents, event);
      if (format === "stream-json") io.out(streamJsonLine(event) + "\n");
      else if (format === "text") text.onEvent(event);
    },
    finish(summary) {
      if (format === "text") text.finish(summary);
      else io.out(JSON.stringify(resultObject(summary)) + "\n");
    },
  };
}

export async function runPrint(values: Values, positionals: string[], ports: Ports, io: Io): Promise<number> {
  const format = outputFormatOf(values);
  let prompt = positionals.join(" ");
  if (prompt.trim() === "" && !ports.env.stdinIsTerminal()) prompt = (await readStdin()).trim();
  if (prompt.trim() === "") {
    throw usageError("No prompt given.", 'Pass it after -p (blade -p "…") or on standard input.');
  }
  if (values.resume !== undefined && values.continue === true) {
    throw usageError("--resume and --continue cannot be used together.");
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
  const app: App = await createApp(ports, appFlagsOf(values), { debugSink: (l) => io.err(`[debug] ${l}\n`) });
  const rules = rulesFromFlags(values, io);
  let sessionId: string | undefined;
  const sink = printSink(io, format, () => sessionId, () => ports.clock.now());
  const interrupt = interruptController();
  const subagents = sessionSubagents(app, sink.emit, { rules: rules.texts });
  try {
    const run = await runMainSession(app, {
      prompt,
      ...(values["system-prompt"] === undefined ? {} : { systemPrompt: values["system-prompt"] }),
      ...(values["append-system-prompt"] === undefined
        ? {}
        : { appendSystemPrompt: values["append-system-prompt"] }),
      ...(values.resume === undefined ? {} : { resume: values.resume }),
      ...(values.continue === true ? { continueLatest: true } : {}),
      rules: rules.rules,
      emit: (e) => {
        if (e.type === "session_started" && sessionId === undefined) sessionId = e.sessionId;
        sink.emit(e);
      },
      signal: interrupt.signal,
      extraTools: subagents.extraTools,
      ...(backgroundWaitMs === undefined ? {} : { backgroundWaitMs }),
    });
    // A continued session whose transcript had a torn or bad line: the rest was kept; say so.
    for (const d of run.transcriptDiagnostics) {
      io.err(`blade: warning: transcript of ${run.sessionId}: ${d.message}\n`);
    }
    const r = run.result;
    // A run that dropped a child's work never reports success (SPEC §8).
    const dropped = run.abandoned.length > 0 && r.status === "completed";
    const error = dropped
      ? {
        type: "background_wait_expired",
        message: `Stopped waiting for background subagents; cancelled: ${run.abandoned.join(", ")}.`,
      }
      : r.error === undefined
      ? undefined
      : { type: r.error.type, message: app.redact(r.error.message) };
    const summary: PrintSummary = {
      sessionId: run.sessionId,
      status: dropped ? "failed" : r.status,
      result: r.finalText,
      numTurns: run.modelRequests,
      toolCalls: run.totals.toolCalls,
      usage: run.totals.usage,
      durationMs: run.totals.durationMs,
      subagents: sink.subagents,
      ...(error === undefined ? {} : { error }),
    };
    sink.finish(summary);
    if (interrupt.interrupted() || r.status === "cancelled") return 130;
    return summary.status === "completed" ? 0 : 1;
  } finally {
    interrupt.dispose();
    // Background commands the model started do not outlive the run.
    await subagents.close();
  }
}
