// Tests of WebSearch's call over the fake Anthropic server's server-side search blocks: the request
// carries the server tool with the domain filters, the answer is rendered as Claude Code renders it;
// a search error and a provider without server tools are clear results.

import assert from "node:assert/strict";
import { fakeTurn, fakeWebSearch, startFakeAnthropicServer } from "../testing/fake_anthropic_server.ts";
import { startFakeOpenAiServer } from "../testing/fake_openai_server.ts";
import { anthropicProvider } from "../provider/anthropic.ts";
import { openAiProvider } from "../provider/openai.ts";
import { realClock } from "../sys/clock.ts";
import { MAX_SEARCHES, renderSearch, searchCall } from "./search_call.ts";

const signal = new AbortController().signal;

Deno.test("searchCall: Anthropic's web search tool with the filters; Claude Code's rendering", async () => {
  await using server = startFakeAnthropicServer([
    fakeWebSearch({
      query: "deno permissions",
      results: [{ title: "Deno Docs", url: "https://docs.deno.com/x" }, {
        title: "Other",
        url: "https://o.example/y",
      }],
      text: "Deno is secure by default.",
    }),
  ]);
  const provider = anthropicProvider({ baseUrl: server.url, apiKey: "k", clock: realClock() });
  const result = await searchCall(
    { provider, model: "claude-test", sessionId: "s" },
    { query: "deno permissions", blockedDomains: ["bad.example"] },
    signal,
  );
  assert.deepEqual(result, {
    isError: false,
    content: 'Web search results for query: "deno permissions"\n\n' +
      'Links: [{"title":"Deno Docs","url":"https://docs.deno.com/x"},{"title":"Other","url":"https://o.example/y"}]\n\n' +
      "Deno is secure by default.\n\n\n" +
      "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.",
    metadata: { searches: 1 },
  });
  const body = server.requests[0]!.body;
  assert.equal(body.model, "claude-test");
  assert.deepEqual(body.tools, [{
    type: "web_search_20250305",
    name: "web_search",
    blocked_domains: ["bad.example"],
    max_uses: MAX_SEARCHES,
  }]);
  assert.deepEqual(body.messages, [{
    role: "user",
    content: [{ type: "text", text: "Perform a web search for the query: deno permissions" }],
  }]);
});

Deno.test("searchCall: a search error is rendered; a failed request is an error result", async () => {
  await using server = startFakeAnthropicServer([
    fakeWebSearch({ query: "q q", errorCode: "max_uses_exceeded", text: "No results." }),
    { kind: "status", status: 400, message: "web search is not enabled for this organisation" },
  ]);
  const provider = anthropicProvider({
    baseUrl: server.url,
    apiKey: "k",
    clock: realClock(),
    retry: { maxRetries: 0 },
  });
  const first = await searchCall({ provider, model: "m", sessionId: "s" }, { query: "q q" }, signal);
  assert.match(
    first.content,
    /^Web search results for query: "q q"\n\nWeb search error: max_uses_exceeded\n\nNo results\./,
  );
  const second = await searchCall({ provider, model: "m", sessionId: "s" }, { query: "q q" }, signal);
  assert.equal(second.isError, true);
  assert.match(second.content, /^The web search failed: .*web search is not enabled/);
});

Deno.test("searchCall: an OpenAI-compatible provider has no server-side search: an error naming it", async () => {
  await using server = startFakeOpenAiServer([fakeTurn({ text: "never asked" })]);
  const provider = openAiProvider({ baseUrl: `${server.url}/v1`, apiKey: "k", clock: realClock() });
  const result = await searchCall({ provider, model: "gpt", sessionId: "s" }, { query: "anything" }, signal);
  assert.equal(result.isError, true);
  assert.match(
    result.content,
    /^WebSearch is not available with the openai provider \(OpenAI-compatible\): it runs on Anthropic's server-side web search/,
  );
  assert.equal(server.requests.length, 0);
});

Deno.test("renderSearch: text and result parts in order", () => {
  assert.equal(
    renderSearch("x", [{ type: "text", text: "A" }, { type: "search", query: "x", hits: [] }, {
      type: "text",
      text: "B",
    }]),
    'Web search results for query: "x"\n\nA\n\nLinks: []\n\nB\n\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.',
  );
});
