// Owns where Anthropic prompt-cache breakpoints go (docs/reference/limits.md, "Prompt caching"), as
// Claude Code 2.1.332 places them (tests/fixtures/claude/caching/, scripts/record_claude_caching.ts):
// the system prompt is sent as text blocks, each of its last two carries `cache_control`, and so does
// the last content block of the last message; tools carry none. Which models cache is decided from
// Claude Code's switches (DISABLE_PROMPT_CACHING and its per-model variants, read by lib/config). Pure.

/** A breakpoint: the API caches the request's prefix up to and including the block that carries it. */
export const EPHEMERAL = { type: "ephemeral" } as const;

export type CacheControl = typeof EPHEMERAL;

/** The model families Claude Code has a DISABLE_PROMPT_CACHING_<FAMILY> switch for. */
export const CACHE_FAMILIES = ["haiku", "sonnet", "opus"] as const;

/**
 * Whether requests to `model` carry breakpoints. `off` lists what is switched off: `"*"` (every
 * model: DISABLE_PROMPT_CACHING) or a family, matched as a part of the model id
 * (`claude-sonnet-4-5` is a sonnet).
 */
export function cachesPrompt(model: string, off: readonly string[]): boolean {
  if (off.includes("*")) return false;
  const id = model.toLowerCase();
  return !off.some((family) => id.includes(family));
}

/**
 * The system prompt as the API's text blocks: its first paragraph (who the agent is, the same for
 * every session, as Claude Code's own identity block) and the rest. Joined with a blank line they give
 * the prompt back unchanged.
 */
export function systemBlocks(system: string): string[] {
  if (system === "") return [];
  const cut = system.indexOf("\n\n");
  if (cut <= 0 || cut + 2 >= system.length) return [system];
  return [system.slice(0, cut), system.slice(cut + 2)];
}

/** Whether the block at `index` of `count` system blocks carries a breakpoint (the last two do). */
export function systemBreakpoint(index: number, count: number): boolean {
  return index >= count - 2;
}

/**
 * Which block of the last message carries the conversation's breakpoint: the last one the API takes a
 * breakpoint on (never a thinking or redacted thinking block); -1 when there is none.
 */
export function messageBreakpoint(blocks: readonly { type: string }[]): number {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const type = blocks[i]!.type;
    if (type !== "thinking" && type !== "redacted_thinking") return i;
  }
  return -1;
}
