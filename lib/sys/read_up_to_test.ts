import assert from "node:assert/strict";
import { readUpTo } from "./read_up_to.ts";
import { fsErrorCode, isNotFound } from "./errors.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("readUpTo: a whole file into the caller's buffer when it fits, null past maxBytes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-upto-" });
  try {
    await Deno.writeTextFile(`${dir}/a.txt`, "0123456789");
    const into = new Uint8Array(16);
    const read = readUpTo(`${dir}/a.txt`, { maxBytes: 10, into });
    assert.deepEqual(read, bytes("0123456789"));
    assert.equal(read!.buffer, into.buffer, "a view of the caller's buffer");
    assert.equal(readUpTo(`${dir}/a.txt`, { maxBytes: 9, into }), null);
    // A buffer too small is outgrown (a new array), never overrun.
    const small = new Uint8Array(3);
    assert.deepEqual(readUpTo(`${dir}/a.txt`, { maxBytes: 10, into: small }), bytes("0123456789"));
    assert.deepEqual(small, bytes("012"), "filled, then left for a bigger array");
    // Larger than the first buffer it makes.
    const big = "x".repeat(200_000);
    await Deno.writeTextFile(`${dir}/big.txt`, big);
    assert.equal(readUpTo(`${dir}/big.txt`, { maxBytes: 200_000 })!.length, 200_000);
    assert.equal(readUpTo(`${dir}/big.txt`, { maxBytes: 199_999 }), null);
    await Deno.writeTextFile(`${dir}/empty`, "");
    assert.deepEqual(readUpTo(`${dir}/empty`, { maxBytes: 10 }), new Uint8Array(0));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readUpTo: a missing file is NotFound; other failures keep their OS code and Deno's wording", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-upto-" });
  try {
    assert.throws(() => readUpTo(`${dir}/none`, { maxBytes: 10 }), (e) => isNotFound(e));
    await Deno.writeTextFile(`${dir}/f`, "x");
    assert.throws(
      () => readUpTo(`${dir}/f/x`, { maxBytes: 10 }),
      (e) =>
        !isNotFound(e) && fsErrorCode(e) === "ENOTDIR" && (e as Error).message.startsWith("Not a directory"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "readUpTo never waits: a FIFO with no writer reads as empty, a device stops at maxBytes",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-upto-" });
    try {
      const made = await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
      assert.ok(made.success, "mkfifo");
      assert.deepEqual(readUpTo(`${dir}/fifo`, { maxBytes: 10 }), new Uint8Array(0));
      assert.equal(readUpTo("/dev/zero", { maxBytes: 100_000 }), null);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
