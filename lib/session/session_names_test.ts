import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { checkSessionName, readSessionNames, sessionByName, setSessionName } from "./session_names.ts";

Deno.test("session names: written atomically, read back, found by name; a broken file is no names", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const fs = realFs();
    assert.deepEqual(await readSessionNames(fs, `${dir}/p`), {});
    await setSessionName(fs, `${dir}/p`, { sessionId: "session-a", name: "nightly fix" });
    await setSessionName(fs, `${dir}/p`, { sessionId: "session-b", name: "  review  " });
    assert.deepEqual(await readSessionNames(fs, `${dir}/p`), {
      "session-a": "nightly fix",
      "session-b": "review",
    });
    assert.equal(sessionByName(await readSessionNames(fs, `${dir}/p`), "nightly fix"), "session-a");
    assert.equal(sessionByName({}, "x"), undefined);
    await Deno.writeTextFile(`${dir}/p/session-names.json`, "{not json");
    assert.deepEqual(await readSessionNames(fs, `${dir}/p`), {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkSessionName: one line of 1 to 200 characters", () => {
  assert.equal(checkSessionName(" ok "), "ok");
  for (const bad of ["", "   ", "a\nb", "x".repeat(201), "\u001b[31m"]) {
    assert.throws(() => checkSessionName(bad), /Invalid session name/);
  }
});
