// Process adapter: who counts as a group leader this process may kill (docs/reference/permissions.md).

import assert from "node:assert/strict";
import { groupLeaderState, parseProcStatParent, realProcess } from "./process.ts";

/** /proc/<pid>/stat text with the given ppid and pgrp (field 3 state, 4 ppid, 5 pgrp). */
const stat = (pid: number, ppid: number, pgrp: number) =>
  `${pid} (sh) S ${ppid} ${pgrp} ${pgrp} 0 -1 4194304`;

Deno.test("parseProcStatParent reads ppid and pgrp after the last ')' even when the name has one", () => {
  assert.deepEqual(parseProcStatParent("42 (a) b)) S 7 42 42 0"), { ppid: 7, pgrp: 42 });
  assert.equal(parseProcStatParent("garbage"), null);
});

Deno.test("groupLeaderState: leader, not yet (setsid has not run), or someone else's", () => {
  const cases: [string | null, "leader" | "not-yet" | "other"][] = [
    [stat(50, 10, 50), "leader"],
    [stat(50, 10, 10), "not-yet"],
    [stat(50, 11, 50), "other"],
    [stat(50, 1, 50), "other"],
    [null, "other"],
    ["(", "other"],
  ];
  for (const [text, want] of cases) assert.equal(groupLeaderState(text, 10, 50), want, String(text));
});

Deno.test({
  name: "ownGroupLeader waits for a just-spawned child's setsid instead of refusing it",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // The child leads its own group only 300 ms after it started, as a slow `setsid` would.
    const child = new Deno.Command("sh", { args: ["-c", "sleep 0.3; exec setsid sleep 5"], stdout: "null" })
      .spawn();
    try {
      assert.equal(await realProcess().ownGroupLeader(child.pid), true);
      assert.equal(await realProcess().ownGroupLeader(Deno.pid), false, "this process is not its own child");
    } finally {
      child.kill("SIGKILL");
      await child.status;
    }
  },
});
