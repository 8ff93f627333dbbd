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
    await cases(() => Promise.resolve(new NatsInbox(stream, "session-a.b", { clock: new FakeClock(1) })));
    // Another session's inbox is its own subject.
    assert.deepEqual(await new NatsInbox(stream, "session-other", { clock: new FakeClock(1) }).pending(), []);
    const foreign = new NatsInbox(stream, "session-foreign", { clock: new FakeClock(1) });
    await stream.append(foreign.subject, "{not json", { lastSeq: 0 });
    await assert.rejects(foreign.pending(), /holds a message \(#\d+\) that is no inbox entry/);
    await Deno.remove(dir, { recursive: true });
  });

  Deno.test("NATS inbox: an append whose answer was lost is tried again and adds the entry once", async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-nats-inbox-lost-" });
    await using nats = await startNats(binary, { size: 1, dir });
    await using link = await connectNats(parseStoreUrl(nats.url));
    const stream: MessageStream = await link.stream(INBOX_STREAM, { subjects: INBOX_SUBJECTS, replicas: 1 });
    // The first append of each inbox fails as a node dying mid-request does (the client's TimeoutError):
    // `stored` says whether the servers had stored it before the answer was lost.
    const losing = (stored: boolean): MessageStream => {
      let failed = false;
      return {
        read: (subject) => stream.read(subject),
        last: (subject) => stream.last(subject),
        maxPayload: stream.maxPayload,
        remove: (seq) => stream.remove(seq),
        purge: (subject) => stream.purge(subject),
        async append(subject, text, options) {
          if (failed) return await stream.append(subject, text, options);
          failed = true;
          if (stored) await stream.append(subject, text, options);
          const lost = new Error("request timed out");
          lost.name = "TimeoutError";
          throw lost;
        },
      };
    };
    const clock = new FakeClock(1);
    for (const stored of [true, false]) {
      const session = `session-lost-${stored}`;
      const inbox = new NatsInbox(losing(stored), session, { clock });
      // (Message ids are deduplicated across the stream: each case its own inbox id.)
      const sent = inbox.enqueue(entry(`lost-${stored}`));
      // The retry waits its pause (100 ms) on the injected clock.
      while (clock.pendingSleepers === 0) await new Promise((r) => setTimeout(r, 5));
      clock.advance(100);
      assert.deepEqual(await sent, { accepted: true, duplicate: stored }, `stored first: ${stored}`);
      const pending = await new NatsInbox(stream, session, { clock }).pending();
      assert.deepEqual(pending.map((e) => e.inboxId), [`lost-${stored}`], `stored first: ${stored}`);
    }
    // An error that is not transient is the caller's at once.
    const broken: MessageStream = {
      ...stream,
      read: (subject) => stream.read(subject),
      append: () => Promise.reject(new Error("permissions violation")),
    };
    await assert.rejects(
      new NatsInbox(broken, "session-broken", { clock }).enqueue(entry("c1")),
      /permissions/,
    );
    await Deno.remove(dir, { recursive: true });
  });
}
