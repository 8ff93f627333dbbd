// Fault suite, read-only storage root: the root turns read-only in the middle of a delegation run (a
// bind mount remounted `ro` while a background child works) — the run ends with one clear line naming a
// file on the read-only file system (exit 1, is_error, no stack), leaves no torn file, `blade tasks
// list` still works on the read-only root, and once it is writable again the next run (--resume) works
// and recovers the child. (A root read-only from the start: tests/e2e_storage_root_test.ts.) Needs root
// to mount; ignored, and says so, where the machine does not allow it.

import assert from "node:assert/strict";
import { bladeSandbox, parseJsonResult } from "../support/blade.ts";
import {
  mainSessionId,
  scriptedArgs,
  sidecarFiles,
  transcripts,
  until,
  writeScript,
} from "../support/crash.ts";
import { bindMount, canMount, remount, unmount } from "../support/mounts.ts";
import { parseTranscript } from "../../lib/session/transcript.ts";
import { printSummary } from "./summary.ts";

const MOUNTABLE = await canMount();
if (!MOUNTABLE) {
  // deno-lint-ignore no-console
  console.log("faults: read_only_test.ts ignored: this machine does not allow mounting");
}

const SCRIPT = {
  agents: {
    main: [{
      repeat_last: true,
      turns: [
        {
          tool_calls: [{
            name: "Task",
            input: {
              subagent_type: "general-purpose",
              description: "slow bg",
              prompt: "Slow: work in the background.",
              run_in_background: true,
            },
          }],
        },
        { text: "waiting" },
        { text: "parent done" },
      ],
    }],
    // Long enough for the test to remount the root read-only while the child's answer is pending.
    "general-purpose": [{ turns: [{ text: "child answer", delay_ms: 1500 }] }],
  },
};

const CALM = {
  agents: {
    main: [{ repeat_last: true, turns: [{ text: "parent done" }] }],
    "general-purpose": [{ repeat_last: true, turns: [{ text: "child answer" }] }],
  },
};

Deno.test({
  name:
    "the storage root turns read-only mid-run: one clear line, no torn file, readers work, the next run works",
  ignore: !MOUNTABLE,
  async fn() {
    await using sandbox = await bladeSandbox();
    await Deno.mkdir(sandbox.storage, { recursive: true, mode: 0o700 });
    assert.ok(await bindMount(sandbox.storage));
    try {
      const script = await writeScript(sandbox, "slow", SCRIPT);
      const blade = await sandbox.spawn(scriptedArgs(script, "Start it."));
      await until(
        "the background child mid-turn",
        async () =>
          [...(await transcripts(sandbox))].some(([name, text]) =>
            name.startsWith("agent-") && /"turn_started"/.test(text)
          ),
      );
      // The child's id is Blade's (assigned when the call was made): its sidecar says it.
      const child = (await sidecarFiles(sandbox)).records.find((r) => r.description === "slow bg")!.id;
      assert.ok(await remount(sandbox.storage, "ro"));
      const run = await blade.result;
      assert.doesNotMatch(run.stderr, /internal error|\n\s+at /, run.stderr);
      assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
      const out = parseJsonResult(run);
      assert.equal(out.is_error, true);
      const error = out.error as { code: string; message: string; hint?: string };
      assert.match(error.message, /Could not write \S+: it is on a read-only file system \(EROFS\)/);
      let torn = 0;
      for (const text of (await transcripts(sandbox)).values()) {
        torn += parseTranscript(text).diagnostics.length;
      }
      torn += (await sidecarFiles(sandbox)).torn.length;
      assert.equal(torn, 0, "no torn transcript line or sidecar");
      // Readers work on the read-only root.
      const list = await sandbox.run(["tasks", "list", "--json"]);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, new RegExp(child));
      // Writable again: the next run continues the session and recovers the child.
      assert.ok(await remount(sandbox.storage, "rw"));
      const session = await mainSessionId(sandbox);
      assert.ok(session !== undefined);
      const calm = await writeScript(sandbox, "calm", CALM);
      const next = await sandbox.run(scriptedArgs(calm, "Carry on.", ["--resume", session]));
      assert.equal(next.code, 0, `${next.stdout}\n${next.stderr}`);
      const after = (await sidecarFiles(sandbox)).records.find((r) => r.id === child);
      assert.notEqual(after?.status, "running", "the child is recovered, not left running");
      printSummary("read-only storage root", [
        "turned read-only mid-run 1 (clear error 1, torn files 0, tasks list ok, next run ok 1)",
        "read-only from the start: tests/e2e_storage_root_test.ts",
      ]);
    } finally {
      await unmount(sandbox.storage);
    }
  },
});
