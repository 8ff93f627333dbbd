// Owns when a session compacts its conversation (docs/reference/limits.md, "Compaction"): the model's
// context window, the auto-compaction threshold below it (Claude Code's rule and its
// CLAUDE_AUTOCOMPACT_PCT_OVERRIDE), how full the context is, which recent messages are kept verbatim,
// and which provider errors mean "the prompt is too long". Pure: the loop (loop.ts) asks, the
// compactor (compactor.ts) does.

import type { Message, Usage } from "../protocol/messages.ts";
import type { ProviderError } from "../protocol/provider.ts";

/** A session's compaction settings: plain data, the same for the session and its children. */
export interface CompactionSettings {
  /** Compact automatically near the window (off: DISABLE_AUTO_COMPACT / DISABLE_COMPACT). */
  auto: boolean;
  /** Compact at all, automatically or on "prompt is too long" (off: DISABLE_COMPACT). */
  enabled: boolean;
  /** The context window in tokens (CLAUDE_CODE_AUTO_COMPACT_WINDOW); default: the model's. */
  window?: number;
  /** CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: compact at this percentage of the window, never later than the default. */
  percent?: number;
}

export const DEFAULT_COMPACTION: CompactionSettings = { auto: true, enabled: true };

/** Models with a 1,000,000-token window (Claude Code 2.1.332 reports it for its default model). */
const LARGE_WINDOW = /\[1m\]$|^claude-opus-5-5|^claude-sonnet-5-5/i;

/** The context window of `model` in tokens: 1,000,000 for `[1m]` ids and the 5.5 models, else 200,000. */
export function contextWindow(model: string, settings: Pick<CompactionSettings, "window"> = {}): number {
  if (settings.window !== undefined) return settings.window;
  return LARGE_WINDOW.test(model) ? 1_000_000 : 200_000;
}

/** Room Claude Code keeps free below the effective window (the summary's own answer and more). */
const BUFFER_TOKENS = 13_000;
/** At most this much of the window is held back for the answer. */
const OUTPUT_RESERVE_CAP = 20_000;

/**
 * The number of context tokens at which a session compacts before its next request: the window less
 * the answer's room (at most 20,000) less 13,000, as Claude Code computes it; with a percentage, that
 * share of the effective window when it is lower.
 */
export function autoCompactThreshold(
  window: number,
  o: { maxOutputTokens: number; percent?: number | undefined },
): number {
  const effective = window - Math.min(o.maxOutputTokens, OUTPUT_RESERVE_CAP);
  const standard = effective - BUFFER_TOKENS;
  const pct = o.percent;
  if (pct === undefined || !(pct > 0 && pct <= 100)) return Math.max(1, standard);
  return Math.max(1, Math.min(Math.floor(effective * (pct / 100)), standard));
}

/** Tokens of text, estimated as a quarter of its characters (the usual English-and-code ratio). */
export function estimateTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const m of messages) {
    for (const b of m.content) {
      switch (b.type) {
        case "text":
          chars += b.text.length;
          break;
        case "tool_result":
          chars += b.content.length;
          break;
        case "tool_call":
          chars += b.name.length + JSON.stringify(b.input).length;
          break;
        case "thinking":
          chars += b.thinking.length;
          break;
      }
    }
  }
  return Math.ceil(chars / 4);
}

/**
 * How many tokens the next request holds: what the last answer's usage says the context was (input,
 * cache reads and writes, the answer itself) plus an estimate of what was added since; without a
 * usage, an estimate of everything (system prompt and tools included).
 */
export function contextTokens(o: {
  lastUsage: Usage | undefined;
  /** Messages added after the answer that reported `lastUsage`. */
  since: readonly Message[];
  /** The whole request when there is no usage: its system prompt, tools and messages, in tokens. */
  whole: () => number;
}): number {
  const u = o.lastUsage;
  if (
    u === undefined || u.inputTokens + (u.cacheReadInputTokens ?? 0) + (u.cacheCreationInputTokens ?? 0) === 0
  ) {
    return o.whole();
  }
  return u.inputTokens + (u.cacheReadInputTokens ?? 0) + (u.cacheCreationInputTokens ?? 0) + u.outputTokens +
    estimateTokens(o.since);
}

/** Whether to compact before the next request. */
export function compactionDue(o: {
  settings: CompactionSettings;
  tokens: number;
  threshold: number;
  /** The conversation has something to summarise (more than what would be kept). */
  summarisable: boolean;
}): boolean {
  return o.settings.enabled && o.settings.auto && o.summarisable && o.tokens >= o.threshold;
}

/** A provider error saying the request is larger than the model's context (Anthropic 400/413, OpenAI). */
export function promptTooLong(error: Pick<ProviderError, "kind" | "status" | "message">): boolean {
  if (error.kind !== "invalid_request") return false;
  if (error.status === 413) return true;
  return /prompt is too long|context.{0,20}(length|window).{0,40}exceed|maximum context length|too many tokens/i
    .test(error.message);
}

/**
 * Where the kept tail starts: the last assistant message and what follows it (its tool results, a
 * notice, the next prompt), as Claude Code keeps its most recent messages verbatim; nothing when that
 * tail is itself more than `maxTokens` or is the whole conversation. Returns an index into `messages`
 * (`messages.length` = keep nothing). The kept tail never starts with tool results.
 */
export function keptTailStart(messages: readonly Message[], maxTokens: number): number {
  let start = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "assistant") {
      start = i;
      break;
    }
  }
  if (start === 0 || start === messages.length) return messages.length;
  return estimateTokens(messages.slice(start)) > maxTokens ? messages.length : start;
}
