// Process adapter: who counts as a group leader this process may kill (docs/reference/permissions.md);
// with a GroupKiller, a command in its own process group does not run before its group is recorded
// (the gate) and a refused group never runs it; a group's leader identity is readable by anyone (what
// recovery checks before it kills a recorded group).

import assert from "node:assert/strict";
import {
  type GroupKiller,
  groupLeaderState,
  LAUNCHER_STAT_ENV,
  parseProcStatParent,
  realProcess,
} from "./process.ts";

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
      const leader = await realProcess().ownGroupLeader(child.pid);
      assert.notEqual(leader, null);
      assert.deepEqual(leader, await realProcess().identity(child.pid), "the identity read along with it");
      assert.equal(await realProcess().ownGroupLeader(Deno.pid), null, "this process is not its own child");
    } finally {
      child.kill("SIGKILL");
      await child.status;
    }
  },
});

const posix = Deno.build.os !== "windows";

function killer(started: (pgid: number) => Promise<void>): GroupKiller & { kills: number[] } {
  const kills: number[] = [];
  return {
    kills,
    started,
    kill: (pgid) => {
      kills.push(pgid);
      Deno.kill(-pgid, "SIGKILL");
      return Promise.resolve();
    },
  };
}

Deno.test({
  name: "run: a gated command starts only once its group is recorded, and still gets its stdin",
  ignore: !posix,
  async fn() {
    const dir = await Deno.makeTempDir();
    const release = Promise.withResolvers<void>();
    const seen = Promise.withResolvers<number>();
    const leads = Promise.withResolvers<boolean>();
    const process = realProcess(killer((pgid) => {
      seen.resolve(pgid);
      // Asked at once, as the main thread does: setsid may not have run yet, and must not lose.
      realProcess().ownGroupLeader(pgid).then((leader) => leads.resolve(leader !== null), leads.reject);
      return release.promise;
    }));
    const run = process.run("sh", ["-c", "echo $$ > ran; cat"], {
      cwd: dir,
      newProcessGroup: true,
      stdin: "payload",
    });
    const pgid = await seen.promise;
    if (Deno.build.os === "linux") assert.equal(await leads.promise, true, "our child leads its group");
    // Nothing of the command has run while the record is pending.
    await assert.rejects(Deno.stat(`${dir}/ran`), Deno.errors.NotFound);
    release.resolve();
    const result = await run;
    assert.deepEqual([result.code, result.stdout], [0, "payload"]);
    // Same PID after the gate: the recorded group is the command's group.
    assert.equal((await Deno.readTextFile(`${dir}/ran`)).trim(), String(pgid));
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "run: a group that cannot be recorded is never run, and says why",
  ignore: !posix,
  async fn() {
    const dir = await Deno.makeTempDir();
    const process = realProcess(killer(() => Promise.reject(new Error("disk full"))));
    await assert.rejects(
      process.run("sh", ["-c", "echo > ran"], { cwd: dir, newProcessGroup: true }),
      /sh was not started: its process group could not be recorded \(disk full\)/,
    );
    await assert.rejects(Deno.stat(`${dir}/ran`), Deno.errors.NotFound);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "groupLeaderIdentity: a group leader's identity; null for a process that leads no group",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const process = realProcess();
    const leader = Promise.withResolvers<number>();
    const release = Promise.withResolvers<void>();
    const gated = realProcess(killer((pgid) => {
      leader.resolve(pgid);
      return release.promise;
    }));
    // The gate holds the leader (setsid has run or will: poll for it, the gate keeps it there).
    const run = gated.run("true", [], { newProcessGroup: true });
    const pgid = await leader.promise;
    let got = await process.groupLeaderIdentity(pgid);
    for (let i = 0; i < 200 && got === null; i++) {
      await new Promise((r) => setTimeout(r, 10));
      got = await process.groupLeaderIdentity(pgid);
    }
    assert.deepEqual(got, await process.identity(pgid));
    release.resolve();
    await run;
    assert.equal(await process.groupLeaderIdentity(pgid), null, "gone after it exited");
    // A plain child shares our group: it leads none.
    const plain = new Deno.Command("sleep", { args: ["5"], stdout: "null", stderr: "null" }).spawn();
    try {
      assert.notEqual(await process.identity(plain.pid), null);
      assert.equal(await process.groupLeaderIdentity(plain.pid), null);
    } finally {
      plain.kill("SIGKILL");
      await plain.status;
    }
  },
});

Deno.test({
  name:
    "identity of this process: the launcher's stat line when it names this PID (no process started), else cat's",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // Started as the release launcher starts Deno: the shell reads its own line, then execs (the same
    // PID), here with no PATH, so that no `cat` can start in it: an identity it reports is the line's.
    const dir = await Deno.makeTempDir({ prefix: "blade-identity-" });
    try {
      const script = `${dir}/own_identity.ts`;
      const module = JSON.stringify(new URL("./process.ts", import.meta.url).href);
      await Deno.writeTextFile(
        script,
        [
          `import { LAUNCHER_STAT_ENV, realProcess } from ${module};`,
          "const process = realProcess();",
          "const own = await process.identity(Deno.pid);",
          'const line = Deno.env.get(LAUNCHER_STAT_ENV) ?? "";',
          "Deno.env.set(LAUNCHER_STAT_ENV, line.replace(/^[0-9]+/, String(Deno.pid + 1)));",
          "const inherited = await process.identity(Deno.pid);",
          "Deno.env.set(LAUNCHER_STAT_ENV, `${Deno.pid} (deno) R`);",
          "const cut = await process.identity(Deno.pid);",
          "console.log(JSON.stringify({ own, inherited, cut }));",
          "for await (const _ of Deno.stdin.readable) { /* until the test has read its identity */ }",
        ].join("\n"),
      );
      const child = new Deno.Command("/bin/sh", {
        args: [
          "-c",
          `read -r ${LAUNCHER_STAT_ENV} < /proc/$$/stat && export ${LAUNCHER_STAT_ENV} && ` +
          'exec env PATH= "$0" run --no-prompt --allow-env --allow-read "$1"',
          Deno.execPath(),
          script,
        ],
        stdin: "piped",
        stdout: "piped",
      }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      // Still alive: its identity read through cat from here, as any other process reads it.
      const expected = await realProcess().identity(child.pid);
      await child.stdin.close();
      await reader.cancel();
      await child.status;
      assert.notEqual(expected, null);
      const got = JSON.parse(text);
      assert.deepEqual(got.own, expected);
      assert.equal(got.inherited, null, "another process's line (a Blade started without the launcher)");
      assert.equal(got.cut, null, "a line without a start time");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
