// Owns the one conformance suite every Provider must pass (like store_conformance.ts for stores): the
// streaming contract of lib/protocol/provider.ts, checked against a harness that can make the provider
// answer, fail transiently, hang and send a malformed reply. Every stream must end in exactly one
// terminal event (`done` or `error`), as its last event, and never throw. Each provider's test file
// (lib/provider/provider_conformance_test.ts) supplies a harness over its own fake backend.

import assert from "node:assert/strict";
import type { ToolCallBlock } from "../protocol/messages.ts";
import { userText } from "../protocol/messages.ts";
import type { Provider, ProviderEvent } from "../protocol/provider.ts";
import { collectEvents, modelRequest, terminalOf, textOfEvents } from "./provider_test_kit.ts";

/** One provider wired to a backend that behaves as the harness method promised. */
export interface ConformanceCase extends AsyncDisposable {
  provider: Provider;
  /** Requests the backend received so far. */
  requests(): number;
}

export interface ProviderHarness {
  name: string;
  /** The first request is answered with `text` (in several deltas) and one `Read` call of `a.txt`. */
  answering(text: string): Promise<ConformanceCase>;
  /**
   * The first attempt fails with a transient error. `retries: true`: the next attempt answers `text`
   * and the provider must retry; `retries: false` (the scripted provider has no network): the scripted
   * error is final and must not be retried.
   */
  flaky(text: string): Promise<ConformanceCase>;
  retries: boolean;
  /** The reply never comes until the request is aborted. */
  hanging(): Promise<ConformanceCase>;
  /** The reply is malformed (invalid JSON in the stream, or a script that does not answer). */
  malformed(): Promise<ConformanceCase>;
  /** The error kind a malformed reply ends in (`stream` over HTTP, `script` for the scripted provider). */
  malformedKind: string;
}

const REQUEST = modelRequest([userText("Read a.txt and summarise it")]);
const READ_CALL: Pick<ToolCallBlock, "name" | "input"> = { name: "Read", input: { file_path: "a.txt" } };

function assertUsage(event: { usage: { inputTokens: number; outputTokens: number } }): void {
  for (const n of [event.usage.inputTokens, event.usage.outputTokens]) {
    assert.ok(Number.isInteger(n) && n >= 0, `usage counts are whole numbers ≥ 0, got ${n}`);
  }
}

/** Consumes a stream, aborting once `when` matches an event (or at once when it is undefined). */
async function abortedStream(
  provider: Provider,
  when: ((event: ProviderEvent) => boolean) | undefined,
): Promise<ProviderEvent[]> {
  const controller = new AbortController();
  if (when === undefined) controller.abort();
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream(REQUEST, { signal: controller.signal })) {
    events.push(event);
    if (when?.(event) === true) controller.abort();
  }
  return events;
}

export function providerConformance(h: ProviderHarness): void {
  Deno.test(`provider conformance (${h.name}): an answer streams deltas, then exactly one done`, async () => {
    await using c = await h.answering("The file says hello to everyone.");
    const events = await collectEvents(c.provider.stream(REQUEST));
    assert.equal(events[0]?.type, "request_started");
    const end = terminalOf(events);
    assert.equal(end.type, "done", JSON.stringify(end));
    if (end.type !== "done") return;
    assert.ok(events.filter((e) => e.type === "text_delta").length >= 2, "text arrives in several deltas");
    assert.equal(textOfEvents(events), "The file says hello to everyone.");
    const calls = end.message.content.filter((b) => b.type === "tool_call");
    assert.deepEqual(calls.map((b) => ({ name: b.name, input: b.input })), [READ_CALL]);
    assert.equal(end.stopReason, "tool_use");
    assert.equal(end.message.role, "assistant");
    assertUsage(end);
    assert.equal(c.requests(), 1);
  });

  Deno.test(`provider conformance (${h.name}): a transient failure is ${h.retries ? "retried" : "final"}`, async () => {
    await using c = await h.flaky("Second time lucky.");
    const events = await collectEvents(c.provider.stream(REQUEST));
    const end = terminalOf(events);
    if (h.retries) {
      assert.equal(end.type, "done", JSON.stringify(end));
      assert.equal(textOfEvents(events), "Second time lucky.");
      assert.equal(events.filter((e) => e.type === "retry").length, 1, "the retry is announced once");
      assert.equal(c.requests(), 2);
    } else {
      assert.equal(end.type, "error");
      assert.equal(events.filter((e) => e.type === "retry").length, 0);
    }
    if (end.type === "error") assert.equal(end.stopReason, "error");
  });

  Deno.test(`provider conformance (${h.name}): abort ends the stream with one aborted error`, async () => {
    await using c = await h.hanging();
    const midway = await abortedStream(c.provider, (e) => e.type === "request_started");
    const end = terminalOf(midway);
    assert.equal(end.type === "error" && end.stopReason, "aborted", JSON.stringify(end));
    assert.equal(end.type === "error" && end.error.kind, "aborted");
    const before = terminalOf(await abortedStream(c.provider, undefined));
    assert.equal(before.type === "error" && before.stopReason, "aborted", "an already-aborted signal");
  });

  Deno.test(`provider conformance (${h.name}): a malformed reply is one error, never a throw`, async () => {
    await using c = await h.malformed();
    const events = await collectEvents(c.provider.stream(REQUEST));
    const end = terminalOf(events);
    assert.equal(end.type, "error", JSON.stringify(end));
    if (end.type !== "error") return;
    assert.equal(end.stopReason, "error");
    assert.equal(end.error.kind, h.malformedKind, end.error.message);
    assert.ok(end.error.message.length > 0, "the error says what went wrong");
    assertUsage(end);
  });
}
