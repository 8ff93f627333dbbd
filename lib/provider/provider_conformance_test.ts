// Runs the provider conformance suite (lib/testing/provider_conformance.ts) against the Anthropic and
// OpenAI-compatible providers (each over its loopback fake server) and the scripted provider.

import { realClock } from "../sys/clock.ts";
import { FakeClock } from "../testing/fakes.ts";
import { fakeHang, type FakeResponse, fakeSse, fakeStatus, fakeTurn } from "../testing/fake_model_server.ts";
import { startFakeAnthropicServer } from "../testing/fake_anthropic_server.ts";
import { startFakeOpenAiServer } from "../testing/fake_openai_server.ts";
import { type ConformanceCase, providerConformance } from "../testing/provider_conformance.ts";
import type { Provider } from "../protocol/provider.ts";
import { anthropicProvider } from "./anthropic.ts";
import { openAiProvider } from "./openai.ts";
import { scriptedProvider } from "./scripted.ts";
import type { Script } from "./script_schema.ts";

const RETRY = { baseDelayMs: 1, maxDelayMs: 5 };
const READ = { name: "Read", input: { file_path: "a.txt" } };

function httpHarness(
  name: string,
  start: (responses: FakeResponse[]) => { url: string; requests: unknown[]; close(): Promise<void> },
  make: (url: string) => Provider,
  malformed: FakeResponse,
) {
  const open = (responses: FakeResponse[]): Promise<ConformanceCase> => {
    const server = start(responses);
    return Promise.resolve({
      provider: make(server.url),
      requests: () => server.requests.length,
      [Symbol.asyncDispose]: () => server.close(),
    });
  };
  return {
    name,
    retries: true,
    answering: (text: string) => open([fakeTurn({ text, chunks: 3, toolCalls: [READ] })]),
    flaky: (text: string) => open([fakeStatus(503), fakeTurn({ text, chunks: 2 })]),
    hanging: () => open([fakeHang(), fakeHang()]),
    // Every attempt gets the malformed reply (nothing was delivered, so the provider retries it).
    malformed: () => open(Array(5).fill(malformed)),
    malformedKind: "stream",
  };
}

providerConformance(httpHarness(
  "anthropic",
  (r) => startFakeAnthropicServer(r),
  (url) => anthropicProvider({ baseUrl: url, apiKey: "sk-test", clock: realClock(), retry: RETRY }),
  fakeSse([{ event: "message_start", data: "{this is not json" }]),
));

providerConformance(httpHarness(
  "openai",
  (r) => startFakeOpenAiServer(r),
  (url) => openAiProvider({ baseUrl: `${url}/v1`, apiKey: "sk-test", clock: realClock(), retry: RETRY }),
  fakeSse([{ data: "{this is not json" }]),
));

function scripted(script: Script): Promise<ConformanceCase> {
  let requests = 0;
  const inner = scriptedProvider(script, { clock: new FakeClock() });
  const provider: Provider = {
    name: inner.name,
    stream(request, options) {
      requests++;
      return inner.stream(request, options);
    },
  };
  return Promise.resolve({
    provider,
    requests: () => requests,
    [Symbol.asyncDispose]: () => Promise.resolve(),
  });
}

providerConformance({
  name: "scripted",
  retries: false,
  answering: (text) => scripted({ agents: { main: [{ turns: [{ text, chunks: 3, tool_calls: [READ] }] }] } }),
  flaky: () =>
    scripted({
      agents: { main: [{ turns: [{ error: { kind: "server", message: "scripted outage", status: 503 } }] }] },
    }),
  // The fake clock never moves, so the delay lasts until the abort.
  hanging: () => scripted({ agents: { main: [{ turns: [{ text: "late", delay_ms: 60_000 }] }] } }),
  // A script with no turn for this request.
  malformed: () => scripted({ agents: { Explore: [{ turns: [{ text: "not for main" }] }] } }),
  malformedKind: "script",
});
