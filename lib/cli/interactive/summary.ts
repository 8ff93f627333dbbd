// Owns the short, terminal-safe forms of outside text the interactive session shows: a line of model-,
// file- or child-controlled text made safe (terminalSafe) and flat, and a tool result as a few words.
// Pure.

import { terminalSafe } from "../sanitize.ts";
import { firstLine } from "../print_render.ts";

/** Text from outside Blade, made safe and flat for one terminal line. */
export function clean(text: string): string {
  return terminalSafe(text).replace(/\t/g, "    ");
}

/** A tool result as a few words: `42 lines`, `exit 1`, or its first line. */
export function resultSummary(name: string, content: string, isError: boolean): string {
  const text = content.trim();
  // A refusal's reason and remedy are shown whole (the line wraps), up to a long paragraph.
  if (isError) return firstLine(clean(text), 600);
  const started = backgroundStart(text);
  if (started !== undefined) return `running in the background · ${started}`;
  if (name === "Read" || name === "Grep" || name === "Glob") {
    const n = text === "" ? 0 : text.split("\n").length;
    return `${n} line${n === 1 ? "" : "s"}`;
  }
  return text === "" ? "done" : firstLine(clean(text), 120);
}

/**
 * The id in a background start's result, if it is one: a background command's (`Command running in
 * background with ID: shell-…`, Claude Code's words) or an agent's (`{"task_id": …, "status": "running"}`).
 */
function backgroundStart(text: string): string | undefined {
  const command = /^Command running in background with ID: (shell-[\w-]+)\./.exec(text)?.[1];
  if (command !== undefined) return command;
  if (!text.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(text) as { task_id?: unknown; status?: unknown };
    return typeof value.task_id === "string" && value.status === "running" ? clean(value.task_id) : undefined;
  } catch {
    return undefined;
  }
}
