// End-to-end: a Worker child's process-group kills work (docs/reference/permissions.md). Deno refuses
// `kill(-pgid)` inside a Worker, so the child reports each group its Bash starts and the main thread
// kills it. Proven through the real CLI and the scripted provider with `ps` by process group: after a
// Bash timeout, TaskStop, `blade tasks cancel` of a detached run and Ctrl-C, nothing the child started
// is left running (and the detached process has exited). The commands run without the OS sandbox
// (BLADE_SANDBOX=0): this is the rule-only fallback's process-group kill; the sandbox's PID-namespace
// kill is tests/e2e_sandbox_kill_test.ts's and lib/tools/bash_test.ts's.

import assert from "node:assert/strict";
import { bladeSandbox, readSidecars, runScripted } from "./support/blade.ts";
import { assertGroupGone, groupMembers, SHELL_FLAGS } from "./support/groups.ts";

const FLAGS = SHELL_FLAGS;
/** The fallback (no OS sandbox): `$$` is then a real PID, the group leader's. */
const ENV = { BLADE_SANDBOX: "0" };
/** `$$` of `sh -c` is the group leader setsid made: its pid is the process group. */
const SLEEP = "echo $$ > pgid.txt; sleep 30; echo never";

Deno.test("child kills: a Worker child's Bash timeout kills its whole process group at once", async () => {
  await using sandbox = await bladeSandbox();
  const started = Date.now();
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [{
          tool_calls: [{
            name: "Task",
            input: { subagent_type: "shell", description: "Sleep", prompt: "Sleep 30 s with a 1 s timeout." },
          }],
        }, { text: "Child said: {{last_user}}" }],
      }],
      shell: [{
        turns: [{ tool_calls: [{ name: "Bash", input: { command: SLEEP, timeout: 1000 } }] }, {
          text: "Result: {{last_user}}",
        }],
      }],
    },
  }, { flags: FLAGS, env: ENV });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  const pgid = (await Deno.readTextFile(`${sandbox.workspace}/pgid.txt`)).trim();
  await assertGroupGone(pgid);
  const [record] = await readSidecars(sandbox.storage);
  const message = JSON.stringify(record?.result);
  assert.match(message, /timed out after 1000 ms; it and every process of its process group were killed/);
  assert.match(message, /this command ran without an OS sandbox: BLADE_SANDBOX=0 turned it off/);
});

Deno.test("child kills: TaskStop of a running Worker child leaves no process of it", async () => {
  await using sandbox = await bladeSandbox();
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [{
              name: "Task",
              input: {
                subagent_type: "shell",
                description: "Sleep",
                prompt: "Sleep 30 s.",
                run_in_background: true,
              },
            }],
          },
          // The parent's own shell waits until the child's command has started.
          {
            tool_calls: [{
              name: "Bash",
              input: {
                command: "for i in $(seq 200); do [ -s pgid.txt ] && break; sleep 0.05; done; cat pgid.txt",
              },
            }],
          },
          { tool_calls: [{ name: "TaskStop", input: { task_id: "{{match:(agent-[\\w-]{21})}}" } }] },
          { text: "Stopped: {{last_user}}" },
        ],
      }],
      shell: [{ turns: [{ tool_calls: [{ name: "Bash", input: { command: SLEEP } }] }, { text: "slept" }] }],
    },
  }, { flags: FLAGS, env: ENV });
  assert.equal(run.code, 0, run.stderr);
  const pgid = (await Deno.readTextFile(`${sandbox.workspace}/pgid.txt`)).trim();
  await assertGroupGone(pgid);
  const [record] = await readSidecars(sandbox.storage);
  assert.equal(record?.status, "cancelled");
});

/**
 * Whether the process still runs. A zombie has exited: the detached run's parent is gone, so init
 * reaps it, which can take a while here.
 */
async function running(pid: number): Promise<boolean> {
  // `ps`, not /proc: Deno reads /proc/<pid>/ only with --allow-all, which the test task does not grant.
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)], stdout: "piped" })
    .output();
  const state = new TextDecoder().decode(out.stdout).trim();
  return state !== "" && !state.startsWith("Z");
}

/** Waits (polling, no fixed sleep) until the child's command has written its process group. */
async function pgidOf(workspace: string, until: () => boolean | Promise<boolean>): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const text = await Deno.readTextFile(`${workspace}/pgid.txt`).catch(() => "");
    if (text.trim() !== "" && (await groupMembers(text.trim())) !== "") return text.trim();
    if (!(await until())) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the child's command never started");
}

const SHELL_SCRIPT = {
  agents: {
    "*": [{ turns: [{ tool_calls: [{ name: "Bash", input: { command: SLEEP } }] }, { text: "slept" }] }],
  },
};

Deno.test("child kills: blade tasks cancel of a detached run leaves no process of it, and its process exits", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.writeTextFile(`${sandbox.root}/script.json`, JSON.stringify(SHELL_SCRIPT));
  const started = await sandbox.run([
    "run",
    "shell",
    "Sleep 30 s.",
    "--provider",
    "scripted",
    "--script",
    `${sandbox.root}/script.json`,
    "--background",
    "--output-format",
    "json",
    ...FLAGS,
  ], { env: ENV });
  assert.equal(started.code, 0, started.stderr);
  const { agent_id: id, pid } = JSON.parse(started.stdout) as { agent_id: string; pid: number };
  const pgid = await pgidOf(sandbox.workspace, () => running(pid));
  const cancel = await sandbox.run(["tasks", "cancel", id], { env: ENV });
  assert.equal(cancel.code, 0, cancel.stderr);
  await assertGroupGone(pgid);
  for (let i = 0; i < 400 && await running(pid); i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(await running(pid), false, "the detached process is still running");
  // The figure (exit within 1 s of the cancel) is bounded by CANCEL_POLL_MS, proven with a fake
  // clock in lib/run/background_test.ts; a timed assertion here would fail on a loaded machine.
  const [record] = await readSidecars(sandbox.storage);
  assert.equal(record?.status, "cancelled");
});

Deno.test("child kills: Ctrl-C (SIGINT to blade) during a child's Bash leaves no process of it", async () => {
  await using sandbox = await bladeSandbox();
  const script = {
    agents: {
      main: [{
        turns: [{
          tool_calls: [{
            name: "Task",
            input: { subagent_type: "shell", description: "Sleep", prompt: "Sleep 30 s." },
          }],
        }, { text: "Child said: {{last_user}}" }],
      }],
      shell: SHELL_SCRIPT.agents["*"],
    },
  };
  await Deno.writeTextFile(`${sandbox.root}/script.json`, JSON.stringify(script));
  const blade = await sandbox.spawn([
    "-p",
    "Delegate the work",
    "--provider",
    "scripted",
    "--script",
    `${sandbox.root}/script.json`,
    "--output-format",
    "json",
    ...FLAGS,
  ], { env: ENV });
  let exited = false;
  const result = blade.result.finally(() => (exited = true));
  const pgid = await pgidOf(sandbox.workspace, () => !exited);
  blade.kill("SIGINT");
  const run = await result;
  assert.equal(run.code, 130, run.stderr);
  await assertGroupGone(pgid);
  const [record] = await readSidecars(sandbox.storage);
  assert.equal(record?.status, "cancelled");
});
