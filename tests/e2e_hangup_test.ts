// End-to-end: a closed terminal (SIGHUP) cleans up like SIGTERM. Two background children each run a
// Bash command; the terminal is closed (tmux goes away with the pane, so the kernel sends SIGHUP to
// Blade), or print mode's process group gets a real `kill -HUP`. Afterwards no process of either
// command is left, Blade has exited, and neither child's record is left `running`. Commands are found
// by a unique `sleep` argument (a PID recorded inside the OS sandbox names nothing outside it); the
// print-mode case runs without the sandbox (BLADE_SANDBOX=0), where killing the commands' process
// groups is Blade's own job, not the sandbox's.

import assert from "node:assert/strict";
import { bladeSandbox, readSidecars, spawnBlade } from "./support/blade.ts";
import { SHELL_FLAGS } from "./support/groups.ts";
import { BladeTerminal } from "./support/terminal.ts";
import { assertNoProcessWith, sleepMarker, waitForProcessWith } from "../lib/testing/marked_processes.ts";

/** Two background `shell` children, each sleeping on its own marker. */
function script(markers: readonly [string, string]): string {
  return JSON.stringify({
    agents: {
      main: [{
        turns: [
          {
            tool_calls: ["a", "b"].map((n) => ({
              name: "Task",
              input: {
                subagent_type: "shell",
                description: `Sleep ${n}`,
                prompt: `Sleep as child ${n}.`,
                run_in_background: true,
              },
            })),
          },
          { text: "Both started." },
        ],
      }],
      shell: ["a", "b"].map((n, i) => ({
        match: `child ${n}`,
        turns: [{ tool_calls: [{ name: "Bash", input: { command: `sleep ${markers[i]}` } }] }, {
          text: "slept",
        }],
      })),
    },
  });
}

async function exited(pid: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)], stdout: "piped" })
      .output();
    const state = new TextDecoder().decode(out.stdout).trim();
    if (state === "" || state.startsWith("Z")) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Blade (pid ${pid}) did not exit after SIGHUP`);
}

Deno.test("hangup: closing the interactive session's terminal kills both children's commands and ends their records", async () => {
  await using sandbox = await bladeSandbox();
  const markers = [sleepMarker(), sleepMarker()] as const;
  const file = await sandbox.write("script.json", script(markers));
  await using term = await BladeTerminal.start(
    ["--provider", "scripted", "--script", file, ...SHELL_FLAGS],
    {
      cwd: sandbox.workspace,
      env: { ...sandbox.env, NO_COLOR: "1" },
    },
  );
  await term.waitFor("/help for commands");
  await term.type("start both");
  await term.press("Enter");
  await term.waitFor("Both started.");
  for (const m of markers) await waitForProcessWith(m);
  const running = (await readSidecars(sandbox.storage)).filter((r) => r.status === "running");
  assert.equal(running.length, 2, "both children run when the terminal closes");
  const pid = await term.pid();
  await term.hangUp();
  await exited(pid);
  for (const m of markers) await assertNoProcessWith(m);
  const records = await readSidecars(sandbox.storage);
  assert.deepEqual(records.map((r) => r.status).sort(), ["cancelled", "cancelled"]);
});

Deno.test("hangup: kill -HUP of print mode's process group ends the run like SIGTERM (no command left, records ended)", async () => {
  await using sandbox = await bladeSandbox();
  const markers = [sleepMarker(), sleepMarker()] as const;
  await sandbox.write("script.json", script(markers));
  const blade = await spawnBlade(
    ["-p", "start both", "--provider", "scripted", "--script", "script.json", ...SHELL_FLAGS],
    { cwd: sandbox.workspace, env: { ...sandbox.env, BLADE_SANDBOX: "0" }, processGroup: true },
  );
  for (const m of markers) await waitForProcessWith(m);
  const running = (await readSidecars(sandbox.storage)).filter((r) => r.status === "running");
  assert.equal(running.length, 2, "both children run when the signal comes");
  Deno.kill(-blade.pid, "SIGHUP");
  const result = await blade.result;
  assert.equal(result.code, 130, result.stderr);
  for (const m of markers) await assertNoProcessWith(m);
  const records = await readSidecars(sandbox.storage);
  assert.deepEqual(records.map((r) => r.status).sort(), ["cancelled", "cancelled"]);
});
