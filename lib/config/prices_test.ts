import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { costUSD, priceOf } from "./prices.ts";

Deno.test("costUSD: the rate Claude Code 2.1.332 reported for claude-opus-5-5 (10 in, 7 out = $0.00018)", () => {
  assertEquals(Number(costUSD("claude-opus-5-5", { inputTokens: 10, outputTokens: 7 })!.toFixed(8)), 0.00018);
});

Deno.test("costUSD: dated ids match their row; cache tokens are priced; unknown models are undefined", () => {
  assertEquals(priceOf("claude-sonnet-4-5-20250929"), priceOf("claude-sonnet-4-5"));
  const cost = costUSD("claude-sonnet-4-5", {
    inputTokens: 1_000_000,
    outputTokens: 1_000_000,
    cacheReadInputTokens: 1_000_000,
    cacheCreationInputTokens: 1_000_000,
  });
  assertEquals(Number(cost!.toFixed(6)), 3 + 15 + 0.3 + 3.75);
  assertEquals(costUSD("gpt-5-mini", { inputTokens: 5, outputTokens: 5 }), undefined);
});
