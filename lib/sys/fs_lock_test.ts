import assert from "node:assert/strict";
import { realFs } from "./fs.ts";

const COUNTER = decodeURIComponent(new URL("../testing/lock_counter.ts", import.meta.url).pathname);

Deno.test("withLockedFile: a transient lock file is removed when released; a plain one stays", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-lock-" });
  try {
    const fs = realFs();
    assert.equal(await fs.withLockedFile(`${dir}/a.lock`, () => Promise.resolve(1), { transient: true }), 1);
    assert.equal(await fs.lstat(`${dir}/a.lock`), null);
    await assert.rejects(
      fs.withLockedFile(`${dir}/b.lock`, () => Promise.reject(new Error("boom")), { transient: true }),
      /boom/,
    );
    assert.equal(await fs.lstat(`${dir}/b.lock`), null, "removed after a failure too");
    await fs.withLockedFile(`${dir}/c.log`, () => Promise.resolve());
    assert.notEqual(await fs.lstat(`${dir}/c.log`), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("withLockedFile: four processes on one transient lock never hold it at once (no lost update)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-lock-race-" });
  try {
    const runs = Array.from({ length: 4 }, () =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          `--allow-read=${dir}`,
          `--allow-write=${dir}`,
          COUNTER,
          `${dir}/n.lock`,
          `${dir}/n`,
          "40",
        ],
        stdout: "null",
        stderr: "piped",
      }).output());
    for (const r of await Promise.all(runs)) assert.ok(r.success, new TextDecoder().decode(r.stderr));
    assert.equal(await Deno.readTextFile(`${dir}/n`), "160");
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["n"], "no lock file left behind");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("withLockedFile with create false: an existing file is locked and appended to; a missing one is ENOENT and not made", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-lock-nocreate-" });
  try {
    const fs = realFs();
    await Deno.writeTextFile(`${dir}/t.log`, "a\n");
    await fs.withLockedFile(`${dir}/t.log`, (file) => file.append("b\n", { sync: false }), { create: false });
    assert.equal(await Deno.readTextFile(`${dir}/t.log`), "a\nb\n");
    await assert.rejects(
      fs.withLockedFile(`${dir}/gone.log`, () => Promise.resolve(), { create: false }),
      Deno.errors.NotFound,
    );
    assert.equal(await fs.lstat(`${dir}/gone.log`), null, "not made");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("withLockedDir: shared holders hold the folder at once, an exclusive one only after them; nothing is left in it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-lock-dir-" });
  try {
    const fs = realFs();
    const order: string[] = [];
    const releaseA = Promise.withResolvers<void>();
    const aIn = Promise.withResolvers<void>();
    const a = fs.withLockedDir(dir, async () => {
      order.push("A in");
      aIn.resolve();
      await releaseA.promise;
      order.push("A out");
    }, { shared: true });
    await aIn.promise;
    const b = fs.withLockedDir(dir, () => {
      order.push("B in (exclusive)");
      return Promise.resolve();
    });
    // A second shared holder gets in while A holds it (were shared not shared, this would wait on A).
    await fs.withLockedDir(dir, () => {
      order.push("C in");
      return Promise.resolve();
    }, { shared: true });
    releaseA.resolve();
    await Promise.all([a, b]);
    assert.deepEqual(order, ["A in", "C in", "A out", "B in (exclusive)"]);
    assert.deepEqual([...Deno.readDirSync(dir)], [], "no lock file made");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
