// Fault suite, a real full disk: the storage root on a 2 MiB tmpfs filled up to a few KiB, for a
// delegation run with two background children (the examples: ~60, ~25, ≤6 KiB free). Which
// write meets the full disk depends on the amount left, so each level is run: whatever fails, the run
// says so in one line (no stack, no "internal error"), succeeds only if every child's end was saved,
// leaves no torn transcript line or sidecar, and once space is freed the next run (--resume) works
// and leaves nothing running. Needs root to mount the tmpfs; ignored (and says so) where it cannot.

import assert from "node:assert/strict";
import { bladeSandbox, parseJsonResult } from "../support/blade.ts";
import { mainSessionId, scriptedArgs, sidecarFiles, transcripts, writeScript } from "../support/crash.ts";
import { parseTranscript } from "../../lib/session/transcript.ts";
import { printSummary } from "./summary.ts";
import { canMount, freeKiB, mountTmpfs, unmount } from "../support/mounts.ts";

const MOUNTABLE = await canMount();
if (!MOUNTABLE) {
  // deno-lint-ignore no-console
  console.log("faults: disk_tmpfs_test.ts ignored: this machine does not allow mounting a tmpfs");
}

const SCRIPT = {
  agents: {
    main: [{
      repeat_last: true,
      turns: [
        {
          tool_calls: ["First", "Second"].map((n) => ({
            name: "Task",
            input: {
              subagent_type: "general-purpose",
              description: `${n} bg`,
              prompt: `${n}: work in the background.`,
              run_in_background: true,
            },
          })),
        },
        { text: "waiting" },
        { text: "parent done" },
      ],
    }],
    "general-purpose": [{ repeat_last: true, turns: [{ text: "child answer", delay_ms: 100 }] }],
  },
};

/** KiB left free on the 2 MiB disk before the run. */
const LEVELS = [64, 36, 25, 12, 5, 0];

Deno.test({
  name: `a real full tmpfs at ${LEVELS.join("/")} KiB free: one clear line, no torn file, the next run works`,
  ignore: !MOUNTABLE,
  async fn() {
    const counts = { runs: 0, succeeded: 0, failedClearly: 0, torn: 0, nextRunOk: 0, leftRunning: 0 };
    for (const free of LEVELS) {
      await using sandbox = await bladeSandbox();
      await Deno.mkdir(sandbox.storage);
      assert.ok(await mountTmpfs(sandbox.storage, "2m"));
      try {
        const script = await writeScript(sandbox, "script", SCRIPT);
        const filler = `${sandbox.storage}/filler`;
        const availKiB = await freeKiB(sandbox.storage);
        const fill = Math.max(0, availKiB - free);
        if (fill > 0) {
          await Deno.writeFile(filler, new Uint8Array(fill * 1024));
        }
        const run = await sandbox.run(scriptedArgs(script, "Start both."));
        counts.runs++;
        const what = `${free} KiB free`;
        assert.doesNotMatch(run.stderr, /internal error|\n\s+at /, `${what}: ${run.stderr}`);
        const out = parseJsonResult(run);
        const { records, torn } = await sidecarFiles(sandbox);
        const unsaved = records.filter((r) => r.status === "running").length;
        if (run.code === 0) {
          counts.succeeded++;
          assert.equal(out.is_error, false);
          assert.equal(unsaved, 0, `${what}: a run that succeeds saved every child's end`);
          assert.equal(records.length, 2, `${what}: a run that succeeds ran both children`);
        } else {
          counts.failedClearly++;
          assert.equal(run.code, 1, `${what}: ${run.stderr}`);
          assert.equal(out.is_error, true);
          const error = out.error as { code: string; message: string };
          assert.match(error.message, /disk is full/, `${what}: ${error.message}`);
        }
        let tornLines = 0;
        for (const text of (await transcripts(sandbox)).values()) {
          tornLines += parseTranscript(text).diagnostics.length;
        }
        counts.torn += tornLines + torn.length;
        assert.deepEqual([tornLines, torn], [0, []], `${what}: no torn transcript line or sidecar`);
        // Free the space; the next run continues the session and recovers what was left running.
        await Deno.remove(filler).catch(() => {});
        const session = await mainSessionId(sandbox);
        const next = await sandbox.run(
          scriptedArgs(script, "Carry on.", session === undefined ? [] : ["--resume", session]),
        );
        assert.equal(next.code, 0, `${what}, next run: ${next.stdout}\n${next.stderr}`);
        counts.nextRunOk++;
        const running = (await sidecarFiles(sandbox)).records.filter((r) => r.status === "running");
        counts.leftRunning += running.length;
        assert.deepEqual(running.map((r) => r.id), [], `${what}: nothing left running after the next run`);
      } finally {
        await unmount(sandbox.storage);
      }
    }
    printSummary("real full tmpfs", [
      `${counts.runs} runs at ${LEVELS.join("/")} KiB free`,
      `succeeded ${counts.succeeded}, failed with a clear error ${counts.failedClearly}`,
      `torn files ${counts.torn}, next run ok ${counts.nextRunOk}, left running ${counts.leftRunning}`,
    ]);
  },
});
