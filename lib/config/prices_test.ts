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

Deno.test("costUSD: cache reads and writes at the rates Claude Code 2.1.332 reported for claude-opus-5-5", () => {
  // Recorded against the fake server (tests/fixtures/claude/cache_tokens): 10 in, 7 out, 2000 cache
  // reads, 1000 cache writes = $0.00558; reads alone $0.0004 per 2000, writes $0.005 per 1000.
  const t = { inputTokens: 10, outputTokens: 7, cacheReadInputTokens: 2000, cacheCreationInputTokens: 1000 };
  assertEquals(Number(costUSD("claude-opus-5-5", t)!.toFixed(8)), 0.00558);
});
