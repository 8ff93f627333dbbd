// Owns how a print-mode run looks in text (the answer; live progress only on a terminal) and as
// `blade-events` (Blade's own event stream, one JSON event per line), and the run summary the json
// result object is built from (claude_result.ts); stream-json is claude_stream.ts. Text output is
// for reading: every model-, file- and child-controlled string in it goes through terminalSafe
// (sanitize.ts) before Blade adds its own styling, so it can never carry an escape sequence.

import type { RuntimeEvent } from "../protocol/events.ts";
import type { Usage } from "../protocol/messages.ts";
import type { RunFailure } from "../executor/run_outcome.ts";
import type { Clock } from "../sys/clock.ts";
import type { Io } from "./io.ts";
import { terminalSafe } from "./sanitize.ts";

export type OutputFormat = "text" | "json" | "stream-json" | "blade-events";

export interface PrintSummary {
  sessionId: string;
  status: "completed" | "failed" | "cancelled";
  result: string;
  /** Why the run failed (lib/executor/run_outcome.ts decides it). */
  error?: RunFailure;
  /** The HTTP status of the model API failure that ended the run, if one did. */
  apiErrorStatus?: number;
  /** That failure as Claude Code reports it: `API Error: 400 <the API's message>` and the API's error type. */
  apiError?: { text: string; status: number; type?: string; error: string };
  /** `--json-schema`: the validated structured output. */
  structuredOutput?: unknown;
  numTurns: number;
  toolCalls: number;
  usage: Usage;
  durationMs: number;
  subagents?: SubagentStats;
  /** `blade run`: the child's id. */
  agentId?: string;
  /** `blade tasks resume`: the new run's lineage. */
  lineage?: { resumed_from: string | null; root_agent_id: string; resume_depth: number };
  /** `blade run verification|goal-verification`: the verdict (null when the agent gave none). */
  verdict?: { verdict: "pass" | "fail" | "partial"; summary?: string; findings?: string[] } | null;
}

export interface SubagentStats {
  spawned: number;
  completed: number;
  failed: number;
  cancelled: number;
  by_type: Record<string, { spawned: number; completed: number; failed: number; cancelled: number }>;
}

export function emptySubagentStats(): SubagentStats {
  return { spawned: 0, completed: 0, failed: 0, cancelled: 0, by_type: {} };
}

/** Counts subagent lifecycle events into print-mode statistics. */
export function countSubagents(stats: SubagentStats, event: RuntimeEvent): void {
  if (event.type === "subagent_event") return countSubagents(stats, event.event);
  if (event.type !== "subagent_spawned" && event.type !== "subagent_completed") return;
  const type = event.subagent.subagent_type;
  const row = (stats.by_type[type] ??= { spawned: 0, completed: 0, failed: 0, cancelled: 0 });
  if (event.type === "subagent_spawned") {
    stats.spawned++;
    row.spawned++;
    return;
  }
  if (event.state === "running") return;
  stats[event.state]++;
  row[event.state]++;
}

/**
 * The `--output-format blade-events` line for one runtime event: Blade's own event stream, every
 * child event included (lineage fields flattened for subagent lifecycle events).
 */
export function bladeEventLine(event: RuntimeEvent): string {
  switch (event.type) {
    case "subagent_spawned":
      return JSON.stringify({
        type: "subagent",
        state: "spawned",
        parent_session_id: event.parentSessionId,
        tool_use_id: event.callId,
        ...event.subagent,
      });
    case "subagent_completed":
      return JSON.stringify({
        type: "subagent",
        state: event.state,
        parent_session_id: event.parentSessionId,
        tool_use_id: event.callId,
        success: event.success,
        summary: event.summary,
        ...(event.verdict === undefined ? {} : { verdict: event.verdict }),
        ...(event.worktree === undefined ? {} : { worktree: event.worktree }),
        ...event.subagent,
      });
    case "subagent_event":
      return JSON.stringify({ type: "subagent_event", agent_id: event.agentId, event: event.event });
    default:
      return JSON.stringify(event);
  }
}

