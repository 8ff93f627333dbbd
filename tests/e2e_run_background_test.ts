// `blade run --background`: a detached copy runs the agent and outlives the command; the run is
// followed with `blade tasks output --wait` and stopped with `blade tasks cancel` from other processes.

import { assertNoProcessWith, sleepMarker, waitForProcessWith } from "../lib/testing/marked_processes.ts";
import assert from "node:assert/strict";
import { type BladeSandbox, bladeSandbox, parseJsonResult, sidecarPath, waitFor } from "./support/blade.ts";
import { osSandbox } from "../lib/sys/os_sandbox.ts";

/** The kill tests need the OS sandbox (its PID namespace); without bubblewrap they are skipped. */
const SANDBOXED = (await osSandbox()) !== undefined;

function script(delayMs: number): string {
  return `agents:
  "*":
    - turns:
        - tool_calls: [{ name: Glob, input: { pattern: "*" } }]
          delay_ms: ${delayMs}
        - text: "Finished the slow job."
`;
}

/** `blade run Explore … --background --output-format json` with a script file of the workspace. */
async function startInBackground(
  sandbox: BladeSandbox,
  scriptFile: string,
): Promise<{ agent_id: string; pid: number }> {
  const started = await sandbox.run([
    "run",
    "Explore",
    "do the slow job please",
    "--provider",
    "scripted",
    "--script",
    scriptFile,
    "--background",
    "--output-format",
    "json",
  ]);
  assert.equal(started.code, 0, started.stderr);
  const json = parseJsonResult(started) as { agent_id: string; pid: number; status: string };
  assert.equal(json.status, "running");
  assert.match(json.agent_id, /^agent-[A-Za-z0-9_-]{21}$/);
  return json;
}

async function sidecar(storage: string, id: string): Promise<{ status: string; background: boolean }> {
  return JSON.parse(await Deno.readTextFile(sidecarPath(storage, id)));
}

Deno.test("run --background returns at once; tasks output --wait gets the result", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("slow.yaml", script(800));
  const { agent_id: id } = await startInBackground(sandbox, "slow.yaml");
  const output = await sandbox.run(["tasks", "output", id, "--wait", "--timeout", "20"]);
  assert.equal(output.code, 0, output.stderr);
  assert.match(output.stdout, /^OK agent-/);
  assert.match(output.stdout, /Finished the slow job\./);
  const record = await sidecar(sandbox.storage, id);
  assert.equal(record.status, "completed");
  assert.equal(record.background, true);
});

Deno.test("run --background can be cancelled from another process: STOPPED, and the process ends", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("slower.yaml", script(30_000));
  const { agent_id: id, pid } = await startInBackground(sandbox, "slower.yaml");
  await waitFor("the sidecar exists", () => {
    try {
      Deno.statSync(sidecarPath(sandbox.storage, id));
      return true;
    } catch {
      return false;
    }
  });
  const cancel = await sandbox.run(["tasks", "cancel", id]);
  assert.equal(cancel.code, 0, cancel.stderr);
  const waited = await sandbox.run(["tasks", "wait", id, "--timeout", "20"]);
  assert.equal(waited.code, 1, "a cancelled run is not a success");
  assert.match(waited.stdout, /^STOPPED /);
  assert.equal((await sidecar(sandbox.storage, id)).status, "cancelled");
  await waitFor("the detached process exits", () => {
    try {
      Deno.kill(pid, "SIGCONT");
      return false;
    } catch {
      return true;
    }
  });
});

Deno.test({
  name: "a background Bash command the model started (setsid included) does not outlive the print-mode run",
  ignore: !SANDBOXED,
  async fn() {
    await using sandbox = await bladeSandbox();
    // A `sleep` with a unique argument: found with `ps` from outside the sandbox's PID namespace.
    const marker = sleepMarker();
    await sandbox.write(
      "shell.yaml",
      `agents:
    main:
      - turns:
          - tool_calls:
              - name: Bash
                input: { command: "setsid sleep ${marker} & exec sleep ${marker}", run_in_background: true }
          - text: "Started the server."
            delay_ms: 500
  `,
    );
    const run = await sandbox.run([
      "-p",
      "start the long command",
      "--provider",
      "scripted",
      "--script",
      "shell.yaml",
      "--trust-workspace",
      "--permission-mode",
      "yolo",
      // Print mode waits for background commands as for background children: this ends the wait.
      "--background-wait",
      "1",
    ]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /Started the server\./);
    await assertNoProcessWith(marker);
  },
});

Deno.test({
  name:
    "a background Bash command dies with a Blade process that is SIGKILLed (the sandbox dies with its parent)",
  ignore: !SANDBOXED,
  async fn() {
    await using sandbox = await bladeSandbox();
    const marker = sleepMarker();
    await sandbox.write(
      "shell.yaml",
      `agents:
  main:
    - turns:
        - tool_calls:
            - name: Bash
              input: { command: "setsid sleep ${marker} & exec sleep ${marker}", run_in_background: true }
        - text: "Started."
`,
    );
    const blade = await sandbox.spawn([
      "-p",
      "start it",
      "--provider",
      "scripted",
      "--script",
      "shell.yaml",
      "--trust-workspace",
      "--permission-mode",
      "yolo",
    ]);
    // The run waits for its background command: the kill lands on a live run with the command running.
    await waitForProcessWith(marker);
    blade.kill("SIGKILL");
    const result = await blade.result;
    assert.equal(result.code, 137, result.stderr);
    await assertNoProcessWith(marker);
  },
});
