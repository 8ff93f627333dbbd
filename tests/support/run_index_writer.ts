// Crash-test writer of the run index (tests/faults/run_index_test.ts): drives one real file store in
// a seeded random loop until it is killed — runs created, heartbeats, completions, changes of finished
// runs, removals, listings (which fold the index) and cleans (which remove through it) — so a SIGKILL
// lands between any two steps of any of them, in this process or in another writer on the same store.
// Usage: deno run --allow-read=<root> --allow-write=<root> run_index_writer.ts <storageRoot> <seed> <lane>
// Prints "started" after its first step.

import { FileSidecarStore } from "../../lib/store/file_store.ts";
import { realClock } from "../../lib/sys/clock.ts";
import { realFs } from "../../lib/sys/fs.ts";
import { sidecarFixture } from "../../lib/testing/sidecar_fixtures.ts";

const IDS = 10;
const DAY = 24 * 60 * 60 * 1000;

/** mulberry32: a small seeded generator, so a seed replays the same steps. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function step(store: FileSidecarStore, random: () => number, lane: string): Promise<void> {
  const id = `agent-${lane}-${Math.floor(random() * IDS)}`;
  const now = Date.now();
  const loaded = await store.load(id);
  const record = loaded !== null && "record" in loaded ? loaded.record : null;
  const pick = random();
  if (record === null) {
    const running = pick < 0.6;
    const old = random() < 0.5 ? now - 8 * DAY : now;
    await store.save(sidecarFixture(id, { status: running ? "running" : "completed", lastActiveAt: old }));
  } else if (pick < 0.3 && record.status === "running") {
    await store.update(id, {});
  } else if (pick < 0.55 && record.status === "running") {
    await store.markCompleted(id, {
      status: random() < 0.5 ? "completed" : "failed",
      result: { success: true, message: "done" },
      completedAt: now,
    });
  } else if (pick < 0.65) {
    await store.update(id, { description: `changed ${Math.floor(random() * 1000)}` });
  } else if (pick < 0.75) {
    await store.remove(id);
  } else if (pick < 0.9) {
    await store.listSummaries();
  } else {
    await store.cleanExpired((r) => r.id.startsWith(`agent-${lane}-`), 7 * DAY);
  }
}

async function main(args: string[]): Promise<void> {
  const [storageRoot, seedText, lane] = args;
  if (storageRoot === undefined || seedText === undefined || lane === undefined) {
    throw new Error("usage: run_index_writer.ts <storageRoot> <seed> <lane>");
  }
  const store = new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot });
  const random = seeded(Number(seedText));
  for (let n = 0;; n++) {
    await step(store, random, lane);
    if (n === 0) await Deno.stdout.write(new TextEncoder().encode("started\n"));
  }
}

if (import.meta.main) await main(Deno.args);