function oneLine(value: unknown, max = 80): string {
  const s = terminalSafe(typeof value === "string" ? value : JSON.stringify(value));
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A short human label for a tool call: `Read(README.md)`, `Bash(npm test)`, `Task(review: check diff)`. */
export function toolLabel(name: string, input: Record<string, unknown>): string {
  const arg = input.file_path ?? input.command ?? input.pattern ??
    (input.subagent_type === undefined ? undefined : `${input.subagent_type}: ${input.description ?? ""}`) ??
    input.task_id;
  const safeName = oneLine(name, 60);
  return arg === undefined ? safeName : `${safeName}(${oneLine(arg, 60)})`;
}

export function firstLine(text: string, max = 100): string {
  const lines = text.trim().split("\n");
  const first = oneLine(lines[0] ?? "", max);
  return lines.length > 1 ? `${first} (+${lines.length - 1} lines)` : first;
}

interface ChildStatus {
  type: string;
  description: string;
  started: number;
  tool: string | undefined;
}

/**
 * The live text output with, on a terminal, one status line per running subagent kept below it:
 * every write clears the status area, writes, and draws it again; a timer redraws it every second.
 */
class StatusScreen {
  #io: Io;
  #statusLines: boolean;
  #now: () => number;
  #timer: Clock["timer"] | undefined;
  #children = new Map<string, ChildStatus>();
  #drawn = 0;
  #stopTimer: (() => void) | undefined;
  /** The streamed answer stopped in the middle of a line. */
  midLine = false;

  constructor(io: Io, o: { statusLines: boolean; now: () => number; timer: Clock["timer"] | undefined }) {
    this.#io = io;
    this.#statusLines = o.statusLines;
    this.#now = o.now;
    this.#timer = o.timer;
  }

  get statusLines(): boolean {
    return this.#statusLines;
  }

  dim(s: string): string {
    return this.#io.color ? `\x1b[2m${s}\x1b[22m` : s;
  }

  bold(s: string): string {
    return this.#io.color ? `\x1b[1m${s}\x1b[22m` : s;
  }

  /** Every write goes around the status area, so it always stays below the output. */
  out(text: string): void {
    this.#clear();
    this.#io.out(text);
    this.#draw();
  }

  err(text: string): void {
    this.#clear();
    this.#io.err(text);
    this.#draw();
  }

  endLine(): void {
    if (this.midLine) {
      this.midLine = false;
      this.out("\n");
    }
  }

  childStarted(id: string, type: string, description: string): void {
    if (!this.#statusLines) return;
    this.#children.set(id, { type, description, started: this.#now(), tool: undefined });
    this.#stopTimer ??= this.#timer?.(1000, () => this.#tick(), { repeat: true });
  }

  /** Shows the child's current tool in its status line; false when it has none. */
  childTool(id: string, tool: string): boolean {
    const child = this.#children.get(id);
    if (child === undefined) return false;
    child.tool = tool;
    this.#tick();
    return true;
  }

  childEnded(id: string): void {
    this.#children.delete(id);
    if (this.#children.size === 0) this.#stop();
  }

  /** Stops redrawing and leaves the terminal without a status area. */
  close(): void {
    this.#stop();
    this.#children.clear();
    this.endLine();
    this.#clear();
  }

  #stop(): void {
    this.#stopTimer?.();
    this.#stopTimer = undefined;
  }

  #tick(): void {
    if (this.#drawn === 0) return;
    this.#clear();
    this.#draw();
  }

  #clear(): void {
    if (this.#drawn === 0) return;
    this.#io.out(`\x1b[${this.#drawn}F\x1b[J`);
    this.#drawn = 0;
  }

  #draw(): void {
    if (!this.#statusLines || this.#children.size === 0 || this.midLine) return;
    const lines = [...this.#children.values()].map((c) => {
      const secs = Math.max(0, Math.floor((this.#now() - c.started) / 1000));
      const line = `  ⠿ ${oneLine(c.type)} · ${oneLine(c.description)} · ${secs}s · ${c.tool ?? "thinking"}`;
      return this.dim(line.length > 110 ? `${line.slice(0, 109)}…` : line);
    });
    this.#io.out(lines.join("\n") + "\n");
    this.#drawn = lines.length;
  }
}

/** Prints one runtime event of a live run (`main`: the top-level session, whose own activity is shown). */
function renderLive(screen: StatusScreen, event: RuntimeEvent, main: string | undefined): void {
  const ours = (sessionId: string) => main === undefined || sessionId === main;
  switch (event.type) {
    case "text_delta": {
      const text = ours(event.sessionId) ? terminalSafe(event.text) : "";
      if (text === "") return;
      screen.midLine = !text.endsWith("\n");
      screen.out(text);
      return;
    }
    case "tool_started":
      if (!ours(event.sessionId)) return;
      screen.endLine();
      screen.out(`${screen.bold("●")} ${toolLabel(event.name, event.input)}\n`);
      return;
    case "tool_completed":
      if (!ours(event.sessionId)) return;
      screen.out(screen.dim(`  ⎿ ${event.isError ? "error: " : ""}${firstLine(event.content)}`) + "\n");
      return;
    case "subagent_spawned": {
      const s = event.subagent;
      screen.endLine();
      screen.childStarted(s.session_id, s.subagent_type, s.description);
      const line = `  ↳ ${oneLine(s.subagent_type)} started: ${oneLine(s.description)} (${
        oneLine(s.session_id)
      })`;
      screen.out(screen.dim(line) + "\n");
      return;
    }
    case "subagent_event": {
      const e = event.event;
      if (e.type !== "tool_started") return;
      const label = toolLabel(e.name, e.input);
      if (!screen.childTool(event.agentId, label) && !screen.statusLines) {
        screen.out(screen.dim(`    ${oneLine(event.agentId.slice(0, 14))} ● ${label}`) + "\n");
      }
      return;
    }
    case "subagent_completed":
      screen.childEnded(event.subagent.session_id);
      screen.out(
        screen.dim(
          `  ↳ ${oneLine(event.subagent.subagent_type)} ${event.state}: ${firstLine(event.summary, 80)}`,
        ) +
          "\n",
      );
      return;
    case "retry":
      screen.endLine();
      screen.err(
        screen.dim(`  (retrying model request: ${oneLine(event.reason, 200)}, attempt ${event.attempt})`) +
          "\n",
      );
      return;
    case "assistant_message":
      screen.endLine();
      return;
    case "compacted":
      if (!ours(event.sessionId)) return;
      screen.endLine();
      screen.err(screen.dim(`  (${compactedNote(event)})`) + "\n");
      for (const said of event.said ?? []) screen.err(`${terminalSafe(said)}\n`);
      return;
    default:
      return;
  }
}

/** What a compaction did, in one line (text output and the interactive session). */
export function compactedNote(event: Extract<RuntimeEvent, { type: "compacted" }>): string {
  const how = event.trigger === "manual" ? "compacted" : "the context was nearly full: compacted";
  return `${how} the conversation from ~${event.preTokens} to ~${event.postTokens} tokens, ` +
    `${event.kept} recent message${event.kept === 1 ? "" : "s"} kept`;
}

/**
 * Renders events for a person. `live` streams the main answer and prints tool activity (used on a
 * terminal and by the demo); otherwise only the final answer is printed at the end. On a terminal,
 * running subagents get one status line each (type, description, elapsed time, current tool), kept
 * below the output and cleared when they end.
 */
export function textRenderer(
  io: Io,
  options: {
    live: boolean;
    mainSessionId?: () => string | undefined;
    now?: () => number;
    /** Redraws the status lines every second while children run (none without it). */
    timer?: Clock["timer"];
  },
) {
  const screen = new StatusScreen(io, {
    statusLines: options.live && io.tty,
    now: options.now ?? (() => performance.now()),
    timer: options.timer,
  });
  return {
    onEvent(event: RuntimeEvent): void {
      if (options.live) renderLive(screen, event, options.mainSessionId?.());
    },
    finish(summary: PrintSummary): void {
      screen.close();
      const result = terminalSafe(summary.result);
      if (!options.live && result !== "") io.out(result.endsWith("\n") ? result : `${result}\n`);
      if (summary.status !== "completed") {
        const message = terminalSafe(summary.error?.message ?? "the run did not complete");
        io.err(`blade: ${message}\n`);
        if (summary.error?.hint !== undefined) io.err(`  hint: ${terminalSafe(summary.error.hint)}\n`);
        // As `claude -p`: a script capturing stdout (`out=$(blade -p …)`) gets the message too.
        if (!io.tty) io.out(`Error: ${message}\n`);
      }
    },
  };
}
