// docs/reference/recovery.md: SIGKILL at any moment never leaves a torn sidecar. Real writer processes are killed 200
// times at random moments; after each kill every record file must decode to a version that was
// written, never older than one seen before, and leftover temp files must never pass for records.

import assert from "node:assert/strict";
import { FileSidecarStore } from "../lib/store/file_store.ts";
import { realClock } from "../lib/sys/clock.ts";
import { realFs } from "../lib/sys/fs.ts";
import { crashRecord } from "./support/sidecar_writer.ts";
import { SOURCES_ONLY } from "./support/blade.ts";

const KILLS = 200;
const LANES = 4;
const RUN_SPAN = 1_000_000;
const WRITER = new URL("./support/sidecar_writer.ts", import.meta.url);
const CONFIG = decodeURIComponent(new URL("../deno.json", import.meta.url).pathname);

interface Lane {
  ids: string[];
  /** Highest counter seen per id: a later check must never find an older version. */
  seen: Map<string, number>;
}

/** Starts a writer, waits until it reports writing, kills it after 1–30 ms, returns its stderr. */
async function killWriterRandomly(root: string, base: number, ids: string[]): Promise<void> {
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
  while (!out.includes("started\n")) {
    const { value, done } = await reader.read();
    if (done) {
      await child.status;
      throw new Error(`writer exited before writing: ${await stderr}`);
    }
    out += value;
  }
  await new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(Math.random() * 30)));
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

Deno.test("SIGKILL at random moments never leaves a torn or foreign sidecar", SOURCES_ONLY, async () => {
  const root = await Deno.makeTempDir({ prefix: "blade-crash-" });
  try {
    const lanes: Lane[] = Array.from({ length: LANES }, (_, l) => ({
      ids: ["a", "b", "c"].map((x) => `agent-lane${l}-${x}`),
      seen: new Map(),
    }));
    await Promise.all(lanes.map(async (lane) => {
      for (let run = 1; run <= KILLS / LANES; run++) {
        const base = run * RUN_SPAN;
        await killWriterRandomly(root, base, lane.ids);
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
});
