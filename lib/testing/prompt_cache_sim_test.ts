import assert from "node:assert/strict";
import { userText } from "../protocol/messages.ts";
import { anthropicRequestBody } from "../provider/anthropic_wire.ts";
import { modelRequest } from "./provider_test_kit.ts";
import { billedInput, promptCacheSim } from "./prompt_cache_sim.ts";

const SYSTEM = `You are a test.\n\n${"A long stable system prompt. ".repeat(400)}`;
const body = (texts: string[], o: { system?: string; cacheOff?: string[] } = {}) =>
  anthropicRequestBody(modelRequest(texts.map((t) => userText(t)), { system: o.system ?? SYSTEM }), {
    cacheOff: o.cacheOff,
  });

Deno.test("prompt cache sim: a growing conversation reads what the last request wrote", () => {
  const sim = promptCacheSim();
  const first = sim.usage(body(["one"]));
  assert.equal(first.cacheReadInputTokens, 0);
  assert.ok(first.cacheCreationInputTokens > 2_000, "the whole prefix is written");
  assert.equal(first.inputTokens, 0, "the last block carries a breakpoint: nothing after it");
  const second = sim.usage(body(["one", "two"]));
  assert.equal(second.cacheReadInputTokens, first.cacheCreationInputTokens);
  assert.ok(second.cacheCreationInputTokens > 0 && second.cacheCreationInputTokens < 20);
  assert.ok(billedInput(second) < billedInput(first) / 5);
});

Deno.test("prompt cache sim: no breakpoints pay full price; a changed prefix misses; short prefixes are not kept", () => {
  const sim = promptCacheSim();
  const off = sim.usage(body(["one"], { cacheOff: ["*"] }));
  assert.deepEqual([off.cacheReadInputTokens, off.cacheCreationInputTokens], [0, 0]);
  assert.equal(billedInput(off), off.inputTokens);
  sim.usage(body(["one"]));
  const changed = sim.usage(body(["one", "two"], { system: SYSTEM.replace("test", "tset") }));
  assert.equal(changed.cacheReadInputTokens, 0, "the system prompt changed: nothing after it matches");
  // The identity block alone (a breakpoint) is shorter than the minimum: not cached.
  const small = promptCacheSim();
  small.usage(body(["x"], { system: "Short." }));
  assert.equal(small.usage(body(["x", "y"], { system: "Short." })).cacheReadInputTokens, 0);
});
