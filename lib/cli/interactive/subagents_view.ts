// Owns what the interactive session shows of its subagents: one live status line per running child
// (type, description, elapsed time, the tool it is using), and, once it finished, its outcome line
// with the tool calls it made — counted, or listed below it when expanded (Ctrl-O). Built from the
// runtime events (subagent_spawned, the child's own events, subagent_completed); every outside string
// made terminal-safe. Part of SessionView (view.ts); pure apart from the clock.

import type { RuntimeEvent, SubagentInfo } from "../../protocol/events.ts";
import { firstLine, toolLabel } from "../print_render.ts";
import { clean, resultSummary } from "./summary.ts";
import type { Theme } from "./theme.ts";

/** A child's tool call: its label, then its outcome once it ended. */
interface ChildCall {
  label: string;
  outcome?: string;
}

/** A finished child in the log: its outcome line, and its tool calls. */
export interface ChildBlock {
  kind: "child";
  /** Its type, outcome, description and duration. */
  head: string;
  /** ` · ` and the first line of its summary, or "". */
  summary: string;
  calls: ChildCall[];
}

interface LiveChild {
  info: SubagentInfo;
  started: number;
  tool: string | undefined;
  /** Its tool calls so far, by call id. */
  calls: Map<string, ChildCall>;
}

/** `42s`, or `3m05s`. */
export function seconds(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

export class SubagentsView {
  #theme: Theme;
  #now: () => number;
  #running = new Map<string, LiveChild>();
  /** Whether finished children show their tool calls (Ctrl-O toggles it). */
  #expanded = false;

  constructor(theme: Theme, now: () => number) {
    this.#theme = theme;
    this.#now = now;
  }

  running(): SubagentInfo[] {
    return [...this.#running.values()].map((c) => c.info);
  }

  toggleExpanded(): boolean {
    this.#expanded = !this.#expanded;
    return this.#expanded;
  }

  spawned(event: Extract<RuntimeEvent, { type: "subagent_spawned" }>): void {
    this.#running.set(event.subagent.session_id, {
      info: event.subagent,
      started: this.#now(),
      tool: undefined,
      calls: new Map(),
    });
  }

  /** A running child's own event: the tool it uses now, and its calls' outcomes. */
  childEvent(event: Extract<RuntimeEvent, { type: "subagent_event" }>): void {
    const inner = event.event;
    const child = this.#running.get(event.agentId);
    if (child === undefined) return;
    if (inner.type === "tool_started") {
      child.tool = clean(toolLabel(inner.name, inner.input));
      child.calls.set(inner.callId, { label: child.tool });
    }
    if (inner.type === "tool_completed") {
      child.tool = undefined;
      const call = child.calls.get(inner.callId);
      const summary = resultSummary(inner.name, inner.content, inner.isError);
      if (call !== undefined) call.outcome = inner.isError ? `✗ · ${summary}` : `✓ · ${summary}`;
    }
  }

  /** The finished child's block for the log: its type, outcome, duration, summary and calls. */
  completed(event: Extract<RuntimeEvent, { type: "subagent_completed" }>): ChildBlock {
    const t = this.#theme;
    const child = this.#running.get(event.subagent.session_id);
    this.#running.delete(event.subagent.session_id);
    const took = child === undefined ? "" : ` ${t.dim(`(${seconds(this.#now() - child.started)})`)}`;
    const mark = event.state === "completed" ? t.ok("↳") : t.error("↳");
    const s = event.subagent;
    const bg = s.background ? " [bg]" : "";
    const summary = firstLine(clean(event.summary), 160);
    return {
      kind: "child",
      head: `${mark} ${clean(s.subagent_type)}${bg} ${event.state}: ${clean(s.description)}${took}`,
      summary: summary === "" ? "" : t.dim(` · ${summary}`),
      calls: [...(child?.calls.values() ?? [])],
    };
  }

  /** A finished child's outcome line, counting its calls; expanded, each call below it. */
  lines(b: ChildBlock): string[] {
    const t = this.#theme;
    const n = b.calls.length;
    const count = n === 0
      ? ""
      : t.dim(` · ${n} tool call${n === 1 ? "" : "s"}${this.#expanded ? "" : " (Ctrl-O)"}`);
    const calls = this.#expanded
      ? b.calls.map((c) =>
        t.dim(`    ${c.label}${c.outcome === undefined ? " · (no result)" : ` ${c.outcome}`}`)
      )
      : [];
    return [`${b.head}${count}${b.summary}`, ...calls];
  }

  /** One dim status line per running child, `frame` its spinner. */
  statusLines(frame: string): string[] {
    const now = this.#now();
    return [...this.#running.values()].map((c) => {
      const parts = [
        `${clean(c.info.subagent_type)}${c.info.background ? " [bg]" : ""}`,
        clean(c.info.description),
        seconds(now - c.started),
        c.tool ?? "thinking",
      ];
      return this.#theme.dim(`  ${frame} ${parts.join(" · ")}`);
    });
  }
}
