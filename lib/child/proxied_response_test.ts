// The proxied Response's body behaves as a ReadableStream's for what the providers do with it: chunks
// in order whether read before or after they arrive, an end, an error that drops what was not read,
// a cancel that ends every read and tells the sender once; the head is checked as Response's would be.

import assert from "node:assert/strict";
import { ProxiedBody, proxiedResponse } from "./proxied_response.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (r: ReadableStreamReadResult<Uint8Array>) =>
  r.done ? "<end>" : new TextDecoder().decode(r.value);
const HEAD = {
  status: 200,
  statusText: "OK",
  headers: [["content-type", "text/event-stream"]] as [string, string][],
};

Deno.test("proxied body: chunks in order, read before or after they arrive, then the end", async () => {
  const body = new ProxiedBody(() => assert.fail("not cancelled"));
  const reader = body.getReader();
  const early = reader.read();
  body.enqueue(bytes("a"));
  body.enqueue(bytes("b"));
  body.enqueue(bytes("c"));
  assert.equal(text(await early), "a");
  assert.equal(text(await reader.read()), "b");
  const [c, end] = [reader.read(), reader.read()];
  body.close();
  assert.deepEqual([text(await c), text(await end)], ["c", "<end>"]);
  body.enqueue(bytes("late"));
  assert.equal(text(await reader.read()), "<end>", "nothing after the end");
  await reader.cancel(); // after the end: nothing to tell the sender
  assert.throws(() => body.getReader(), TypeError);
});

Deno.test("proxied body: an error drops what was not read and fails every read; a cancel ends them and tells the sender once", async () => {
  const failed = new ProxiedBody(() => assert.fail("not cancelled"));
  const r = failed.getReader();
  failed.enqueue(bytes("unread"));
  failed.error(new DOMException("aborted", "AbortError"));
  failed.enqueue(bytes("after"));
  await assert.rejects(r.read(), { name: "AbortError" });
  await assert.rejects(r.read(), { name: "AbortError" });

  let told = 0;
  const cancelled = new ProxiedBody(() => told++);
  const reader = cancelled.getReader();
  cancelled.enqueue(bytes("dropped"));
  await cancelled.cancel();
  await reader.cancel();
  assert.equal(told, 1);
  assert.equal(text(await reader.read()), "<end>");
  const waiting = new ProxiedBody(() => told++);
  const read = waiting.getReader().read();
  await waiting.cancel();
  assert.equal(text(await read), "<end>", "a read waiting when the body is cancelled ends");
  assert.equal(told, 2);
});

Deno.test("proxied body: an error reaches a read already waiting", async () => {
  const body = new ProxiedBody(() => {});
  const waiting = body.getReader().read();
  body.error(new TypeError("connection reset"));
  await assert.rejects(waiting, TypeError);
});

Deno.test("proxied response: the head as sent, the body whole through text() or json(), once", async () => {
  const body = new ProxiedBody(() => {});
  const response = proxiedResponse("http://127.0.0.1:1/v1/messages", HEAD, body);
  assert.equal(response.status, 200);
  assert.equal(response.ok, true);
  assert.equal(response.headers.get("Content-Type"), "text/event-stream");
  assert.equal(response.url, "http://127.0.0.1:1/v1/messages");
  body.enqueue(bytes('{"a":'));
  body.enqueue(bytes("1}"));
  body.close();
  assert.deepEqual(await response.json(), { a: 1 });
  assert.equal(response.bodyUsed, true);
  await assert.rejects(response.text(), TypeError);
  const failing = proxiedResponse("u", { ...HEAD, status: 529, statusText: "Overloaded" }, null);
  assert.equal(failing.ok, false);
  assert.equal(failing.body, null);
  assert.equal(await failing.text(), "");
});

Deno.test("proxied response: a status or header Response would refuse is refused", () => {
  assert.throws(() => proxiedResponse("u", { ...HEAD, status: 99 }, null), RangeError);
  assert.throws(() => proxiedResponse("u", { ...HEAD, status: 600 }, null), RangeError);
  assert.throws(() => proxiedResponse("u", { ...HEAD, headers: [["bad name", "v"]] }, null), TypeError);
});
