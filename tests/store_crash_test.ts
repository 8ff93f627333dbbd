// docs/reference/recovery.md: SIGKILL at any moment never leaves a torn sidecar. Real writer processes are killed 200
// times, each as soon as it announces a round of writes chosen by a seeded generator (the seed is in the
// test's name; BLADE_KILL_SEED replays it), so the kill lands while that round's writes are in flight;
// after each kill every record file must decode to a version that was written, never older than one
// seen before, and leftover temp files must never pass for records.

import assert from "node:assert/strict";
import { FileSidecarStore } from "../lib/store/file_store.ts";
import { realClock } from "../lib/sys/clock.ts";
import { realFs } from "../lib/sys/fs.ts";
import { crashRecord } from "./support/sidecar_writer.ts";
import { SOURCES_ONLY } from "./support/blade.ts";
import { killSeed, seededRandom } from "./support/crash.ts";

const KILLS = 200;
const LANES = 4;
const RUN_SPAN = 1_000_000;
const WRITER = new URL("./support/sidecar_writer.ts", import.meta.url);
const CONFIG = decodeURIComponent(new URL("../deno.json", import.meta.url).pathname);
const SEED = killSeed();
/** The rounds a kill may land in: 2 (the one after "started") to 2 + ROUNDS - 1. */
const ROUNDS = 8;

interface Lane {
  ids: string[];
  /** Highest counter seen per id: a later check must never find an older version. */
  seen: Map<string, number>;
}

/** Starts a writer and SIGKILLs it as soon as it announces round `round` of its writes. */
async function killWriterInRound(root: string, base: number, ids: string[], round: number): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${root}`,
      `--allow-write=${root}`,
      "--ignore-env=LOG_TOKENS,LOG_STREAM",
      "--config",
      CONFIG,
      WRITER.href,
      `${root}/store`,
      String(base),
      ...ids,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("started\n") || !out.includes(`round ${round}\n`)) {
    const { value, done } = await reader.read();
    if (done) {
      await child.status;
      throw new Error(`writer exited before round ${round}: ${await stderr}`);
    }
    out += value;
  }
  child.kill("SIGKILL");
  const status = await child.status;
  await reader.cancel();
  await stderr;
  assert.equal(status.signal, "SIGKILL", "the writer must still be running when killed");
}

async function checkLane(root: string, lane: Lane, base: number): Promise<void> {
  // A fresh store each time: nothing may come from a cache.
  const store = new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot: `${root}/store` });
  for (const id of lane.ids) {
    const loaded = await store.load(id);
    assert.ok(loaded !== null && "record" in loaded, `${id}: ${JSON.stringify(loaded)}`);
    assert.equal(loaded.legacy, false);
    const counter = (loaded.record as Record<string, unknown>)["counter"];
    assert.ok(typeof counter === "number" && Number.isInteger(counter), `${id}: no counter`);
    assert.ok(counter > base && counter < base + RUN_SPAN, `${id}: version ${counter} not from this run`);
    assert.ok(counter >= (lane.seen.get(id) ?? 0), `${id}: went back to version ${counter}`);
    assert.deepEqual(loaded.record, crashRecord(id, counter), `${id}: version ${counter} differs`);
    lane.seen.set(id, counter);
    assert.equal((await Deno.stat(store.pathOf(id))).mode! & 0o777, 0o600);
  }
}

Deno.test(
  `SIGKILL in seeded rounds of writes (seed ${SEED}) never leaves a torn or foreign sidecar`,
  SOURCES_ONLY,
  async () => {
    const root = await Deno.makeTempDir({ prefix: "blade-crash-" });
    const random = seededRandom(SEED);
    const rounds = Array.from({ length: KILLS }, () => 2 + Math.floor(random() * ROUNDS));
    try {
      const lanes: Lane[] = Array.from({ length: LANES }, (_, l) => ({
        ids: ["a", "b", "c"].map((x) => `agent-lane${l}-${x}`),
        seen: new Map(),
      }));
      await Promise.all(lanes.map(async (lane, l) => {
        for (let run = 1; run <= KILLS / LANES; run++) {
          const base = run * RUN_SPAN;
          await killWriterInRound(root, base, lane.ids, rounds[l * (KILLS / LANES) + run - 1]!);
          await checkLane(root, lane, base);
        }
      }));

      const store = new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot: `${root}/store` });
      // Plant a leftover temp file that holds a perfectly valid record of an id that does not exist.
      await Deno.writeTextFile(
        `${store.sessionsDir}/.agent-ghost.json.1.1.x.tmp`,
        JSON.stringify(crashRecord("agent-ghost", 1)),
      );
      const all = await store.listAll();
      assert.deepEqual(all.diagnostics, []);
      const ids = lanes.flatMap((l) => l.ids).sort();
      assert.deepEqual(all.records.map((r) => r.id).sort(), ids);
      assert.equal(await store.load("agent-ghost"), null);
      const temps = [...Deno.readDirSync(store.sessionsDir)].filter((e) => e.name.endsWith(".tmp"));
      assert.ok(temps.length >= 1);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);
