// End-to-end: a Worker child's process-group kills work (docs/reference/permissions.md). Deno refuses
// `kill(-pgid)` inside a Worker, so the child reports each group its Bash starts and the main thread
// kills it. Proven through the real `blade -p` CLI and the scripted provider with `ps` by process
// group: after a Bash timeout and after TaskStop, nothing the child started is left running.

import assert from "node:assert/strict";
import { bladeSandbox, readSidecars, runScripted } from "./support/blade.ts";
import { assertGroupGone, SHELL_FLAGS } from "./support/groups.ts";

const FLAGS = SHELL_FLAGS;
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
  }, { flags: FLAGS });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  const pgid = (await Deno.readTextFile(`${sandbox.workspace}/pgid.txt`)).trim();
  await assertGroupGone(pgid);
  const [record] = await readSidecars(sandbox.storage);
  const message = JSON.stringify(record?.result);
  assert.match(message, /timed out after 1000 ms; it and every process it started were killed/);
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
                subagent_session_id: "agent-sleeper",
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
          { tool_calls: [{ name: "TaskStop", input: { task_id: "agent-sleeper" } }] },
          { text: "Stopped: {{last_user}}" },
        ],
      }],
      shell: [{ turns: [{ tool_calls: [{ name: "Bash", input: { command: SLEEP } }] }, { text: "slept" }] }],
    },
  }, { flags: FLAGS });
  assert.equal(run.code, 0, run.stderr);
  const pgid = (await Deno.readTextFile(`${sandbox.workspace}/pgid.txt`)).trim();
  await assertGroupGone(pgid);
  const [record] = await readSidecars(sandbox.storage);
  assert.equal(record?.status, "cancelled");
});
