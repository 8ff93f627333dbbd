// Owns the Monitor tool (Claude Code 2.1.332's; docs/reference/tools.md "Monitor"): a background command
// whose stdout lines become notices to the session that started it, lines printed within 200 ms together
// as one event, until the command ends, its time limit (default 5 minutes, at most 10) expires, or it
// floods (100 events). It is a background command of ShellTasks: TaskOutput reads it, TaskStop stops it,
// its session waits for it. Claude Code's WebSocket source (`ws`) is not supported.

import type { Clock } from "../sys/clock.ts";
import type { SidecarOwner } from "../store/store.ts";
import { type AnyTool, fail, type ToolContext, type ToolResult } from "../tools/tool.ts";
import { builtInInput } from "../tools/input_check.ts";
import type { MonitorInput } from "../tools/input_zod.ts";
import type { ShellTasks } from "./shells.ts";
import { monitorEndNotice, monitorEventNotice } from "./shell_notice.ts";

export const MONITOR_DEFAULT_TIMEOUT_MS = 300_000;
export const MONITOR_MAX_TIMEOUT_MS = 600_000;
/** Lines printed within this long are one event. */
export const MONITOR_BATCH_MS = 200;
/** Events of one monitor at most; then it is stopped (re-arm it with a narrower filter). */
export const MONITOR_MAX_EVENTS = 100;

const DESCRIPTION =
  `Start a background monitor that streams events from a long-running command. Each stdout line is an event: you keep working and the events arrive as notices. Events are not replies from the user.

- For one notice ("tell me when the server is ready"), prefer Bash with run_in_background and a command that exits when the condition holds.
- For one notice per occurrence, use Monitor with a command that keeps printing (tail -f log | grep --line-buffered ERROR).
- Every pipe stage must flush per line (grep --line-buffered). Only stdout lines are events; merge stderr with 2>&1 when it matters.
- Lines printed within 200 ms are one event. A monitor that sends more than ${MONITOR_MAX_EVENTS} events is stopped.
- It expires after timeout_ms (default 300000, at most 600000) with one notice; re-arm it if you still need it. The command's exit ends it (the exit code is reported). TaskStop cancels it.
- Write a specific description: it is in every notice.`;

export function monitorTool(shells: ShellTasks, owner: SidecarOwner, clock: Pick<Clock, "timer">): AnyTool {
  return {
    name: "Monitor",
    description: DESCRIPTION,
    kind: "execute",
    ...builtInInput<MonitorInput>("Monitor"),
    run(input: MonitorInput, ctx: ToolContext): Promise<ToolResult> {
      if (input.command === undefined || input.command.trim() === "") {
        return Promise.resolve(
          fail("Monitor needs a command: Blade watches a command's output (a ws source is not supported)."),
        );
      }
      const timeoutMs = Math.min(input.timeout_ms ?? MONITOR_DEFAULT_TIMEOUT_MS, MONITOR_MAX_TIMEOUT_MS);
      const events = eventBatcher(clock, (lines) => {
        if (count >= MONITOR_MAX_EVENTS) return;
        count++;
        shells.notify(owner, {
          inboxId: `shell:event:${id}:${count}`,
          text: monitorEventNotice(id, { description: input.description, lines }),
        });
        if (count === MONITOR_MAX_EVENTS) {
          flooded = true;
          void shells.stop(id);
          shells.notify(owner, { inboxId: `shell:end:${id}`, text: end("flooded", null) });
        }
      });
      let count = 0;
      let flooded = false;
      const end = (reason: "exited" | "expired" | "flooded", exitCode: number | null) =>
        monitorEndNotice({
          id,
          callId: ctx.callId,
          description: input.description,
          reason,
          exitCode,
          events: count,
          timeoutMs,
        });
      const id: string = shells.start(input.command, {
        cwd: ctx.workspaceRoot,
        owner,
        callId: ctx.callId,
        label: input.description,
        timeoutMs,
        onStdout: (text) => events.push(text),
        onEnd: ({ exitCode, timedOutAfterMs }) => {
          events.flush();
          if (flooded) return;
          shells.notify(owner, {
            inboxId: `shell:end:${id}`,
            text: end(timedOutAfterMs === undefined ? "exited" : "expired", exitCode),
          });
        },
      });
      return Promise.resolve({
        isError: false,
        content:
          `Monitor started (task ${id}, expires in ${timeoutMs / 1000}s unless the source ends first; you ` +
          `get one notice at expiry — re-arm if you still need the watch). You will be notified on each event. ` +
          `Keep working — do not poll or sleep. Events may arrive while you are waiting for the user — an event ` +
          `is not their reply.`,
        metadata: { taskId: id, background: true },
      });
    },
  };
}

/** Complete stdout lines, gathered for MONITOR_BATCH_MS after the first, then handed on as one event. */
export function eventBatcher(clock: Pick<Clock, "timer">, emit: (lines: string) => void) {
  let partial = "";
  let lines: string[] = [];
  let cancel: (() => void) | undefined;
  const flushLines = () => {
    cancel?.();
    cancel = undefined;
    if (lines.length > 0) emit(lines.join("\n"));
    lines = [];
  };
  return {
    push(text: string): void {
      const parts = (partial + text).split("\n");
      partial = parts.pop()!;
      const complete = parts.map((l) => l.replace(/\r$/, ""));
      if (complete.length === 0) return;
      lines.push(...complete);
      cancel ??= clock.timer(MONITOR_BATCH_MS, flushLines);
    },
    /** The command ended: what is left (a last line without its newline included) goes out now. */
    flush(): void {
      if (partial !== "") lines.push(partial);
      partial = "";
      flushLines();
    },
  };
}
