// Owns what Blade knows about Claude models, as Claude Code 2.1.332 uses them (its request bodies are
// recorded in tests/fixtures/claude/models/): the aliases and the ids they stand for, retired ids and
// their successors, and per model the output-token limit, the kind of thinking (adaptive or a budget)
// and the default `effort`. Unknown ids get Claude Code's defaults for a custom model. Pure data.
// Building a request body from it is provider/anthropic_wire.ts; docs/reference/providers.md.

import type { Effort } from "../protocol/effort.ts";

/** Claude Code's aliases (`claude --model opus`), as 2.1.332 resolves them for an API key. */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  opus: "claude-opus-5-5",
  sonnet: "claude-sonnet-5-5",
  haiku: "claude-haiku-5-5",
  fable: "claude-fable-5-2",
  best: "claude-opus-5-5",
  // Claude Code's plan-mode alias runs on Sonnet outside plan mode (what print mode shows).
  opusplan: "claude-sonnet-5-5",
};

/** Ids Claude Code no longer sends: it sends their successor instead (its request bodies show it). */
const RETIRED: Readonly<Record<string, string>> = {
  "claude-opus-4-1": "claude-opus-5-5",
  "claude-opus-4-0": "claude-opus-5-5",
  "claude-opus-4": "claude-opus-5-5",
};

export interface ModelProfile {
  /** `max_tokens` when nothing sets it (CLAUDE_CODE_MAX_OUTPUT_TOKENS, settings `maxTokens`). */
  defaultMaxTokens: number;
  /** The most `max_tokens` may be: a larger setting is cut to this. */
  maxTokensCap: number;
  /** `adaptive`: the model decides how much to think; `budget`: `budget_tokens`; `none`: no thinking. */
  thinking: "adaptive" | "budget" | "none";
  /** Whether thinking can be turned off (MAX_THINKING_TOKENS=0, the SDK's `thinking: disabled`). */
  thinkingOff: boolean;
  /** The `effort` sent when none is chosen; undefined when the model takes no effort. */
  effort?: Effort;
  /** Whether Claude Code knows the model (an unknown id gets the custom model's profile). */
  known: boolean;
}

const CURRENT: ModelProfile = {
  defaultMaxTokens: 128_000,
  maxTokensCap: 128_000,
  thinking: "adaptive",
  thinkingOff: false,
  effort: "medium",
  known: true,
};
const ADAPTIVE_64K: ModelProfile = {
  ...CURRENT,
  defaultMaxTokens: 64_000,
  effort: "high",
  thinkingOff: true,
};
const BUDGET_4: ModelProfile = {
  defaultMaxTokens: 32_000,
  maxTokensCap: 64_000,
  thinking: "budget",
  thinkingOff: true,
  known: true,
};
/** What Claude Code sends for an id it does not know (`[claude-code:unrecognized_model]`). */
export const CUSTOM_MODEL: ModelProfile = {
  defaultMaxTokens: 32_000,
  maxTokensCap: 128_000,
  thinking: "adaptive",
  thinkingOff: true,
  effort: "high",
  known: false,
};

/** Undated ids, longest first wins: `claude-opus-5-5-20261101` is `claude-opus-5-5`. */
const PROFILES: Readonly<Record<string, ModelProfile>> = {
  "claude-opus-5-5": CURRENT,
  "claude-sonnet-5-5": CURRENT,
  "claude-haiku-5-5": CURRENT,
  "claude-fable-5-2": CURRENT,
  "claude-opus-5-0": ADAPTIVE_64K,
  "claude-opus-5": ADAPTIVE_64K,
  "claude-sonnet-5-0": ADAPTIVE_64K,
  "claude-sonnet-5": ADAPTIVE_64K,
  "claude-opus-4-7": { ...ADAPTIVE_64K, effort: "xhigh" },
  "claude-opus-4-6": ADAPTIVE_64K,
  "claude-sonnet-4-6": { ...ADAPTIVE_64K, defaultMaxTokens: 32_000 },
  "claude-opus-4-5": { ...BUDGET_4, effort: "high" },
  "claude-sonnet-4-5": BUDGET_4,
  "claude-sonnet-4-0": BUDGET_4,
  "claude-sonnet-4": BUDGET_4,
  "claude-haiku-4-5": BUDGET_4,
  "claude-3-7-sonnet": {
    defaultMaxTokens: 32_000,
    maxTokensCap: 64_000,
    thinking: "none",
    thinkingOff: true,
    known: true,
  },
  "claude-3-5-sonnet": {
    defaultMaxTokens: 8_192,
    maxTokensCap: 8_192,
    thinking: "none",
    thinkingOff: true,
    known: true,
  },
  "claude-3-5-haiku": {
    defaultMaxTokens: 8_192,
    maxTokensCap: 8_192,
    thinking: "none",
    thinkingOff: true,
    known: true,
  },
  "claude-3-haiku": {
    defaultMaxTokens: 4_096,
    maxTokensCap: 4_096,
    thinking: "none",
    thinkingOff: true,
    known: true,
  },
};

/** An id without its date (`-20250929`), `-latest` or context suffix (`[1m]`). */
function undated(id: string): string {
  return id.replace(/\[1m\]$/i, "").replace(/-(\d{8}|latest)$/, "");
}

/** The id Claude Code sends for `id`: a retired one's successor, else `id` without a `[1m]` suffix. */
export function currentModelId(id: string): string {
  const bare = id.replace(/\[1m\]$/i, "");
  return RETIRED[undated(bare)] ?? RETIRED[bare] ?? bare;
}

/** The profile of a model id (aliases resolved before); the custom model's for an unknown one. */
export function modelProfile(id: string): ModelProfile {
  const key = undated(currentModelId(id));
  return PROFILES[key] ?? CUSTOM_MODEL;
}
