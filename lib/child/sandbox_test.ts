import assert from "node:assert/strict";
import type { ProbeRequest, ProbeResult } from "../testing/probe_child.ts";
import { BladeError } from "../errors.ts";
import { childPermissions, type DenoPermissionSet } from "../permissions/deno_permissions.ts";
import { startSandbox } from "./sandbox.ts";
import type { SandboxMechanism } from "./sandbox_protocol.ts";
import { WORKER } from "./worker_transport.ts";

const PROBE = new URL("../testing/probe_child.ts", import.meta.url);
const BROKEN = new URL("../testing/broken_child.ts", import.meta.url);
const SILENT = new URL("../testing/silent_child.ts", import.meta.url);
const START = new URL("../testing/sandbox_start.ts", import.meta.url);
const MECHANISMS: SandboxMechanism[] = [WORKER];

function readOnly(dir: string): DenoPermissionSet {
  return childPermissions({
    trusted: true,
    mode: "default",
    tools: ["Read"],
    workspaceRoot: dir,
    storageRoot: `${dir}/storage`,
    storageReadDirs: [`${dir}/storage/projects/-ws`],
    providerHosts: [],
    envNames: [],
  });
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-sandbox-" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function isBladeError(code: string, includes?: string): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof BladeError, String(e));
    assert.equal(e.code, code, e.message);
    if (includes !== undefined) assert.ok(e.message.includes(includes), e.message);
    return true;
  };
}

