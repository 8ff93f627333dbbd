// Large results through the NATS store (nats_spill.ts) on a real nats-server: a result, an error and a
// conversation past the NATS caps move to the object store before the record, which stays one message
// and readable; readSpilled gives them back whole; removing the record removes them; secrets are
// redacted in them too; a record too large even so is refused with record_too_large, as is any record
// past one message when the store has nowhere to spill.
import assert from "node:assert/strict";
import { FakeClock } from "../testing/fakes.ts";
import { findNatsServer, startNats } from "../testing/nats_server.ts";
import { sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { connectNats } from "./nats_link.ts";
import { keyOfId } from "./nats_keys.ts";
import { NatsSidecarStore } from "./nats_sidecar_store.ts";
import { NATS_RECORD_BYTES, NATS_SPILL_CAPS, NatsSpill, SPILL_STORE } from "./nats_spill.ts";
import { parseStoreUrl } from "./store_url.ts";
import { spillOf } from "../store/spill.ts";
import { BladeError } from "../errors.ts";

const DAY = 86_400_000;
const binary = await findNatsServer();
if (binary === null) {
  Deno.test({
    name: "NATS spill: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("NATS spill: the caps, pinned; past them values go to the object store and come back whole", async () => {
    assert.deepEqual(NATS_SPILL_CAPS, { textChars: 131_072, messagesChars: 262_144 });
    assert.equal(NATS_RECORD_BYTES, 1_040_384);
    const dir = await Deno.makeTempDir({ prefix: "blade-nats-spill-" });
    await using nats = await startNats(binary, { size: 1, dir });
    await using link = await connectNats(parseStoreUrl(nats.url));
    const bucket = await link.bucket("spill_records", { replicas: 1 });
    const secret = "sk-ant-api03-very-secret";
    const redact = (text: string) => text.replaceAll(secret, "[REDACTED]");
    const objects = await link.objects(SPILL_STORE, { replicas: 1 });
    const spill = new NatsSpill(() => Promise.resolve(objects), { redact });
    const store = new NatsSidecarStore(bucket, { clock: new FakeClock(1), redact, spill });

    // 3 MB of result (over one message), a 300 k-character error, a 400 k-character conversation.
    const result = `${secret} ${"r".repeat(3 * 1024 * 1024)} END`;
    const big = "m".repeat(400_000);
    await store.create(sidecarFixture("agent-big", {
      messages: [{ role: "user", content: [{ type: "text", text: big }] }],
    }));
    const done = await store.markCompleted("agent-big", {
      status: "completed",
      completedAt: 2,
      result: { success: true, message: result, error: "e".repeat(300_000) },
    });
    const stored = (await bucket.get(keyOfId("agent-big")))!.text;
    assert.ok(stored.length < NATS_RECORD_BYTES, `the record is one message (${stored.length} bytes)`);
    const refs = spillOf(done)!;
    assert.deepEqual(Object.keys(refs).sort(), ["error", "messages", "result"]);
    assert.match(
      done.result.message,
      /\[The result continues: \d+ characters in all, kept in agent-big\.spill\//,
    );
    const whole = await store.readSpilled(done);
    assert.equal(whole.result.message, result.replace(secret, "[REDACTED]"), "whole, and redacted");
    assert.equal(whole.result.error, "e".repeat(300_000));
    assert.equal((whole.messages[0]!.content[0] as { text: string }).text, big);
    // A later change of another field keeps the references.
    const later = await store.update("agent-big", { description: "renamed" });
    assert.deepEqual(spillOf(later), refs);
    // Removing the record removes what it spilled; so does `tasks clean` (cleanExpired).
    assert.equal(await store.remove("agent-big"), true);
    assert.equal(await objects.get(`agent-big.spill/${refs.result!.file}`), null);
    await store.create(sidecarFixture("agent-old"));
    const old = await store.markCompleted("agent-old", {
      status: "completed",
      completedAt: 1,
      result: { success: true, message: result },
    });
    const oldFile = `agent-old.spill/${spillOf(old)!.result!.file}`;
    assert.ok(await objects.get(oldFile) !== null);
    const cleaned = await store.cleanExpired(() => true, DAY, { now: 1 + 30 * DAY });
    assert.deepEqual(cleaned.map((r) => r.id), ["agent-old"]);
    assert.equal(await objects.get(oldFile), null, "its spilled result went with it");

    // Too large even with everything spilled: refused, saying why.
    await assert.rejects(
      store.create(sidecarFixture("agent-huge", { prompt: "p".repeat(2 * 1024 * 1024) })),
      (e) =>
        e instanceof BladeError && e.code === "record_too_large" && /agent-huge is \d+ bytes/.test(e.message),
    );
    assert.equal(await store.load("agent-huge"), null, "nothing half-written");
    // Without an object store: a large result is refused loudly, never an obscure server error.
    const plain = new NatsSidecarStore(bucket, { clock: new FakeClock(1) });
    await plain.create(sidecarFixture("agent-plain"));
    await assert.rejects(
      plain.markCompleted("agent-plain", {
        status: "completed",
        completedAt: 2,
        result: { success: true, message: result },
      }),
      (e) => e instanceof BladeError && e.code === "record_too_large",
    );
    await link.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  });
}
