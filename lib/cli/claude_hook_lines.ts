// Owns stream-json's hook lines (Claude Code 2.1.332's, tests/fixtures/claude/hooks_*/stream.jsonl):
// `system/hook_started` and `system/hook_response` with --include-hook-events, a blocked prompt's
// `system/informational` line, a `prompt` hook's missing verdict, and a Stop hook's block as a synthetic user line with its
// `system/notification`. claude_stream.ts places them and gives each its ids (`uuid`, `session_id`).

import type { RuntimeEvent } from "../protocol/events.ts";
import { NO_VERDICT, NO_VERDICT_IN_TIME } from "../hooks/prompt_hook.ts";

type Line = Record<string, unknown>;
type Event<T extends RuntimeEvent["type"]> = Extract<RuntimeEvent, { type: T }>;

/** A hook's start or end (`ids`: the line's `uuid` and `session_id`); output is stdout then stderr. */
export function hookLine(event: Event<"hook_run">, ids: Line): Line {
  const hook = { hook_id: event.hookId, hook_name: event.name, hook_event: event.event };
  if (event.phase === "started") return { type: "system", subtype: "hook_started", ...hook, ...ids };
  const stdout = event.stdout ?? "";
  const stderr = event.stderr ?? "";
  return {
    type: "system",
    subtype: "hook_response",
    ...hook,
    output: stdout + stderr,
    stdout,
    stderr,
    exit_code: event.exitCode ?? null,
    outcome: event.outcome ?? "error",
    ...ids,
  };
}

/** A `prompt` hook that gave no verdict (tests/fixtures/claude/hooks_prompt_invalid). */
export function noVerdictLine(event: Event<"hook_no_verdict">, ids: Line): Line {
  return {
    type: "system",
    subtype: "informational",
    content: event.timedOut ? NO_VERDICT_IN_TIME : NO_VERDICT,
    level: "warning",
    tag: "hook_no_verdict",
    hook_no_verdict: {
      hook_event: event.event,
      ...(event.toolUseId === undefined ? {} : { tool_use_id: event.toolUseId }),
      timed_out: event.timedOut,
    },
    ...ids,
  };
}

/** A prompt a UserPromptSubmit hook blocked (tests/fixtures/claude/hooks_prompt_block). */
export function promptBlockedLine(event: Event<"prompt_blocked">, ids: Line): Line {
  return {
    type: "system",
    subtype: "informational",
    content: event.message,
    level: "warning",
    prevent_continuation: true,
    prompt_submit_outcome: { kind: "blocked_by_hook", prompt_kept: false, reason: event.reason },
    ...ids,
  };
}

/**
 * A Stop hook's block: the synthetic user line with its feedback (`o.base`: a message line's fields),
 * then the `stop-hook-error` notification (`o.system`: a system line's ids).
 */
export function stopFeedbackLines(
  event: Event<"stop_hook_feedback">,
  o: { base: Line; system: Line },
): Line[] {
  return [{
    type: "user",
    message: { role: "user", content: [{ type: "text", text: event.text }] },
    ...o.base,
    isSynthetic: true,
  }, {
    type: "system",
    subtype: "notification",
    key: "stop-hook-error",
    text: "stop hook problem · ctrl+o to see",
    priority: "immediate",
    ...o.system,
  }];
}
