// Owns the per-model price table behind `total_cost_usd` and `modelUsage.costUSD` in print mode's json
// and stream-json results, and the cost of a usage record. Pure data and arithmetic; no I/O.
//
// Maintaining it: prices are US dollars per million tokens, from Anthropic's public price list
// (https://docs.claude.com/en/docs/about-claude/pricing). A new model gets one row; a dated id
// (`claude-sonnet-4-5-20250929`) matches its undated row. A model with no row costs 0 and the result
// says so (`cost_unknown: true`) instead of guessing. See docs/reference/costs.md.

export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Cache reads cost a tenth of input; 5-minute cache writes 1.25 times input (Anthropic's rule). */
function price(input: number, output: number): ModelPrice {
  return { input, output, cacheRead: input / 10, cacheWrite: input * 1.25 };
}

export const PRICES: Readonly<Record<string, ModelPrice>> = {
  // Claude Code 2.1.332 reports $4 / $20 for its default model, cache reads $0.20 and writes $5
  // (recorded in tests/fixtures/claude/plain and cache_tokens).
  "claude-opus-5-5": { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 },
  // The other current models, as Claude Code 2.1.332's initialize lists them (per million tokens).
  "claude-fable-5-2": price(8, 40),
  "claude-sonnet-5-5": price(2, 10),
  "claude-haiku-5-5": price(0.1, 0.5),
  "claude-opus-4-6": price(5, 25),
  "claude-opus-4-5": price(5, 25),
  "claude-opus-4-1": price(15, 75),
  "claude-opus-4": price(15, 75),
  "claude-sonnet-4-6": price(3, 15),
  "claude-sonnet-4-5": price(3, 15),
  "claude-sonnet-4": price(3, 15),
  "claude-3-7-sonnet": price(3, 15),
  "claude-haiku-4-5": price(1, 5),
  "claude-3-5-haiku": price(0.8, 4),
  "claude-3-haiku": price(0.25, 1.25),
};

/** The price row of a model id, or undefined when the table does not know it. */
export function priceOf(model: string): ModelPrice | undefined {
  const undated = model.replace(/-\d{8}$/, "").replace(/@\d{8}$/, "");
  return PRICES[undated] ?? PRICES[model];
}

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
}

/** Dollars for the tokens; undefined when the model has no price row. */
export function costUSD(model: string, t: TokenCounts): number | undefined {
  const p = priceOf(model);
  if (p === undefined) return undefined;
  return (t.inputTokens * p.input + t.outputTokens * p.output +
    (t.cacheReadInputTokens ?? 0) * p.cacheRead + (t.cacheCreationInputTokens ?? 0) * p.cacheWrite) / 1e6;
}
