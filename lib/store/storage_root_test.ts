import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { realFs } from "../sys/fs.ts";
import { openStorageRoot, storageUnusable } from "./storage_root.ts";

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
