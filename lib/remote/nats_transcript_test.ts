// The transcript port (lib/session/transcript.ts TranscriptLog) on the NATS store, on a real
// nats-server, next to the file transcript with the same cases: numbering, a second writer continuing
// after the first, two writers racing (every line once, seq strictly growing), redaction, an empty
// transcript. Then what only the stream has: a batch split over several messages, a batch sent again
// after a lost answer dropped as a duplicate, and appendEnvelopes refusing to follow another writer.

import assert from "node:assert/strict";
import { FakeClock, sequentialIds } from "../testing/fakes.ts";
import { findNatsServer, startNats } from "../testing/nats_server.ts";
import { realFs } from "../sys/fs.ts";
import type { NewTranscriptEvent } from "../protocol/events.ts";
import { type TranscriptLog, TranscriptWriter } from "../session/transcript.ts";
import { CasConflict, connectNats, type MessageStream } from "./nats_link.ts";
import { NatsTranscript, TRANSCRIPT_STREAM, TRANSCRIPT_SUBJECTS } from "./nats_transcript.ts";
import { parseStoreUrl } from "./store_url.ts";

const binary = await findNatsServer();
const SECRET = "sk-ant-secret-0123456789";
const redact = (t: string) => t.replaceAll(SECRET, "[REDACTED]");

const said = (text: string): NewTranscriptEvent => ({
  type: "part_created",
  data: { messageId: "m", partId: text, part: { type: "text", text } },
});

const texts = (events: { data: unknown }[]) =>
  events.map((e) => (e.data as { part: { text: string } }).part.text);

/** `open()` gives a new log of one session, as another process would. */
async function cases(open: () => TranscriptLog) {
  const first = open();
  assert.equal(await first.read(), null);
  const written = await first.append([said("a"), said(`key ${SECRET}`), said("c")]);
  assert.deepEqual(written.map((e) => e.seq), [1, 2, 3]);
  assert.equal(first.lastSeq, 3);
  assert.equal(written[0]!.sessionId, first.sessionId);
  assert.equal(written[0]!.projectPath, first.projectPath);

  // Another writer learns where the transcript ends and numbers after it.
  const second = open();
  assert.deepEqual((await second.append([said("d")])).map((e) => e.seq), [4]);
  assert.deepEqual((await first.append([said("e")])).map((e) => e.seq), [5]);

  const read = (await open().read())!;
  assert.deepEqual(read.diagnostics, []);
  assert.deepEqual(read.events.map((e) => e.seq), [1, 2, 3, 4, 5]);
  assert.deepEqual(texts(read.events), ["a", "key [REDACTED]", "c", "d", "e"]);

  // Two writers racing, batches of two: every line once, in one strictly growing order, each batch whole.
  const [a, b] = [open(), open()];
  await Promise.all(
    Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).append([said(`r${i}.1`), said(`r${i}.2`)])),
  );
  const raced = (await open().read())!;
  assert.deepEqual(raced.diagnostics, []);
  const seqs = raced.events.map((e) => e.seq);
  assert.deepEqual(seqs, Array.from({ length: 29 }, (_, i) => i + 1));
  const lines = texts(raced.events).slice(5);
  assert.equal(new Set(lines).size, 24);
  for (let k = 0; k < lines.length; k += 2) assert.equal(lines[k + 1], lines[k]!.replace(".1", ".2"));
}

Deno.test("file transcript: the TranscriptLog cases", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-transcript-port-" });
  try {
    const clock = new FakeClock(1_700_000_000_000);
    const ids = sequentialIds("e-");
    await cases(() =>
      new TranscriptWriter({
        fs: realFs(),
        clock,
        ids,
        path: `${dir}/p/agent-t.jsonl`,
        sessionId: "agent-t",
        projectPath: "/work/p",
        redact,
      })
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

if (binary === null) {
  Deno.test({
    name: "NATS transcript: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("NATS transcript: the TranscriptLog cases; split batches, lost answers, fixed seqs", async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-nats-transcript-" });
    await using nats = await startNats(binary, { size: 1, dir });
    await using link = await connectNats(parseStoreUrl(nats.url));
    const stream: MessageStream = await link.stream(TRANSCRIPT_STREAM, {
      subjects: TRANSCRIPT_SUBJECTS,
      replicas: 1,
    });
    const clock = new FakeClock(1_700_000_000_000);
    const ids = sequentialIds("e-");
    const log = (sessionId: string, messageBytes?: number) =>
      new NatsTranscript(stream, {
        clock,
        ids,
        sessionId,
        projectPath: "/work/p",
        redact,
        ...(messageBytes === undefined ? {} : { messageBytes }),
      });
    await cases(() => log("agent-t.1"));
    // Another session's transcript is its own subject.
    assert.equal(await log("agent-other").read(), null);

    // A batch larger than one message goes out as several, in order, numbered as one batch.
    const small = log("agent-split", 1000);
    const big = Array.from({ length: 9 }, (_, i) => said(`line ${i} ${"x".repeat(80)}`));
    assert.deepEqual((await small.append(big)).map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.ok((await stream.read(small.subject)).length > 1);
    assert.deepEqual((await log("agent-split").read())!.events.map((e) => e.seq), [
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      9,
    ]);
    await assert.rejects(small.append([said("y".repeat(1200))]), /over the 1000 bytes one message holds/);

    // A message sent again after its answer was lost (same id, same expected sequence) is a duplicate,
    // even though the subject's last sequence moved on with it: the servers check the id first.
    const subject = "blade.transcript.agent-dup";
    const once = await stream.append(subject, "one\n", { lastSeq: 0, msgId: "m-1" });
    const again = await stream.append(subject, "one\n", { lastSeq: 0, msgId: "m-1" });
    assert.deepEqual(again, { seq: once.seq, duplicate: true });
    assert.equal((await stream.read(subject)).length, 1);

    // appendEnvelopes keeps the given seqs, and refuses to follow a line another writer added.
    const source = log("agent-copy");
    const copied = await log("agent-copy-src").append([said("p"), said("q")]);
    await source.appendEnvelopes(copied.map((e) => ({ ...e, sessionId: "agent-copy" })));
    assert.deepEqual((await log("agent-copy").read())!.events.map((e) => e.seq), [1, 2]);
    await log("agent-copy").append([said("intruder")]);
    await assert.rejects(
      source.appendEnvelopes([{ ...copied[1]!, seq: 3, id: "later", sessionId: "agent-copy" }]),
      CasConflict,
    );
    await Deno.remove(dir, { recursive: true });
  });
}
