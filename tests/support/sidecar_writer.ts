// Crash-test writer (tests/store_crash_test.ts): rewrites a few sidecars through the real file store
// in a tight loop until it is killed. Every write is a distinct known version (`counter`), so the test
// can tell any file it finds from a torn or foreign one.
// Usage: deno run --allow-read=<root> --allow-write=<root> sidecar_writer.ts <storageRoot> <base> <id>...
// Prints "started" once every id has one version from this run on disk.

import type { SidecarRecord } from "../../lib/store/schema.ts";
import { FileSidecarStore } from "../../lib/store/file_store.ts";
import { realClock } from "../../lib/sys/clock.ts";
import { realFs } from "../../lib/sys/fs.ts";
import { FIXTURE_TIME, sidecarFixture } from "../../lib/testing/sidecar_fixtures.ts";

/** Version `counter` of sidecar `id`: about 32 KiB, every part of it derived from the counter. */
export function crashRecord(id: string, counter: number): SidecarRecord {
  const text = `version ${counter} of ${id}; `.repeat(1200);
  const record = sidecarFixture(id, {
    description: `version ${counter}`,
    messages: [{ role: "assistant", content: [{ type: "text", text }] }],
    stats: { tokens: counter, toolCalls: counter % 97, durationMs: counter },
    lastActiveAt: FIXTURE_TIME + counter,
  });
  return { ...record, counter } as SidecarRecord;
}

async function main(args: string[]): Promise<void> {
  const [storageRoot, baseText, ...ids] = args;
  if (storageRoot === undefined || baseText === undefined || ids.length === 0) {
    throw new Error("usage: sidecar_writer.ts <storageRoot> <base counter> <id>...");
  }
  const store = new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot });
  for (let counter = Number(baseText) + 1;; counter++) {
    await Promise.all(ids.map((id) => store.save(crashRecord(id, counter))));
    if (counter === Number(baseText) + 1) await Deno.stdout.write(new TextEncoder().encode("started\n"));
  }
}

if (import.meta.main) await main(Deno.args);
