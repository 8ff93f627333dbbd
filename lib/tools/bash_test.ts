import assert from "node:assert/strict";
import { assertNoProcessWith, processesWith, sleepMarker } from "../testing/marked_processes.ts";
import { join } from "node:path";
import { bashTool, findShell } from "./bash.ts";
import { realFs } from "../sys/fs.ts";
import { fakeEnv } from "../testing/fakes.ts";
import { BASH_MAX_OUTPUT_CHARS, bashLimits } from "../config/bash_limits.ts";
import { runTool, sandbox } from "../testing/tool_harness.ts";
import { osSandbox } from "../sys/os_sandbox.ts";

/** The kill tests need the OS sandbox (its PID namespace); without bubblewrap they are skipped. */
const SANDBOXED = (await osSandbox()) !== undefined;

/**
 * A command that starts long-sleeping grandchildren detached from the output pipes (so the tool
 * returns as soon as the shell dies) — one plain, one in its own session (setsid), one nohup'd and
 * one double-forked — and waits. They carry `marker` so the test finds them from outside the
 * sandbox's PID namespace.
 */
function sleepingGrandchild(marker: string): string {
  return `sleep ${marker} >/dev/null 2>&1 & setsid sleep ${marker} >/dev/null 2>&1 & ` +
    `nohup sleep ${marker} >/dev/null 2>&1 & (sleep ${marker} >/dev/null 2>&1 &); echo started; wait`;
}

Deno.test("Bash runs in the workspace root and returns stdout then stderr", async () => {
  await using box = await sandbox();
  const result = await runTool(
    bashTool,
    { command: "pwd; echo oops >&2", description: "Show folder" },
    box.ctx(),
  );
  assert.deepEqual(result, {
    content: `${box.workspace}\noops`,
    isError: false,
    metadata: {
      exitCode: 0,
      signal: null,
      timedOut: false,
      interrupted: false,
      truncated: false,
      description: "Show folder",
    },
    // Past this the session saves the output to a file (executor/result_persistence.ts).
    maxChars: 30_000,
    // What PostToolUse hooks read: Claude Code's object (tests/fixtures/claude/hooks_tool_response).
    response: {
      stdout: `${box.workspace}\noops`,
      stderr: "",
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
    },
  });
  const quiet = await runTool(bashTool, { command: "true" }, box.ctx());
  // Claude Code 2.1.332's words for a command that printed nothing (hooks_tool_response's requests).
  assert.equal(quiet.content, "(Bash completed with no output)");
  assert.equal(quiet.response?.stdout, "");
});

Deno.test("Bash reports a non-zero exit as an error with the output", async () => {
  await using box = await sandbox();
  const result = await runTool(bashTool, { command: "echo out; echo err >&2; exit 3" }, box.ctx());
  assert.equal(result.isError, true);
  assert.equal(result.content, "Exit code 3\nout\nerr");
  assert.equal(result.metadata?.["exitCode"], 3);
});

Deno.test({
  name:
    "Bash timeout kills everything the command started (sandbox PID namespace: setsid, nohup, double fork)",
  ignore: !SANDBOXED,
  async fn() {
    await using box = await sandbox();
    const marker = sleepMarker();
    const result = await runTool(bashTool, { command: sleepingGrandchild(marker), timeout: 1000 }, box.ctx());
    assert.equal(result.isError, true);
    assert.equal(
      result.content,
      "Command timed out after 1000 ms; it and every process it started were killed.\nstarted",
    );
    assert.equal(result.metadata?.["timedOut"], true);
    await assertNoProcessWith(marker);
  },
});

Deno.test({
  name: "Bash abort via ctx.signal kills everything the command started (setsid, nohup, double fork too)",
  ignore: !SANDBOXED,
  async fn() {
    await using box = await sandbox();
    const marker = sleepMarker();
    const controller = new AbortController();
    const started = (async () => {
      // Abort once the grandchildren are known to be running.
      while ((await processesWith(marker)).length < 4) await new Promise((r) => setTimeout(r, 20));
      controller.abort();
    })();
    const result = await runTool(
      bashTool,
      { command: sleepingGrandchild(marker) },
      box.ctx({ signal: controller.signal }),
    );
    await started;
    assert.equal(result.isError, true);
    assert.match(result.content, /^Command was interrupted; it and every process it started were killed\./);
    assert.equal(result.metadata?.["interrupted"], true);
    await assertNoProcessWith(marker);

    const before = await runTool(
      bashTool,
      { command: `touch '${join(box.dir, "ran")}'` },
      box.ctx({ signal: AbortSignal.abort() }),
    );
    assert.deepEqual([before.isError, before.content], [true, "Command was interrupted before it started."]);
    assert.equal(await Deno.stat(join(box.dir, "ran")).catch(() => null), null);
  },
});

