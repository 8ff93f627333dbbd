// Kill case (d), targeted: Blade is SIGKILLed in the middle of one chosen durable write (the kill
// points of tests/support/faulty_main.ts: BLADE_KILL_PATH picks the file, BLADE_KILL_AT_WRITE its n-th
// write, BLADE_KILL_TORN_BYTES how much of it got out) and continued with `--resume`: a sidecar killed
// mid-write is still its old whole version (the half-written temp file is ignored), a transcript killed
// mid-append keeps every committed line and its torn tail apart, and the restart finishes the run.
// tests/e2e_crash_test.ts kills at chosen and random moments; tests/faults/sigkill_test.ts at seeded
// write points.

import assert from "node:assert/strict";
import { bladeSandbox, SOURCES_ONLY } from "./support/blade.ts";
import {
  badTranscriptLines,
  killGroup,
  lostLines,
  mainSessionId,
  scriptedArgs,
  sidecarFiles,
  transcripts,
  writeScript,
} from "./support/crash.ts";

const SCRIPT = {
  agents: {
    main: [{
      turns: [{
        tool_calls: [{
          name: "Task",
          input: {
            subagent_type: "general-purpose",
            description: "a step",
            prompt: "Do this step of the work.",
          },
        }],
      }, { text: "parent done" }],
    }],
    "general-purpose": [{ repeat_last: true, turns: [{ text: "child answer" }] }],
  },
};

const FAULTY_MAIN = decodeURIComponent(new URL("./support/faulty_main.ts", import.meta.url).pathname);

async function killMidWrite(path: string, write: number) {
  const sandbox = await bladeSandbox();
  const script = await writeScript(sandbox, "d", SCRIPT);
  const blade = await sandbox.spawn(scriptedArgs(script, "Delegate it."), {
    entry: FAULTY_MAIN,
    processGroup: true,
    env: {
      BLADE_CHILD_SANDBOX: "none",
      BLADE_KILL_PATH: path,
      BLADE_KILL_AT_WRITE: String(write),
      BLADE_KILL_TORN_BYTES: "40",
    },
  });
  const killed = await blade.result;
  assert.equal(killed.code, 128 + 9, `killed at the chosen write, not ended by itself:\n${killed.stderr}`);
  await killGroup(blade); // anything of its group that outlived it
  const before = await transcripts(sandbox);
  const session = await mainSessionId(sandbox);
  assert.ok(session !== undefined);
  const restart = await sandbox.run(scriptedArgs(script, "Carry on.", ["--resume", session]));
  return { sandbox, before, session, restart };
}

Deno.test(
  "kill (d): SIGKILL in the middle of a sidecar write leaves the old record whole; the restart recovers it",
  SOURCES_ONLY,
  async () => {
    const { sandbox, before, restart } = await killMidWrite("/agents/sessions/agent-[\\w-]{21}\\.json$", 2);
    await using _ = sandbox;
    assert.equal(restart.code, 0, restart.stderr);
    const { records, torn } = await sidecarFiles(sandbox);
    assert.deepEqual(torn, [], "no torn sidecar");
    const child = records.find((r) => r.description === "a step");
    assert.notEqual(child?.status, "running", "the orphan was reconciled");
    // The write really was cut: its half-written temp file is there, and nothing reads it as a record.
    const leftovers = [...Deno.readDirSync(`${sandbox.storage}/agents/sessions`)].map((e) => e.name);
    assert.ok(
      leftovers.some((n) => /^\.agent-[\w-]{21}\.json\..*\.torn\.tmp$/.test(n)),
      leftovers.join(", "),
    );
    const after = await transcripts(sandbox);
    assert.deepEqual([lostLines(before, after), badTranscriptLines(before, after)], [0, 0]);
  },
);

Deno.test(
  "kill (d): SIGKILL in the middle of a transcript append keeps every committed line; the torn tail stays apart",
  SOURCES_ONLY,
  async () => {
    const { sandbox, before, session, restart } = await killMidWrite("/session-[^/]*\\.jsonl$", 3);
    await using _ = sandbox;
    const cut = before.get(`${session}.jsonl`) ?? "";
    assert.ok(cut !== "" && !cut.endsWith("\n"), "the kill left a torn last line");
    assert.equal(restart.code, 0, restart.stderr);
    const after = await transcripts(sandbox);
    assert.deepEqual([lostLines(before, after), badTranscriptLines(before, after)], [0, 0]);
    assert.deepEqual((await sidecarFiles(sandbox)).torn, []);
    // The continued session went on after the torn line: its last line is whole and later.
    const text = after.get(`${session}.jsonl`) ?? "";
    assert.ok(text.endsWith("\n") && text.length > cut.length);
  },
);
