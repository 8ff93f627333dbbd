import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { realFs } from "../sys/fs.ts";
import { FakeClock } from "../testing/fakes.ts";
import { Inbox, INBOX_LIMITS, type InboxEntry } from "./inbox.ts";

const ENQUEUER = new URL("../testing/inbox_enqueuer.ts", import.meta.url);
const CONFIG = decodeURIComponent(new URL("../../deno.json", import.meta.url).pathname);

/** A temp project folder (not created yet, like a fresh project dir) and an inbox in it. */
async function tempInbox(): Promise<{ dir: string; path: string; inbox: Inbox } & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "blade-inbox-" });
  const dir = `${root}/projects/-home-dev-project`;
  const path = `${dir}/session-1.inbox.json`;
  return {
    dir,
    path,
    inbox: openInbox(path),
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

function openInbox(path: string): Inbox {
  return new Inbox({ fs: realFs(), clock: new FakeClock(), path });
}

function completion(n: number, overrides: Partial<InboxEntry> = {}): InboxEntry {
  return {
    inboxId: `background-subagent-completion:agent-${n}`,
    kind: "completion",
    text: `<background-subagent-completion>{"agent_id":"agent-${n}"}</background-subagent-completion>`,
    createdAt: 1_000 + n,
    agentId: `agent-${n}`,
    ...overrides,
  };
}

function steering(n: number, overrides: Partial<InboxEntry> = {}): InboxEntry {
  return {
    inboxId: `steering:${n}`,
    kind: "steering",
    text: `Also check file ${n}.`,
    createdAt: 2_000 + n,
    ...overrides,
  };
}

async function assertInvalid(promise: Promise<unknown>, path: string): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof BladeError);
    assert.equal(e.code, "inbox_invalid");
    assert.ok(e.message.includes(path), e.message);
    assert.match(e.hint ?? "", /kept/);
    return true;
  });
}

Deno.test("a missing inbox file has no pending entries", async () => {
  await using t = await tempInbox();
  assert.deepEqual(await t.inbox.pending(), []);
  await t.inbox.remove(["steering:1"]);
  assert.equal(await realFs().stat(t.path), null);
});

Deno.test("entries round-trip in enqueue order through the file", async () => {
  await using t = await tempInbox();
  const entries = [completion(1), steering(1), completion(2)];
  for (const entry of entries) {
    assert.deepEqual(await t.inbox.enqueue(entry), { accepted: true, duplicate: false });
  }
  assert.deepEqual(await t.inbox.pending(), entries);
  assert.deepEqual(await openInbox(t.path).pending(), entries);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(t.path)), { version: 1, entries });
});

Deno.test("a duplicate inbox id is an accepted no-op", async () => {
  await using t = await tempInbox();
  await t.inbox.enqueue(completion(1));
  const before = await Deno.readTextFile(t.path);
  const again = await t.inbox.enqueue(completion(1, { text: "a second delivery" }));
  assert.deepEqual(again, { accepted: true, duplicate: true });
  assert.deepEqual(await t.inbox.pending(), [completion(1)]);
  assert.equal(await Deno.readTextFile(t.path), before);
});

Deno.test("the 101st completion is refused while steering messages still fit", async () => {
  await using t = await tempInbox();
  for (let n = 0; n < INBOX_LIMITS.completions; n++) {
    assert.deepEqual(await t.inbox.enqueue(completion(n)), { accepted: true, duplicate: false });
  }
  const refused = await t.inbox.enqueue(completion(100));
  assert.equal(refused.accepted, false);
  if (!refused.accepted) {
    assert.equal(refused.reason, "queue_full");
    assert.match(refused.message, /100 pending completion notices \(limit 100\)/);
  }
  assert.deepEqual(await t.inbox.enqueue(completion(5)), { accepted: true, duplicate: true });
  for (let n = 0; n < INBOX_LIMITS.steering; n++) {
    assert.deepEqual(await t.inbox.enqueue(steering(n)), { accepted: true, duplicate: false });
  }
  assert.equal((await t.inbox.pending()).length, 120);
});

Deno.test("the 21st steering message is refused while completions still fit", async () => {
  await using t = await tempInbox();
  for (let n = 0; n < INBOX_LIMITS.steering; n++) await t.inbox.enqueue(steering(n));
  const refused = await t.inbox.enqueue(steering(20));
  assert.equal(refused.accepted, false);
  if (!refused.accepted) {
    assert.equal(refused.reason, "queue_full");
    assert.match(refused.message, /20 pending steering messages \(limit 20\)/);
  }
  assert.deepEqual(await t.inbox.enqueue(completion(1)), { accepted: true, duplicate: false });
  assert.equal((await t.inbox.pending()).length, 21);
});