Deno.test("Bash hands back its whole output with its limit: BASH_MAX_OUTPUT_LENGTH (30,000), at most 150,000", async () => {
  await using box = await sandbox();
  const command = "echo BEGIN; head -c 100000 /dev/zero | tr '\\0' a; echo; echo END";
  const result = await runTool(bashTool, { command }, box.ctx());
  assert.equal(result.isError, false);
  // The session, not the tool, keeps it out of the conversation (saved to a file past maxChars).
  assert.equal(result.content, `BEGIN\n${"a".repeat(100_000)}\nEND`);
  assert.equal(result.maxChars, BASH_MAX_OUTPUT_CHARS);
  assert.equal(BASH_MAX_OUTPUT_CHARS, 30_000);
  assert.equal(result.metadata?.["truncated"], false);
  const base = box.ctx();
  const set = (n: string) =>
    box.ctx({
      ports: {
        ...base.ports,
        env: fakeEnv({ PATH: Deno.env.get("PATH") ?? "", BASH_MAX_OUTPUT_LENGTH: n }, { cwd: box.workspace }),
      },
    });
  assert.equal((await runTool(bashTool, { command: "echo" }, set("5000"))).maxChars, 5_000);
  assert.equal((await runTool(bashTool, { command: "echo" }, set("900000"))).maxChars, 150_000);
});

Deno.test("Bash refuses untrusted workspaces and run_in_background", async () => {
  await using box = await sandbox();
  const marker = join(box.dir, "ran");
  const untrusted = await runTool(bashTool, { command: `touch '${marker}'` }, box.ctx({ trusted: false }));
  assert.equal(untrusted.isError, true);
  assert.equal(
    untrusted.content,
    `Bash is disabled because the workspace ${box.workspace} is not trusted. Run \`blade trust\` in the workspace (or pass --trust-workspace) to allow it.`,
  );
  const background = await runTool(
    bashTool,
    { command: `touch '${marker}'`, run_in_background: true },
    box.ctx(),
  );
  assert.equal(background.isError, true);
  assert.match(background.content, /^run_in_background is not available in this session/);
  assert.equal(await Deno.stat(marker).catch(() => null), null);
});

Deno.test("Bash schema takes any positive timeout; the run caps it at BASH_MAX_TIMEOUT_MS", () => {
  assert.equal(bashTool.schema.safeParse({ command: "true", timeout: 0 }).success, false);
  assert.equal(bashTool.schema.safeParse({ command: "true", timeout: 600_001 }).success, true);
  assert.deepEqual(bashLimits({ get: () => undefined }), {
    maxTimeoutMs: 600_000,
    defaultTimeoutMs: 120_000,
    maxOutputChars: 30_000,
  });
  const env = { BASH_MAX_TIMEOUT_MS: "1000", BASH_DEFAULT_TIMEOUT_MS: "5000", BASH_MAX_OUTPUT_LENGTH: "x" };
  assert.deepEqual(bashLimits({ get: (n) => env[n as keyof typeof env] }), {
    maxTimeoutMs: 1000,
    defaultTimeoutMs: 1000,
    maxOutputChars: 30_000,
  });
});

Deno.test("findShell skips PATH entries execvp skips (a file, a missing folder) and fails on a broken one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-shell-" });
  try {
    await Deno.writeTextFile(join(dir, "file"), "");
    await Deno.mkdir(join(dir, "bin"));
    await Deno.writeTextFile(join(dir, "bin", "bash"), "");
    await Deno.symlink(join(dir, "loop"), join(dir, "loop"));
    const env = (PATH: string) => ({ fs: realFs(), env: fakeEnv({ PATH }, { cwd: dir }) });
    const path = [join(dir, "file"), join(dir, "missing"), join(dir, "bin")].join(":");
    assert.equal(await findShell(env(path)), join(dir, "bin", "bash"));
    // A folder that cannot be resolved is a broken environment, not "no bash there".
    await assert.rejects(
      () => findShell(env(`${join(dir, "loop")}:${join(dir, "bin")}`)),
      new RegExp(`Cannot look for bash at ${join(dir, "loop", "bash")}: Too many levels of symbolic links`),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
