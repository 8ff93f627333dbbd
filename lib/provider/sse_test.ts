import assert from "node:assert/strict";
import { parseSse, SseDecoder, type SseEvent } from "./sse.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

function decodeAll(chunks: (string | Uint8Array)[]): SseEvent[] {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  for (const c of chunks) events.push(...decoder.push(typeof c === "string" ? bytes(c) : c));
  events.push(...decoder.end());
  return events;
}

Deno.test("sse: named events with LF line endings", () => {
  assert.deepEqual(decodeAll(['event: ping\ndata: {}\n\nevent: message_stop\ndata: {"a":1}\n\n']), [
    { event: "ping", data: "{}" },
    { event: "message_stop", data: '{"a":1}' },
  ]);
});

Deno.test("sse: CRLF and lone CR line endings", () => {
  assert.deepEqual(decodeAll(["data: one\r\n\r\ndata: two\r\rdata: three\n\n"]), [
    { event: "message", data: "one" },
    { event: "message", data: "two" },
    { event: "message", data: "three" },
  ]);
});

Deno.test("sse: a CRLF pair split across chunks is one line break", () => {
  assert.deepEqual(decodeAll(["data: a\r", "\n\r", "\ndata: b\r\n\r\n"]), [
    { event: "message", data: "a" },
    { event: "message", data: "b" },
  ]);
});

Deno.test("sse: multi-line data joins with newlines; only one leading space is stripped", () => {
  assert.deepEqual(decodeAll(["data: line 1\ndata:line 2\ndata:   indented\ndata\n\n"]), [
    { event: "message", data: "line 1\nline 2\n  indented\n" },
  ]);
});

Deno.test("sse: comments and unknown fields are ignored; empty events are not dispatched", () => {
  assert.deepEqual(decodeAll([": keep-alive\n\nretry: 100\nfoo: bar\n\nevent: x\n\n:hi\ndata: y\n\n"]), [
    { event: "message", data: "y" },
  ]);
});

Deno.test("sse: the last id is carried on later events", () => {
  assert.deepEqual(decodeAll(["id: 7\ndata: a\n\ndata: b\n\n"]), [
    { event: "message", data: "a", id: "7" },
    { event: "message", data: "b", id: "7" },
  ]);
});

Deno.test("sse: every split point of a stream gives the same events", () => {
  const text = "event: a\r\ndata: héllo 🌍\r\n\r\n: c\ndata: x\ndata: y\n\n";
  const whole = decodeAll([text]);
  const raw = bytes(text);
  for (let i = 1; i < raw.length; i++) {
    assert.deepEqual(decodeAll([raw.slice(0, i), raw.slice(i)]), whole, `split at byte ${i}`);
  }
  assert.deepEqual(decodeAll([...raw].map((b) => new Uint8Array([b]))), whole, "one byte per chunk");
  assert.deepEqual(whole, [{ event: "a", data: "héllo 🌍" }, { event: "message", data: "x\ny" }]);
});

Deno.test("sse: an event without its closing blank line is discarded at the end", () => {
  assert.deepEqual(decodeAll(["data: done\n\ndata: partial\n"]), [{ event: "message", data: "done" }]);
});

Deno.test("sse: parseSse reads a ReadableStream and releases it when stopped early", async () => {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes("data: 1\n\ndata: 2\n\n"));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const event of parseSse(stream)) {
    assert.equal(event.data, "1");
    break;
  }
  assert.equal(cancelled, true);

  const full = ReadableStream.from([bytes("data: a\n"), bytes("\ndata: b\n\n")]);
  const events: SseEvent[] = [];
  for await (const event of parseSse(full)) events.push(event);
  assert.deepEqual(events.map((e) => e.data), ["a", "b"]);
});