for (const mechanism of MECHANISMS) {
  Deno.test(`sandbox (${mechanism.name}): requests, ordered events, handler errors, clean shutdown`, async () => {
    await withDir(async (dir) => {
      const events: number[] = [];
      const permissions = readOnly(dir);
      await using sandbox = await startSandbox<ProbeRequest, ProbeResult, number>(PROBE, {
        mechanism,
        permissions,
        onEvent: (n) => events.push(n),
      });
      assert.equal(sandbox.mechanism, mechanism);
      assert.deepEqual(sandbox.permissions, permissions);
      assert.deepEqual(await sandbox.request({ op: "echo", value: { a: [1, "two"] } }), {
        outcome: "ok",
        value: { a: [1, "two"] },
      });
      assert.deepEqual(await sandbox.request({ op: "events", count: 5 }), { outcome: "ok", value: 5 });
      assert.deepEqual(events, [0, 1, 2, 3, 4], "every event arrives, in order, before the response");
      await assert.rejects(sandbox.request({ op: "fail", message: "handler said no" }), (e: unknown) => {
        assert.ok(e instanceof BladeError);
        assert.equal(e.message, "handler said no");
        return true;
      });
      const [a, b] = await Promise.all([
        sandbox.request({ op: "echo", value: 1 }),
        sandbox.request({ op: "echo", value: 2 }),
      ]);
      assert.deepEqual([a, b], [{ outcome: "ok", value: 1 }, { outcome: "ok", value: 2 }]);
      assert.deepEqual(await sandbox.cancel("done"), { state: "cancelled", reason: "done" });
      await assert.rejects(sandbox.request({ op: "echo", value: 3 }), isBladeError("sandbox_cancelled"));
    });
  });

  Deno.test(`sandbox (${mechanism.name}): error codes from the child are checked against Blade's`, async () => {
    await withDir(async (dir) => {
      await using sandbox = await startSandbox<ProbeRequest, ProbeResult>(PROBE, {
        mechanism,
        permissions: readOnly(dir),
      });
      await assert.rejects(
        sandbox.request({ op: "fail", message: "held by another run", code: "session_in_use" }),
        isBladeError("session_in_use", "held by another run"),
      );
      await assert.rejects(
        sandbox.request({ op: "fail", message: "trust me", code: "workspace_trusted_now" }),
        isBladeError("sandbox_request_failed", 'trust me (unknown error code "workspace_trusted_now")'),
      );
    });
  });

  Deno.test(`sandbox (${mechanism.name}): an uncaught error in the child fails pending requests clearly`, async () => {
    await withDir(async (dir) => {
      const sandbox = await startSandbox<ProbeRequest, ProbeResult>(PROBE, {
        mechanism,
        permissions: readOnly(dir),
      });
      await assert.rejects(
        sandbox.request({ op: "crash", message: "kaboom in child" }),
        isBladeError("sandbox_crashed", "kaboom in child"),
      );
      const exit = await sandbox.exited;
      assert.equal(exit.state, "crashed");
      assert.ok(exit.state === "crashed" && exit.message.includes("kaboom in child"));
    });
  });

  Deno.test(`sandbox (${mechanism.name}): a child that exits mid-request fails it with the exit code`, async () => {
    await withDir(async (dir) => {
      const sandbox = await startSandbox<ProbeRequest, ProbeResult>(PROBE, {
        mechanism,
        permissions: readOnly(dir),
      });
      await assert.rejects(
        sandbox.request({ op: "exit", code: 3 }),
        isBladeError("sandbox_crashed", "code 3"),
      );
      assert.equal((await sandbox.exited).state, "crashed");
    });
  });

  Deno.test(`sandbox (${mechanism.name}): cancel ends a busy child and its pending requests`, async () => {
    await withDir(async (dir) => {
      const controller = new AbortController();
      const sandbox = await startSandbox<ProbeRequest, ProbeResult>(PROBE, {
        mechanism,
        permissions: readOnly(dir),
        signal: controller.signal,
      });
      const pending = sandbox.request({ op: "hang" });
      controller.abort();
      await assert.rejects(pending, isBladeError("sandbox_cancelled", "aborted"));
      assert.deepEqual(await sandbox.exited, { state: "cancelled", reason: "aborted" });
    });
  });

  Deno.test(`sandbox (${mechanism.name}): a graceful cancel lets in-flight work answer first`, async () => {
    await withDir(async (dir) => {
      const sandbox = await startSandbox<ProbeRequest, ProbeResult>(PROBE, {
        mechanism,
        permissions: readOnly(dir),
      });
      const cooperative = sandbox.request({ op: "waitForAbort" });
      const exit = await sandbox.cancel("user stop", { graceMs: 10_000 });
      assert.deepEqual(await cooperative, { outcome: "aborted", message: "user stop" });
      assert.deepEqual(exit, { state: "cancelled", reason: "user stop" });
    });
  });

  Deno.test(`sandbox (${mechanism.name}): a graceful cancel still ends a child that ignores it`, async () => {
    await withDir(async (dir) => {
      const sandbox = await startSandbox<ProbeRequest, ProbeResult>(PROBE, {
        mechanism,
        permissions: readOnly(dir),
      });
      const stubborn = assert.rejects(
        sandbox.request({ op: "hang" }),
        isBladeError("sandbox_cancelled", "user stop"),
      );
      await sandbox.cancel("user stop", { graceMs: 50 });
      await stubborn;
    });
  });

  Deno.test(`sandbox (${mechanism.name}): a child that fails to load rejects the start with its error`, async () => {
    await withDir(async (dir) => {
      // In a subprocess: Deno prints a Worker's load error on stderr even when Blade handles it, and
      // the test keeps that line out of the CI log by capturing it here.
      const run = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--unstable-worker-options",
          START.pathname,
          mechanism.name,
          BROKEN.href,
          JSON.stringify(readOnly(dir)),
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(run.stderr);
      assert.equal(run.code, 0, stderr);
      const outcome = JSON.parse(new TextDecoder().decode(run.stdout)) as { code?: string; message: string };
      assert.equal(outcome.code, "sandbox_start_failed", outcome.message);
      assert.ok(outcome.message.includes("broken child failed while loading"), outcome.message);
      if (mechanism === WORKER) assert.match(stderr, /Uncaught.*broken child failed while loading/);
    });
  });

  Deno.test(`sandbox (${mechanism.name}): a child that never says ready is given up on`, async () => {
    await withDir(async (dir) => {
      await assert.rejects(
        startSandbox(SILENT, { mechanism, permissions: readOnly(dir), startTimeoutMs: 300 }),
        isBladeError("sandbox_start_failed", "did not start within 300 ms"),
      );
    });
  });
}
