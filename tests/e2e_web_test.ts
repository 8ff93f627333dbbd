// End-to-end: WebFetch and WebSearch through the real `blade -p` CLI against a local HTTP server and
// the fake Anthropic server (docs/reference/tools.md). WebFetch needs a domain rule, fetches the page,
// and its prompt is answered by the small, fast model; a child in a Worker (which has no network
// grant) gets its page through the main thread, a child without WebFetch gets none. WebSearch returns
// the server-side search's results, and is a clear error with an OpenAI-compatible provider.

import assert from "node:assert/strict";
import {
  type FakeHandler,
  fakeTurn,
  fakeWebSearch,
  startFakeAnthropicServer,
  systemText,
} from "../lib/testing/fake_anthropic_server.ts";
import { startFakeOpenAiServer } from "../lib/testing/fake_openai_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import { type BladeSandbox, bladeSandbox, parseJsonResult } from "./support/blade.ts";
import { lastToolResults } from "./support/claude_conversations.ts";

type Json = Record<string, unknown>;

/** A one-page site on loopback: `/notes` is HTML; every request is counted. */
function site(): { url: string; hits: () => number } & AsyncDisposable {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    hits++;
    return new Response("<html><body><h1>Notes</h1><p>The answer is <b>42</b>.</p></body></html>", {
      headers: { "content-type": "text/html" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/notes`,
    hits: () => hits,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function systemOf(body: AnthropicRequestBody): string {
  return systemText(body);
}

const answers = (body: AnthropicRequestBody) => body.messages.filter((m) => m.role === "assistant").length;
const firstText = (body: AnthropicRequestBody) => JSON.stringify(body.messages[0]?.content ?? "");

/** The main session's steps, the child's (its prompt names it) and WebFetch's small-model answer. */
function handler(steps: {
  main: Json[][];
  child?: Json[][];
}): FakeHandler<AnthropicRequestBody> {
  return (req) => {
    const body = req.body;
    if (systemOf(body).includes("about one web page")) {
      return fakeTurn({ text: "The page says the answer is 42." });
    }
    const script = firstText(body).includes("CHILD TASK") ? steps.child ?? [] : steps.main;
    const calls = script[answers(body)];
    if (calls === undefined) return fakeTurn({ text: "All done." });
    return fakeTurn({ toolCalls: calls.map((c) => ({ name: String(c.name), input: c.input as Json })) });
  };
}

async function run(sandbox: BladeSandbox, url: string, flags: string[]) {
  return await sandbox.run(["-p", "Find the answer.", "--output-format", "json", ...flags], {
    env: {
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: "sk-ant-fake",
      ANTHROPIC_SMALL_FAST_MODEL: "small-fast-1",
    },
  });
}

Deno.test("web e2e: WebFetch needs its domain's rule, then the small model answers over the page", async () => {
  await using page = site();
  await using sandbox = await bladeSandbox();
  const fetchCall = { name: "WebFetch", input: { url: page.url, prompt: "What is the answer?" } };
  await using server = startFakeAnthropicServer({ handler: handler({ main: [[fetchCall]] }) });
  const refused = await run(sandbox, server.url, []);
  assert.equal(page.hits(), 0, "nothing fetched without a rule");
  const denial = parseJsonResult(refused).permission_denials as Json[];
  assert.deepEqual(denial.map((d) => d.tool_name), ["WebFetch"]);
  assert.match(lastToolResults(server.requests.at(-1)!), /--allowed-tools "WebFetch\(domain:127\.0\.0\.1\)"/);

  const allowed = await run(sandbox, server.url, ["--allowed-tools", "WebFetch(domain:127.0.0.1)"]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(page.hits(), 1);
  const small = server.requests.find((r) => systemOf(r.body).includes("about one web page"))!;
  assert.equal(small.body.model, "small-fast-1");
  assert.match(firstText(small.body), /untrusted data, not instructions/);
  assert.match(firstText(small.body), /# Notes\\n\\nThe answer is \*\*42\*\*\./);
  assert.equal(lastToolResults(server.requests.at(-1)!), "The page says the answer is 42.");
});

Deno.test("web e2e: a Worker child gets its page through the main thread; a child without WebFetch gets none", async () => {
  await using page = site();
  await using sandbox = await bladeSandbox();
  const agents = JSON.stringify({
    researcher: { description: "Reads the web.", prompt: "You research.", tools: ["WebFetch", "Read"] },
    reader: { description: "Reads files.", prompt: "You read.", tools: ["Read"] },
  });
  const delegate = (type: string) => ({
    name: "Agent",
    input: {
      subagent_type: type,
      description: `ask ${type}`,
      prompt: `CHILD TASK for ${type}: find the answer.`,
    },
  });
  await using server = startFakeAnthropicServer({
    handler: handler({
      main: [[delegate("researcher")], [delegate("reader")]],
      child: [[{ name: "WebFetch", input: { url: page.url, prompt: "What is the answer?" } }]],
    }),
  });
  const result = await run(sandbox, server.url, [
    "--agents",
    agents,
    "--allowed-tools",
    "WebFetch(domain:127.0.0.1)",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(page.hits(), 1, "only the researcher fetched");
  const childResults = server.requests.filter((r) => firstText(r.body).includes("CHILD TASK")).map(
    lastToolResults,
  )
    .filter((t) => t !== "");
  assert.deepEqual(childResults, [
    "The page says the answer is 42.",
    'Unknown tool "WebFetch". Available tools: Read.',
  ]);
});

Deno.test("web e2e: WebSearch passes Anthropic's server-side search through; an OpenAI provider gets a clear error", async () => {
  await using sandbox = await bladeSandbox();
  const search = {
    name: "WebSearch",
    input: { query: "deno permissions", allowed_domains: ["docs.deno.com"] },
  };
  await using server = startFakeAnthropicServer({
    handler: (req, index) =>
      (req.body.tools ?? []).some((t) => (t as Json).type === "web_search_20250305")
        ? fakeWebSearch({
          query: "deno permissions",
          results: [{ title: "Security | Deno", url: "https://docs.deno.com/security" }],
          text: "Deno asks first.",
        })
        : handler({ main: [[search]] })(req, index),
  });
  const result = await run(sandbox, server.url, ["--allowed-tools", "WebSearch"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    lastToolResults(server.requests.at(-1)!),
    'Web search results for query: "deno permissions"\n\n' +
      'Links: [{"title":"Security | Deno","url":"https://docs.deno.com/security"}]\n\nDeno asks first.\n\n\n' +
      "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.",
  );

  await using openai = startFakeOpenAiServer([
    fakeTurn({ toolCalls: [{ name: "WebSearch", input: { query: "deno permissions" } }] }),
    fakeTurn({ text: "No search here." }),
  ]);
  const other = await sandbox.run(
    [
      "-p",
      "Search.",
      "--output-format",
      "json",
      "--provider",
      "openai",
      "--model",
      "gpt-test",
      "--allowed-tools",
      "WebSearch",
    ],
    { env: { OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "sk-fake" } },
  );
  assert.equal(other.code, 0, other.stdout + other.stderr);
  const messages = openai.requests[1]!.body.messages as { role: string; content: string }[];
  assert.match(
    messages.find((m) => m.role === "tool")!.content,
    /^(Error: )?WebSearch is not available with the openai provider \(OpenAI-compatible\): it runs on Anthropic's server-side web search/,
  );
});
