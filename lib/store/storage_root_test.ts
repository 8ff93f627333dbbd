import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { realFs } from "../sys/fs.ts";
import { openStorageRoot, storageUnusable, storageWriteFailed } from "./storage_root.ts";
import { FaultFs } from "../testing/fault_fs.ts";

const reasons: [string | undefined, RegExp][] = [
  ["EROFS", /read-only file system/],
  ["ENOSPC", /the disk is full/],
  ["EACCES", /permission denied/],
  ["ENOTDIR", /a part of its path is a file/],
  ["NOT_CAPABLE", /outside the folders Blade may write/],
  ["EWHATEVER", /cannot be used \(EWHATEVER\)/],
  [undefined, /cannot be used\.$/],
];

for (const [code, why] of reasons) {
  Deno.test(`storageUnusable: ${code ?? "no code"} names the path, the reason and a hint`, () => {
    const e = storageUnusable("/srv/b", code);
    assert.equal(e.code, "storage_unusable");
    assert.equal(e.exitCode, 1);
    assert.match(e.message, /^The storage root \/srv\/b is unusable: /);
    assert.match(e.message, why);
    assert.match(e.hint ?? "", /BLADE_STORAGE_ROOT/);
  });
}

Deno.test("openStorageRoot: creates a missing root, refuses a file, reads leave the mode alone", async () => {
  const fs = realFs();
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-root-" }));
  try {
    assert.equal(await openStorageRoot(fs, `${dir}/new/root`, "read"), `${dir}/new/root`);
    assert.equal((await Deno.stat(`${dir}/new/root`)).mode! & 0o777, 0o700);
    await Deno.chmod(`${dir}/new/root`, 0o755);
    await openStorageRoot(fs, `${dir}/new/root`, "read");
    assert.equal((await Deno.stat(`${dir}/new/root`)).mode! & 0o777, 0o755, "read does not chmod");
    await openStorageRoot(fs, `${dir}/new/root`, "write");
    assert.equal((await Deno.stat(`${dir}/new/root`)).mode! & 0o777, 0o700, "write asserts 0700");
    await Deno.writeTextFile(`${dir}/file`, "x");
    for (const access of ["read", "write"] as const) {
      await assert.rejects(openStorageRoot(fs, `${dir}/file`, access), (e: unknown) => {
        assert.ok(e instanceof BladeError);
        assert.match(e.message, /is unusable: it is a file, not a folder\./);
        return true;
      });
    }
    await assert.rejects(openStorageRoot(fs, `${dir}/file/below`, "write"), /a part of its path is a file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("storageWriteFailed: a write the machine refused is one line with the path, the reason and a hint", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-write-failed-" });
  try {
    const faults = new FaultFs(realFs(), [
      { op: "writeAtomic", path: (p) => p.endsWith("full.json"), code: "ENOSPC" },
      { op: "writeAtomic", path: (p) => p.endsWith("ro.json"), code: "EROFS" },
      { op: "writeAtomic", path: (p) => p.endsWith("denied.json"), code: "EACCES" },
    ]);
    const rows: [string, RegExp, RegExp][] = [
      ["full.json", /the disk is full \(ENOSPC\)/, /^Free space on that disk/],
      ["ro.json", /read-only file system \(EROFS\)/, /^Remount that file system read-write/],
      ["denied.json", /permission denied \(EACCES\)/, /^Make that folder writable/],
    ];
    for (const [name, why, hint] of rows) {
      const thrown = await faults.fs.writeAtomic(`${dir}/${name}`, "{}").then(() => undefined, (e) => e);
      const e = storageWriteFailed(thrown);
      assert.ok(e instanceof BladeError, name);
      assert.equal(e.code, "storage_write_failed");
      assert.equal(e.exitCode, 1);
      assert.ok(e.message.startsWith(`Could not write ${dir}/${name}: `), e.message);
      assert.match(e.message, why);
      assert.match(e.hint ?? "", hint);
    }
    // A real refusal through the real adapter names the path too (here: a folder where a file is expected).
    await Deno.writeTextFile(`${dir}/file`, "");
    const real = await realFs().writeText(`${dir}/file/x.json`, "{}").then(() => undefined, (e) => e);
    assert.match(
      storageWriteFailed(real)?.message ?? "",
      new RegExp(`^Could not write ${dir}/file/x\\.json: `),
    );
    // Anything else is not an environment problem: it stays a bug with its stack.
    assert.equal(storageWriteFailed(new TypeError("x is undefined")), undefined);
    assert.equal(storageWriteFailed(new BladeError("usage", "bad flag")), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