Deno.test("removing entries frees room under the limits", async () => {
  await using t = await tempInbox();
  for (let n = 0; n < INBOX_LIMITS.steering; n++) await t.inbox.enqueue(steering(n));
  assert.equal((await t.inbox.enqueue(steering(20))).accepted, false);
  await t.inbox.remove(["steering:0"]);
  assert.deepEqual(await t.inbox.enqueue(steering(20)), { accepted: true, duplicate: false });
});

Deno.test("the file may reach exactly 8 MiB and not one byte more", async () => {
  await using t = await tempInbox();
  // Size of the file holding the entry with empty text; every ASCII character of text adds one byte.
  const probe = openInbox(`${t.dir}/probe.inbox.json`);
  await probe.enqueue(completion(1, { text: "" }));
  const overhead = (await Deno.stat(`${t.dir}/probe.inbox.json`)).size;
  const fits = completion(1, { text: "x".repeat(INBOX_LIMITS.bytes - overhead) });

  const over = await t.inbox.enqueue({ ...fits, text: `${fits.text}x` });
  assert.equal(over.accepted, false);
  if (!over.accepted) {
    assert.equal(over.reason, "too_large");
    assert.match(over.message, /8388609 bytes, over its limit of 8388608 bytes/);
  }
  assert.deepEqual(await t.inbox.pending(), []);

  assert.deepEqual(await t.inbox.enqueue(fits), { accepted: true, duplicate: false });
  assert.equal((await Deno.stat(t.path)).size, INBOX_LIMITS.bytes);
  const next = await t.inbox.enqueue(steering(1));
  assert.equal(next.accepted, false);
  if (!next.accepted) assert.equal(next.reason, "too_large");
  assert.deepEqual(await t.inbox.pending(), [fits]);
});

Deno.test("remove drops the acknowledged entries and keeps the rest in order", async () => {
  await using t = await tempInbox();
  for (const entry of [completion(1), steering(1), completion(2), completion(3)]) {
    await t.inbox.enqueue(entry);
  }
  await t.inbox.remove([completion(1).inboxId, completion(3).inboxId, "never-enqueued"]);
  assert.deepEqual(await t.inbox.pending(), [steering(1), completion(2)]);
  const before = await Deno.readTextFile(t.path);
  await t.inbox.remove([]);
  await t.inbox.remove(["never-enqueued"]);
  assert.equal(await Deno.readTextFile(t.path), before);
  await t.inbox.remove([steering(1).inboxId, completion(2).inboxId]);
  assert.deepEqual(await t.inbox.pending(), []);
  // The last entries gone, so is the file (unlinked: no commit point, see Inbox.remove).
  await assert.rejects(Deno.lstat(t.path), Deno.errors.NotFound);
  await assert.rejects(Deno.lstat(`${t.path}.lock`), Deno.errors.NotFound);
  await t.inbox.remove([completion(2).inboxId]);
  assert.equal((await t.inbox.enqueue(completion(4))).accepted, true, "a new entry makes it again");
  assert.deepEqual(await t.inbox.pending(), [completion(4)]);
});

Deno.test(
  "the inbox is 0600 in a 0700 folder; its lock file is removed when released",
  { ignore: Deno.build.os === "windows" },
  async () => {
    await using t = await tempInbox();
    await t.inbox.enqueue(completion(1));
    assert.equal((await Deno.stat(t.path)).mode! & 0o777, 0o600);
    await assert.rejects(Deno.stat(`${t.path}.lock`), Deno.errors.NotFound);
    assert.equal((await Deno.stat(t.dir)).mode! & 0o777, 0o700);
    await Deno.chmod(t.path, 0o644);
    await t.inbox.enqueue(completion(2));
    assert.equal((await Deno.stat(t.path)).mode! & 0o777, 0o600);
  },
);

Deno.test("a corrupt inbox is reported and never overwritten", async () => {
  await using t = await tempInbox();
  await Deno.mkdir(t.dir, { recursive: true });
  const cases = [
    '{"version": 1, "entries": [{"inboxId": "a", "kind": "completion", "te',
    '{"version": 2, "entries": []}',
    '{"version": 1, "entries": [{"inboxId": "a", "kind": "telepathy", "text": "", "createdAt": 1}]}',
    "[]",
  ];
  for (const text of cases) {
    await Deno.writeTextFile(t.path, text);
    await assertInvalid(t.inbox.pending(), t.path);
    await assertInvalid(t.inbox.enqueue(completion(1)), t.path);
    await assertInvalid(t.inbox.remove(["a"]), t.path);
    assert.equal(await Deno.readTextFile(t.path), text);
  }
});

