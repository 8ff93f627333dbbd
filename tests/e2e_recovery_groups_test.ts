// End-to-end: an orphaned child's leftover Bash process group is killed on recovery
// (docs/reference/recovery.md). `blade -p` runs a child whose Bash sleeps in its own process group
// (setsid); Blade's own process group is SIGKILLed, which leaves that group running; the restart
// (`--resume`) reconciles the orphan and kills the group — checked with `ps`, by process group. The
// command runs without the OS sandbox (BLADE_SANDBOX=0): inside it, bwrap's --die-with-parent ends the
// command with Blade, so the leftover this recovers is the rule-only fallback's.

import assert from "node:assert/strict";
import { bladeSandbox } from "./support/blade.ts";
import { groupMembers, SHELL_FLAGS } from "./support/groups.ts";
import { killGroup, mainSessionId, scriptedArgs, sidecarFiles, until, writeScript } from "./support/crash.ts";

const FLAGS = SHELL_FLAGS;
/** `$$` of the shell is the group leader setsid made: its pid is the process group. */
const SLEEP = "echo $$ > pgid.txt; sleep 300; echo never";
const ENV = { BLADE_SANDBOX: "0" };

Deno.test("recovery kills the Bash process group an orphaned child left running", async () => {
  await using sandbox = await bladeSandbox();
  const script = await writeScript(sandbox, "sleeper", {
    agents: {
      main: [{
        turns: [{
          tool_calls: [{
            name: "Task",
            input: {
              subagent_type: "shell",
              description: "Sleep",
              prompt: "Sleep for a while.",
            },
          }],
        }, { text: "x" }],
      }],
      shell: [{ turns: [{ tool_calls: [{ name: "Bash", input: { command: SLEEP } }] }, { text: "slept" }] }],
    },
  });
  const blade = await sandbox.spawn(scriptedArgs(script, "Delegate it.", FLAGS), {
    processGroup: true,
    env: ENV,
  });
  let pgid = "";
  try {
    await until("the child's sleep", async () => {
      pgid = (await Deno.readTextFile(`${sandbox.workspace}/pgid.txt`).catch(() => "")).trim();
      return pgid !== "" && (await groupMembers(pgid)) !== "";
    });
    await killGroup(blade);
    // Blade is gone; the command's own group is not (that is the leftover recovery must kill).
    assert.notEqual(await groupMembers(pgid), "", "the sleep outlived Blade");
    const session = await mainSessionId(sandbox);
    const calm = await writeScript(sandbox, "calm", {
      agents: { main: [{ repeat_last: true, turns: [{ text: "parent done" }] }] },
    });
    const run = await sandbox.run(scriptedArgs(calm, "Carry on.", ["--resume", session!, ...FLAGS]), {
      env: ENV,
    });
    assert.equal(run.code, 0, run.stderr);
    // SIGKILL is delivered asynchronously: the group may take a moment to empty.
    await until("the group to empty", async () => (await groupMembers(pgid)) === "", 5_000);
    const child = (await sidecarFiles(sandbox)).records.find((r) => r.description === "Sleep");
    assert.deepEqual([child?.status, child?.restartRecovery?.outcome], ["failed", "interrupted"]);
    assert.equal((child as { processGroups?: unknown } | undefined)?.processGroups, undefined);
  } finally {
    if (pgid !== "" && (await groupMembers(pgid)) !== "") {
      try {
        Deno.kill(-Number(pgid), "SIGKILL"); // never leave the sleep behind when the test fails
      } catch { /* gone meanwhile */ }
    }
  }
});
