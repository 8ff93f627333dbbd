import assert from "node:assert/strict";
import { realPorts } from "../sys/mod.ts";
import { storageLayout } from "../config/storage.ts";
import { acquireLease } from "../session/lease.ts";
import { ownProcessOf } from "./runtime.ts";

Deno.test("ownProcessOf shares the leases' read of this process's identity: one read (a subprocess on Linux) per port", async () => {
  const real = realPorts();
  let reads = 0;
  const process = {
    ...real.process,
    identity: (pid: number) => {
      reads++;
      return real.process.identity(pid);
    },
  };
  const ports = { ...real, process };
  const root = await Deno.makeTempDir({ prefix: "blade-own-" });
  try {
    const lease = await acquireLease(
      { fs: ports.fs, process, clock: ports.clock, layout: storageLayout(root) },
      { projectPath: "/bench/project", sessionId: "session-own" },
    );
    const own = await ownProcessOf(ports)();
    await ownProcessOf(ports)();
    assert.equal(own.pid, Deno.pid);
    assert.equal(reads, 1);
    await lease.release();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
