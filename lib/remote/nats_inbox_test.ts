// The session inbox port (lib/session/inbox.ts) on the NATS store, on a real nats-server, next to the
// file inbox with the same cases: order, an inboxId pending once (also when two writers race), removal,
// the completion limit, and a stored message that is no entry failing closed.

import assert from "node:assert/strict";
import { FakeClock } from "../testing/fakes.ts";
import { findNatsServer, startNats } from "../testing/nats_server.ts";
import { realFs } from "../sys/fs.ts";
import { Inbox, INBOX_LIMITS, type InboxEntry, type SessionInbox } from "../session/inbox.ts";
import { connectNats, type MessageStream } from "./nats_link.ts";
import { INBOX_STREAM, INBOX_SUBJECTS, NatsInbox } from "./nats_inbox.ts";
import { parseStoreUrl } from "./store_url.ts";

const binary = await findNatsServer();

const entry = (id: string, kind: InboxEntry["kind"] = "completion"): InboxEntry => ({
  inboxId: id,
  kind,
  text: `notice ${id}`,
  createdAt: 1,
  agentId: "agent-x",
});

async function cases(open: () => Promise<SessionInbox>) {
  const inbox = await open();
  assert.deepEqual(await inbox.pending(), []);
  assert.deepEqual(await inbox.enqueue(entry("c1")), { accepted: true, duplicate: false });
  assert.deepEqual(await inbox.enqueue(entry("s1", "steering")), { accepted: true, duplicate: false });
  assert.deepEqual(await inbox.enqueue(entry("c1")), { accepted: true, duplicate: true });
  assert.deepEqual((await inbox.pending()).map((e) => e.inboxId), ["c1", "s1"]);
  await inbox.remove(["c1", "never"]);
  assert.deepEqual((await inbox.pending()).map((e) => e.inboxId), ["s1"]);
  await assert.rejects(
    inbox.enqueue({ ...entry("bad"), kind: "other" as "completion" }),
    /invalid_inbox_entry|Cannot enqueue/,
  );

  // Two writers (two processes' inboxes of one session) race to deliver the same notice: it is pending once.
  const [a, b] = [await open(), await open()];
  const raced = await Promise.all([a.enqueue(entry("race")), b.enqueue(entry("race"))]);
  assert.deepEqual(raced.map((r) => r.accepted), [true, true]);
  assert.equal((await inbox.pending()).filter((e) => e.inboxId === "race").length, 1);
  // Many different notices at once: every one kept, none doubled.
  await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).enqueue(entry(`many${i}`))));
  const ids = (await inbox.pending()).map((e) => e.inboxId);
  assert.equal(ids.filter((id) => id.startsWith("many")).length, 10);
  assert.equal(new Set(ids).size, ids.length);

  // The completion limit (100 pending).
  await inbox.remove(ids);
  for (let i = 0; i < INBOX_LIMITS.completions; i++) await inbox.enqueue(entry(`f${i}`));
  const full = await inbox.enqueue(entry("one-more"));
  assert.equal(full.accepted, false);
  assert.equal(full.accepted === false && full.reason, "queue_full");
}

Deno.test("file inbox: the SessionInbox cases", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-inbox-port-" });
  try {
    await cases(() =>
      Promise.resolve(new Inbox({ fs: realFs(), clock: new FakeClock(1), path: `${dir}/s.inbox.json` }))
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

if (binary === null) {
  Deno.test({
    name: "NATS inbox: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("NATS inbox: the SessionInbox cases; a foreign message fails closed", async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-nats-inbox-" });
    await using nats = await startNats(binary, { size: 1, dir });
    await using link = await connectNats(parseStoreUrl(nats.url));
    const stream: MessageStream = await link.stream(INBOX_STREAM, { subjects: INBOX_SUBJECTS, replicas: 1 });
    await cases(() => Promise.resolve(new NatsInbox(stream, "session-a.b")));
    // Another session's inbox is its own subject.
    assert.deepEqual(await new NatsInbox(stream, "session-other").pending(), []);
    const foreign = new NatsInbox(stream, "session-foreign");
    await stream.append(foreign.subject, "{not json", { lastSeq: 0 });
    await assert.rejects(foreign.pending(), /holds a message \(#\d+\) that is no inbox entry/);
    await Deno.remove(dir, { recursive: true });
  });
}
