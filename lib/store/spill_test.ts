import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { FakeClock } from "../testing/fakes.ts";
import { FIXTURE_TIME, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { FileSidecarStore, MAX_SIDECAR_BYTES } from "./file_store.ts";
import { planSpill, SPILL_HEAD_CHARS, SPILL_MESSAGES_CHARS, SPILL_TEXT_CHARS, spillOf } from "./spill.ts";
import type { Message } from "../protocol/messages.ts";
import type { SidecarRecord } from "./schema.ts";

const MB = 1024 * 1024;

function finished(
  id: string,
  o: { result?: string; error?: string; messages?: Message[] } = {},
): SidecarRecord {
  return sidecarFixture(id, {
    status: o.error === undefined ? "completed" : "failed",
    completedAt: FIXTURE_TIME,
    result: {
      success: o.error === undefined,
      message: o.result ?? "done",
      ...(o.error === undefined ? {} : { error: o.error }),
    },
    ...(o.messages === undefined ? {} : { messages: o.messages }),
  });
}

Deno.test("spill: the caps, pinned — a value at its cap stays inline, one character more is spilled", async () => {
  assert.equal(SPILL_TEXT_CHARS, 1_048_576);
  assert.equal(SPILL_MESSAGES_CHARS, 16_777_216);
  assert.equal(SPILL_HEAD_CHARS, 32_000);
  const at = await planSpill(finished("agent-cap", { result: "r".repeat(SPILL_TEXT_CHARS) }));
  assert.deepEqual([at.files.length, spillOf(at.record)], [0, undefined]);
  const over = await planSpill(finished("agent-cap", { result: "r".repeat(SPILL_TEXT_CHARS + 1) }));
  assert.equal(over.files.length, 1);
  assert.match(over.files[0]!.name, /^result-[0-9a-f]{24}\.txt$/);
  assert.equal(over.record.result.message.slice(0, SPILL_HEAD_CHARS), "r".repeat(SPILL_HEAD_CHARS));
  assert.match(over.record.result.message, /characters in all, kept in agent-cap\.spill\/result-/);
  // Read back and written again (another field changed): the same file, nothing new to write.
  const again = await planSpill({ ...over.record, lastActiveAt: FIXTURE_TIME + 1 });
  assert.deepEqual([again.files.length, spillOf(again.record)], [0, spillOf(over.record)]);
});

for (const mb of [1, 34, 200]) {
  Deno.test(`spill: a ${mb} MB result is committed readable, under the read cap, and read back whole`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-spill-" });
    try {
      const store = new FileSidecarStore({
        fs: realFs(),
        clock: new FakeClock(FIXTURE_TIME),
        storageRoot: dir,
      });
      const text = "x".repeat(mb * MB - 3) + "end";
      // Up to 34 MB the conversation holds the answer too (the 68 MB record); 200 MB is the result alone.
      const messages: Message[] = mb <= 34 ? [{ role: "assistant", content: [{ type: "text", text }] }] : [];
      await store.save(sidecarFixture(`agent-big${mb}`));
      await store.update(`agent-big${mb}`, () => finished(`agent-big${mb}`, { result: text, messages }));
      const size = (await Deno.stat(store.pathOf(`agent-big${mb}`))).size;
      assert.ok(size < MAX_SIDECAR_BYTES / 2, `the record is ${size} bytes`);
      // Another store (another process) reads it: no diagnostic, the capped text, then everything.
      const other = new FileSidecarStore({
        fs: realFs(),
        clock: new FakeClock(FIXTURE_TIME),
        storageRoot: dir,
      });
      const loaded = await other.load(`agent-big${mb}`);
      assert.ok(
        loaded !== null && "record" in loaded,
        JSON.stringify(loaded && "diagnostic" in loaded ? loaded : ""),
      );
      // 1 MB (1,048,576 characters) is at the cap: kept inline; larger ones keep their head and a pointer.
      if (text.length > SPILL_TEXT_CHARS) {
        assert.ok(loaded.record.result.message.length < SPILL_HEAD_CHARS + 300);
      } else assert.equal(loaded.record.result.message, text);
      const whole = await other.readSpilled(loaded.record);
      assert.equal(whole.result.message.length, text.length);
      assert.ok(whole.result.message.endsWith("end"));
      assert.equal(spillOf(whole), undefined);
      if (mb <= 34) {
        assert.equal((whole.messages[0]!.content[0] as { text: string }).text.length, text.length);
      }
      // Removing the run removes what it spilled.
      await other.remove(`agent-big${mb}`);
      assert.deepEqual(
        [...Deno.readDirSync(store.sessionsDir)].map((e) => e.name).filter((n) => n.includes("big")),
        [],
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("spill: a conversation past 64 MiB (17 reads of 4 MB) and a large error stay readable", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-spill-" });
  try {
    const store = new FileSidecarStore({
      fs: realFs(),
      clock: new FakeClock(FIXTURE_TIME),
      storageRoot: dir,
    });
    const read = "y".repeat(4 * MB);
    const messages: Message[] = [];
    for (let i = 0; i < 17; i++) {
      messages.push({
        role: "assistant",
        content: [{ type: "tool_call", id: `c${i}`, name: "Read", input: {} }],
      });
      messages.push({
        role: "user",
        content: [{ type: "tool_result", callId: `c${i}`, content: read, isError: false }],
      });
    }
    await store.save(finished("agent-history", { error: "e".repeat(2 * MB), messages }));
    assert.ok((await Deno.stat(store.pathOf("agent-history"))).size < 1 * MB);
    const loaded = await store.load("agent-history");
    assert.ok(loaded !== null && "record" in loaded);
    assert.deepEqual(loaded.record.messages, []);
    const whole = await store.readSpilled(loaded.record);
    assert.equal(whole.messages.length, 34);
    assert.equal(whole.result.error?.length, 2 * MB);
    // A later change that gives the conversation back inline (a resumed record) drops the spilled file.
    await store.update("agent-history", {
      messages: [{ role: "user", content: [{ type: "text", text: "short" }] }],
    });
    const files = Deno.readDirSync(`${store.sessionsDir}/agent-history.spill`).map((e) => e.name);
    assert.deepEqual([...files].map((n) => n.split("-")[0]).sort(), ["error"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
