// Owns how a subagent's transcript reads in the interactive session (`/tasks transcript <id>`): its
// prompt, what it said, each tool call with the few words of its result (summary.ts), and how each turn
// ended — from the transcript's events, in order, every outside string made terminal-safe. Hidden
// messages (completion notices) are named, not shown. Pure: the caller reads the events.

import type { TranscriptEvent } from "../../protocol/events.ts";
import { firstLine, toolLabel } from "../print_render.ts";
import { clean, resultSummary } from "./summary.ts";
import type { Theme } from "./theme.ts";

/** The transcript as lines: `› prompt`, the agent's text, `✓ Tool(arg) · summary`, turn ends. */
export function transcriptLines(events: readonly TranscriptEvent[], theme: Theme): string[] {
  const t = theme;
  const roles = new Map<string, { role: string; hidden: boolean }>();
  const calls = new Map<string, { name: string; label: string }>();
  const lines: string[] = [];
  for (const e of events) {
    switch (e.type) {
      case "session_created":
        lines.push(t.dim(`${clean(e.data.agentType)} · ${clean(e.data.model)}`));
        break;
      case "message_created":
        roles.set(e.data.messageId, { role: e.data.role, hidden: e.data.hidden === true });
        if (e.data.hidden === true) lines.push(t.dim("  (a completion notice of a background task)"));
        break;
      case "part_created": {
        const message = roles.get(e.data.messageId);
        if (message === undefined || message.hidden) break;
        const part = e.data.part;
        if (part.type === "text" && part.text.trim() !== "") {
          const text = clean(part.text.trim());
          lines.push(message.role === "user" ? `› ${t.bold(firstLine(text, 400))}` : text);
        } else if (part.type === "tool_call") {
          calls.set(part.id, { name: part.name, label: clean(toolLabel(part.name, part.input)) });
        } else if (part.type === "tool_result") {
          const call = calls.get(part.callId) ?? { name: "tool", label: "tool" };
          const { label } = call;
          const summary = resultSummary(call.name, part.content, part.isError);
          lines.push(
            part.isError
              ? `${t.error("✗")} ${label} ${t.dim("·")} ${t.error(summary)}`
              : `${t.ok("✓")} ${label} ${t.dim(`· ${summary}`)}`,
          );
        }
        break;
      }
      case "turn_completed":
        lines.push(t.dim(`  (turn ${e.data.turn} completed: ${e.data.toolCalls} tool calls)`));
        break;
      case "turn_aborted":
        lines.push(
          t.warn(
            `  (turn ${e.data.turn} ${e.data.cause}${
              e.data.reason === undefined ? "" : `: ${clean(firstLine(e.data.reason, 200))}`
            })`,
          ),
        );
        break;
      default:
        break;
    }
  }
  return lines;
}
