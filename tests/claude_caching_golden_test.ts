// Prompt-cache breakpoints compared with Claude Code 2.1.332 (docs/reference/limits.md, "Prompt
// caching"): each case of tests/support/claude_caching_cases.ts runs through Blade against the fake
// server, and where each request's `cache_control` marks sit is compared with where Claude Code put
// them (tests/fixtures/claude/caching/, re-record with scripts/record_claude_caching.ts): the last two
// system blocks and the last block of the last message, none on tools — for the session and for its
// subagent, on every request. The texts differ (each CLI has its own prompts); the placement does not.

import assert from "node:assert/strict";
import {
  fakeTurn,
  startFakeAnthropicServer,
  withoutBreakpoints,
} from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import { billedInput, type CacheUsage, promptCacheSim } from "../lib/testing/prompt_cache_sim.ts";
import {
  breakpointPlacement,
  CACHING_CASES,
  DELEGATED,
  fromChild,
  type RequestShape,
  requestShape,
} from "./support/claude_caching_cases.ts";
import { parseJsonResult, runBlade } from "./support/blade.ts";
import { costUSD } from "../lib/config/prices.ts";
import { writeTree } from "../scripts/record_claude_context.ts";

const FIXTURES = decodeURIComponent(new URL("./fixtures/claude/caching/", import.meta.url).pathname);

/** Claude Code's rule, as its recorded requests show it (the test checks the golden says so). */
const RULE = { system: [2, 1], tools: 0, messages: [[1, 1]] };

async function golden(name: string): Promise<RequestShape[]> {
  return JSON.parse(await Deno.readTextFile(`${FIXTURES}${name}.json`)) as RequestShape[];
}

async function blade(name: string, env: Record<string, string> = {}): Promise<RequestShape[]> {
  return (await bladeBodies(name, env)).map(requestShape);
}

