// End-to-end: a closed terminal (SIGHUP) cleans up like SIGTERM. Two background children each run a
// Bash command in its own process group; the terminal is closed (tmux goes away with the pane, so the
// kernel sends SIGHUP to Blade), or print mode's process group gets a real `kill -HUP`. Afterwards no
// process of either command is left, Blade has exited, and neither child's record is left `running`.

import assert from "node:assert/strict";
import { bladeSandbox, readSidecars, spawnBlade } from "./support/blade.ts";
import { assertGroupGone, groupMembers, SHELL_FLAGS } from "./support/groups.ts";
import { BladeTerminal } from "./support/terminal.ts";

/** Two background `shell` children, each writing its process group to its own file, then sleeping. */
const SCRIPT = JSON.stringify({
  agents: {
    main: [{
      turns: [
        {
          tool_calls: ["a", "b"].map((n) => ({
            name: "Task",
            input: {
              subagent_type: "shell",
              description: `Sleep ${n}`,
              prompt: `Sleep in group file ${n}.`,
              run_in_background: true,
            },
          })),
        },
        { text: "Both started." },
      ],
    }],
    shell: [
      {
        match: "group file a",
        turns: [{ tool_calls: [{ name: "Bash", input: { command: "echo $$ > pgid-a.txt; sleep 300" } }] }, {
          text: "slept",
        }],
      },
      {
        match: "group file b",
        turns: [{ tool_calls: [{ name: "Bash", input: { command: "echo $$ > pgid-b.txt; sleep 300" } }] }, {
          text: "slept",
        }],
      },
    ],
  },
});

/** Waits (polling) until both commands have written their process group and the group is alive. */
async function bothGroups(workspace: string): Promise<string[]> {
  const groups: string[] = [];
  for (const n of ["a", "b"]) {
    for (let i = 0;; i++) {
      const text = (await Deno.readTextFile(`${workspace}/pgid-${n}.txt`).catch(() => "")).trim();
      if (text !== "" && (await groupMembers(text)) !== "") {
        groups.push(text);
        break;
      }
      assert.ok(i < 600, `child ${n}'s command never started`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return groups;
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
  const script = await sandbox.write("script.json", SCRIPT);
  await using term = await BladeTerminal.start(
    ["--provider", "scripted", "--script", script, ...SHELL_FLAGS],
    {
      cwd: sandbox.workspace,
      env: { ...sandbox.env, NO_COLOR: "1" },
    },
  );
  await term.waitFor("/help for commands");
  await term.type("start both");
  await term.press("Enter");
  await term.waitFor("Both started.");
  const groups = await bothGroups(sandbox.workspace);
  const running = (await readSidecars(sandbox.storage)).filter((r) => r.status === "running");
  assert.equal(running.length, 2, "both children run when the terminal closes");
  const pid = await term.pid();
  await term.hangUp();
  await exited(pid);
  for (const g of groups) await assertGroupGone(g);
  const records = await readSidecars(sandbox.storage);
  assert.deepEqual(records.map((r) => r.status).sort(), ["cancelled", "cancelled"]);
});

Deno.test("hangup: kill -HUP of print mode's process group ends the run like SIGTERM (no command left, records ended)", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("script.json", SCRIPT);
  const blade = await spawnBlade(
    ["-p", "start both", "--provider", "scripted", "--script", "script.json", ...SHELL_FLAGS],
    { cwd: sandbox.workspace, env: sandbox.env, processGroup: true },
  );
  const groups = await bothGroups(sandbox.workspace);
  const running = (await readSidecars(sandbox.storage)).filter((r) => r.status === "running");
  assert.equal(running.length, 2, "both children run when the signal comes");
  Deno.kill(-blade.pid, "SIGHUP");
  const result = await blade.result;
  assert.equal(result.code, 130, result.stderr);
  for (const g of groups) await assertGroupGone(g);
  const records = await readSidecars(sandbox.storage);
  assert.deepEqual(records.map((r) => r.status).sort(), ["cancelled", "cancelled"]);
});