Deno.test("unknown fields of stored entries survive a rewrite", async () => {
  await using t = await tempInbox();
  await Deno.mkdir(t.dir, { recursive: true });
  const stored = { ...completion(1), priority: "high" };
  await Deno.writeTextFile(t.path, JSON.stringify({ version: 1, entries: [stored], writer: "newer blade" }));
  await t.inbox.enqueue(completion(2));
  assert.deepEqual(await t.inbox.pending(), [stored, completion(2)]);
});

Deno.test("a malformed entry is refused before the file is touched", async () => {
  await using t = await tempInbox();
  await assert.rejects(
    t.inbox.enqueue({ ...completion(1), inboxId: "" }),
    (e: unknown) => e instanceof BladeError && e.code === "invalid_inbox_entry",
  );
  await assert.rejects(
    t.inbox.enqueue({ ...completion(1), createdAt: Number.NaN }),
    (e: unknown) => e instanceof BladeError && e.code === "invalid_inbox_entry",
  );
  assert.equal(await realFs().stat(t.dir), null);
});

Deno.test("concurrent enqueues in one process lose nothing", async () => {
  await using t = await tempInbox();
  const other = openInbox(t.path);
  const entries = Array.from({ length: 40 }, (_, n) => completion(n));
  const results = await Promise.all(entries.map((e, n) => (n % 2 === 0 ? t.inbox : other).enqueue(e)));
  assert.ok(results.every((r) => r.accepted && !r.duplicate));
  const ids = (await t.inbox.pending()).map((e) => e.inboxId).sort();
  assert.deepEqual(ids, entries.map((e) => e.inboxId).sort());
});

Deno.test("concurrent enqueues from 4 processes lose nothing", async () => {
  await using t = await tempInbox();
  await Deno.mkdir(t.dir, { recursive: true });
  const writers = ["w0", "w1", "w2", "w3"];
  const perWriter = 20;
  const runs = writers.map(async (writer) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        `--allow-read=${t.dir}`,
        `--allow-write=${t.dir}`,
        "--ignore-env=LOG_TOKENS,LOG_STREAM",
        "--config",
        CONFIG,
        ENQUEUER.href,
        t.path,
        writer,
        String(perWriter),
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  });
  await Promise.all(runs);
  const pending = await t.inbox.pending();
  assert.equal(pending.length, writers.length * perWriter);
  for (const writer of writers) {
    const mine = pending.filter((e) => e.agentId === writer).map((e) => e.inboxId);
    assert.deepEqual(mine, Array.from({ length: perWriter }, (_, n) => `${writer}-${n}`));
  }
});

Deno.test("inbox file check: the same answers as the zod schema it replaced", async () => {
  const { z } = await import("zod");
  const entry = z.looseObject({
    inboxId: z.string().min(1),
    kind: z.enum(["completion", "steering"]),
    text: z.string(),
    createdAt: z.number(),
    agentId: z.string().exactOptional(),
  });
  const file = z.looseObject({ version: z.literal(1), entries: z.array(entry) });
  const good = { inboxId: "i1", kind: "completion", text: "done", createdAt: 5, agentId: "agent-a" };
  const values = [undefined, null, "", "x", 0, 1.5, -1, Infinity, true, [], {}, "steering", 2];
  const candidates: unknown[] = [null, [], "x", { version: 1, entries: [] }, { version: 2, entries: [] }];
  for (const key of Object.keys(good)) {
    const { [key]: _, ...without } = good as Record<string, unknown>;
    candidates.push({ version: 1, entries: [without] });
    for (const v of values) candidates.push({ version: 1, entries: [good, { ...good, [key]: v }], extra: 1 });
  }
  for (const v of values) candidates.push({ version: v, entries: [good] }, { version: 1, entries: v });
  await using t = await tempInbox();
  await Deno.mkdir(t.dir, { recursive: true });
  for (const c of candidates) {
    await Deno.writeTextFile(t.path, JSON.stringify(c) ?? "null");
    const want = file.safeParse(JSON.parse(JSON.stringify(c) ?? "null"));
    const got = await t.inbox.pending().then(
      (entries) => ({ ok: true as const, entries }),
      () => ({ ok: false as const }),
    );
    assert.equal(got.ok, want.success, JSON.stringify(c));
    if (want.success && got.ok) assert.deepEqual(got.entries, want.data.entries, JSON.stringify(c));
  }
});
