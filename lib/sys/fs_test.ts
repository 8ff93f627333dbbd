import assert from "node:assert/strict";
import { realFs } from "./fs.ts";

Deno.test("stageAtomic with dirReady: the folder is not asserted again, and made again when it is gone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-stage-" });
  try {
    const fs = realFs();
    await fs.ensureDir(`${dir}/s`, 0o700);
    await Deno.chmod(`${dir}/s`, 0o750);
    const temp = await fs.stageAtomic(`${dir}/s/r.json`, "{}", {
      mode: 0o600,
      dirMode: 0o700,
      dirReady: true,
    });
    assert.equal((await Deno.stat(`${dir}/s`)).mode! & 0o777, 0o750, "left as the caller asserted it");
    assert.equal(await Deno.readTextFile(temp), "{}");
    assert.equal(await fs.lstat(`${dir}/s/r.json`), null, "the record itself untouched");
    await Deno.remove(`${dir}/s`, { recursive: true });
    const again = await fs.stageAtomic(`${dir}/s/r.json`, "[]", {
      mode: 0o600,
      dirMode: 0o700,
      dirReady: true,
    });
    assert.equal(await Deno.readTextFile(again), "[]");
    assert.equal((await Deno.stat(`${dir}/s`)).mode! & 0o777, 0o700, "made again with its mode");
    assert.equal((await Deno.stat(again)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stageAtomic with tempDir: the temp file is made there (the folder made when missing) and renames onto the record", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-stage-tempdir-" });
  try {
    const fs = realFs();
    await fs.ensureDir(`${dir}/s`, 0o700);
    const temp = await fs.stageAtomic(`${dir}/s/r.json`, "{}", {
      dirReady: true,
      sync: false,
      tempDir: `${dir}/s/.~staging`,
    });
    assert.ok(temp.startsWith(`${dir}/s/.~staging/.r.json.`), temp);
    assert.equal((await Deno.stat(`${dir}/s/.~staging`)).mode! & 0o777, 0o700);
    await fs.syncFile(temp);
    await fs.rename(temp, `${dir}/s/r.json`);
    await fs.syncDir(`${dir}/s`);
    assert.equal(await Deno.readTextFile(`${dir}/s/r.json`), "{}");
    assert.deepEqual([...Deno.readDirSync(`${dir}/s/.~staging`)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readRegularFile: a regular file's first maxBytes; a folder or a device named, not read", async () => {
  const fs = realFs();
  const dir = await Deno.makeTempDir({ prefix: "blade-regular-" });
  try {
    await Deno.writeTextFile(`${dir}/a.txt`, "0123456789");
    assert.deepEqual(await fs.readRegularFile(`${dir}/a.txt`, { maxBytes: 4 }), {
      kind: "file",
      bytes: new TextEncoder().encode("0123"),
      truncated: true,
    });
    assert.deepEqual(await fs.readRegularFile(`${dir}/a.txt`, { maxBytes: 10 }), {
      kind: "file",
      bytes: new TextEncoder().encode("0123456789"),
      truncated: false,
    });
    assert.deepEqual(await fs.readRegularFile(dir, { maxBytes: 10 }), {
      kind: "not_regular",
      what: "a directory",
    });
    if (Deno.build.os === "linux") {
      assert.deepEqual(await fs.readRegularFile("/dev/null", { maxBytes: 10 }), {
        kind: "not_regular",
        what: "a character device",
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