async function bladeBodies(name: string, env: Record<string, string> = {}): Promise<AnthropicRequestBody[]> {
  const c = CACHING_CASES.find((c) => c.name === name)!;
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-cache-" }));
  try {
    await writeTree(workspace, c.files);
    await using server = startFakeAnthropicServer({ handler: c.handler(workspace) });
    const run = await runBlade(["-p", c.prompt, "--output-format", "json"], {
      cwd: workspace,
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key", ...env },
    });
    assert.equal(run.code, 0, run.stderr);
    return server.requests.filter((r) => r.path === "/v1/messages").map((r) => r.body);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

/** What a later request must repeat of an earlier one for the cache to hit: tools, system, messages. */
function assertPrefix(earlier: AnthropicRequestBody, later: AnthropicRequestBody, what: string): void {
  assert.deepEqual(later.tools, earlier.tools, `${what}: the same tools, in the same order`);
  assert.deepEqual(later.system, earlier.system, `${what}: the same system blocks`);
  const before = withoutBreakpoints(earlier.messages);
  assert.deepEqual(
    withoutBreakpoints(later.messages).slice(0, before.length),
    before,
    `${what}: messages appended to`,
  );
}

for (const name of ["main", "subagent"]) {
  Deno.test(`caching golden ${name}: Blade places every breakpoint where Claude Code does`, async () => {
    const theirs = await golden(name);
    const ours = await blade(name);
    for (const shape of theirs) assert.deepEqual(breakpointPlacement(shape), RULE, "the golden's rule");
    // The same requests on both sides: the session's, and the subagent's where there is one.
    const whose = (shapes: RequestShape[]) => [...new Set(shapes.map((s) => s.from))].sort();
    assert.deepEqual(whose(ours), whose(theirs));
    assert.ok(ours.length >= 4, `${ours.length} requests`);
    for (const [i, shape] of ours.entries()) {
      assert.deepEqual(breakpointPlacement(shape), RULE, `Blade's request ${i} (${shape.from})`);
      assert.equal(shape.system.length, 2, "the system prompt as two text blocks");
    }
  });
}

Deno.test("caching: DISABLE_PROMPT_CACHING and the request model's own switch leave no breakpoint", async () => {
  for (const env of [{ DISABLE_PROMPT_CACHING: "1" }, { DISABLE_PROMPT_CACHING_SONNET: "1" }]) {
    const ours = await blade("subagent", env);
    assert.ok(ours.some((s) => s.from === "child"));
    for (const shape of ours) {
      assert.deepEqual(
        breakpointPlacement(shape),
        { system: [], tools: 0, messages: [] },
        JSON.stringify(env),
      );
    }
  }
  // Another family's switch leaves the session's model (sonnet) caching.
  const haikuOff = await blade("main", { DISABLE_PROMPT_CACHING_HAIKU: "1" });
  for (const shape of haikuOff) assert.deepEqual(breakpointPlacement(shape), RULE);
});

/** The bench's 20-request session through Blade, its usage from the prompt-cache model. */
async function twentyRequests(env: Record<string, string>) {
  const c = CACHING_CASES.find((c) => c.name === "bench_20")!;
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-cache20-" }));
  try {
    await writeTree(workspace, c.files);
    const sim = promptCacheSim();
    const sum: CacheUsage = { inputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };
    await using server = startFakeAnthropicServer({
      handler: c.handler(workspace, (body) => {
        const u = sim.usage(body);
        sum.inputTokens += u.inputTokens;
        sum.cacheReadInputTokens += u.cacheReadInputTokens;
        sum.cacheCreationInputTokens += u.cacheCreationInputTokens;
        return { ...u, outputTokens: 5 };
      }),
    });
    const run = await runBlade(["-p", c.prompt, "--output-format", "json"], {
      cwd: workspace,
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key", ...env },
    });
    assert.equal(run.code, 0, run.stderr);
    return { result: parseJsonResult(run), sum, requests: server.requests.length };
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

Deno.test("caching: a 20-request session reports the cache's reads and writes in usage and cost", async () => {
  const cached = await twentyRequests({});
  const plain = await twentyRequests({ DISABLE_PROMPT_CACHING: "1" });
  assert.equal(cached.requests, 20);
  const usage = cached.result.usage as Record<string, number>;
  assert.deepEqual(
    [
      usage.input_tokens,
      usage.cache_read_input_tokens,
      usage.cache_creation_input_tokens,
      usage.output_tokens,
    ],
    [cached.sum.inputTokens, cached.sum.cacheReadInputTokens, cached.sum.cacheCreationInputTokens, 100],
  );
  // The session's model's prices (lib/config/prices.ts): cache reads and writes at their own rates.
  const [model] = Object.keys(cached.result.modelUsage as Record<string, unknown>);
  const dollars = costUSD(model!, { ...cached.sum, outputTokens: 100 })!;
  assert.ok(dollars > 0);
  assert.ok(Math.abs((cached.result.total_cost_usd as number) - dollars) < 1e-9);
  // Caching bills a fifth of the uncached session's input (the bench's `caching` rows measure it).
  assert.equal(plain.sum.cacheReadInputTokens + plain.sum.cacheCreationInputTokens, 0);
  assert.ok(
    billedInput(cached.sum) < billedInput(plain.sum) * 0.3,
    `${billedInput(cached.sum)} vs ${billedInput(plain.sum)}`,
  );
});

Deno.test("caching: each request repeats the previous one's prefix; children of one agent type share theirs", async () => {
  const bodies = await bladeBodies("main");
  for (let i = 1; i < bodies.length; i++) assertPrefix(bodies[i - 1]!, bodies[i]!, `request ${i}`);
  // Two children of one agent type, started in one response: the same tools and system prompt.
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-cache2-" }));
  try {
    await using server = startFakeAnthropicServer({
      handler: (req) => {
        if (fromChild(req.body)) return fakeTurn({ text: "Read." });
        if (req.body.messages.length > 1) return fakeTurn({ text: "Both done." });
        const call = (n: number) => ({
          name: "Task",
          input: {
            subagent_type: "general-purpose",
            description: `Part ${n}`,
            prompt: `${DELEGATED} (${n})`,
          },
        });
        return fakeTurn({ toolCalls: [call(1), call(2)] });
      },
    });
    const run = await runBlade(["-p", "Two children.", "--output-format", "json"], {
      cwd: workspace,
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key" },
    });
    assert.equal(run.code, 0, run.stderr);
    const children = server.requests.map((r) => r.body).filter(fromChild);
    assert.equal(children.length, 2);
    assert.deepEqual(children[1]!.tools, children[0]!.tools);
    assert.deepEqual(children[1]!.system, children[0]!.system);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
