// Crash-test writer (tests/store_crash_test.ts): rewrites a few sidecars through the real file store
// in a tight loop until it is killed. Every write is a distinct known version (`counter`), so the test
// can tell any file it finds from a torn or foreign one.
// Usage: deno run --allow-read=<root> --allow-write=<root> sidecar_writer.ts <storageRoot> <base> <id>...
// Prints "started" once every id has one version from this run on disk, then "round <n>" as it begins
// each later round of writes (n = 2, 3, …), so a test can kill it while a chosen round is in flight.

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
  const say = (line: string) => Deno.stdout.write(new TextEncoder().encode(`${line}\n`));
  for (let counter = Number(baseText) + 1;; counter++) {
    const round = counter - Number(baseText);
    if (round > 1) await say(`round ${round}`);
    await Promise.all(ids.map((id) => store.save(crashRecord(id, counter))));
    if (round === 1) await say("started");
  }
}

if (import.meta.main) await main(Deno.args);
