import assert from "node:assert/strict";
import { appendWriter } from "./append_file.ts";

Deno.test("appendWriter: creates the file 0600 and appends each line as it comes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/debug.log`;
    await Deno.writeTextFile(path, "earlier\n");
    const w = appendWriter(path);
    w.write("one\n");
    assert.equal(await Deno.readTextFile(path), "earlier\none\n", "written at once");
    w.write("two\n");
    w.close();
    w.write("after close\n");
    assert.equal(await Deno.readTextFile(path), "earlier\none\ntwo\n");
    const fresh = appendWriter(`${dir}/new.log`);
    fresh.close();
    assert.equal((await Deno.stat(`${dir}/new.log`)).mode! & 0o777, 0o600);
    assert.throws(() => appendWriter(`${dir}/missing/x.log`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
