// Fault suite, SIGKILL of the run index (docs/reference/sidecars.md, "The run index"): two writer
// processes share one store and change it at random (tests/support/run_index_writer.ts: runs created,
// heartbeats, completions, changes of finished runs, removals, listings that fold the index, cleans that
// remove through it) and are SIGKILLed at random moments. After each kill the index must list exactly
// what a full read of every record says, in a fresh process's store, both the listing that folds what
// the kill left and the next one, read from the file that fold wrote. BLADE_KILL_LOOP=<n> sets the
// number of kills (default 24), BLADE_KILL_SEED the seed.

import assert from "node:assert/strict";
import { FileSidecarStore } from "../../lib/store/file_store.ts";
import { summarize } from "../../lib/store/run_summary.ts";
import { realClock } from "../../lib/sys/clock.ts";
import { realFs } from "../../lib/sys/fs.ts";
import { seeded } from "../support/run_index_writer.ts";
import { printSummary } from "./summary.ts";

const KILLS = Number(Deno.env.get("BLADE_KILL_LOOP") ?? "24");
const SEED = Number(Deno.env.get("BLADE_KILL_SEED") ?? "35");
const WRITER = new URL("../support/run_index_writer.ts", import.meta.url);
const CONFIG = decodeURIComponent(new URL("../../deno.json", import.meta.url).pathname);

function startWriter(root: string, seed: number, lane: string) {
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
      root,
      String(seed),
      lane,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const started = (async () => {
    let out = "";
    while (!out.includes("started\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`writer ${lane} exited before its first step: ${await stderr}`);
      out += value;
    }
  })();
  return {
    started,
    async kill(): Promise<void> {
      child.kill("SIGKILL");
      const status = await child.status;
      await reader.cancel().catch(() => {});
      await stderr;
      assert.equal(status.signal, "SIGKILL", `writer ${lane} must still be running when killed`);
    },
  };
}

async function agrees(root: string, kill: number): Promise<void> {
  const fresh = () => new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot: root });
  const all = await fresh().listAll();
  const truth = { runs: all.records.map(summarize), diagnostics: all.diagnostics };
  assert.deepEqual(
    await fresh().listSummaries(),
    truth,
    `kill ${kill} (seed ${SEED}): the fold after the kill`,
  );
  assert.deepEqual(await fresh().listSummaries(), truth, `kill ${kill} (seed ${SEED}): the index it wrote`);
}

Deno.test("run index: SIGKILLs of two writers at random moments never leave an index that disagrees with the records", async () => {
  // deno-lint-ignore no-console
  console.log(`run index kills: seed ${SEED} (BLADE_KILL_SEED), ${KILLS} kills (BLADE_KILL_LOOP)`);
  const root = await Deno.makeTempDir({ prefix: "blade-run-index-kill-" });
  const random = seeded(SEED);
  let runs = 0;
  try {
    for (let kill = 1; kill <= KILLS; kill++) {
      const writers = ["a", "b"].map((lane) => startWriter(root, Math.floor(random() * 2 ** 31), lane));
      await Promise.all(writers.map((w) => w.started));
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(random() * 60)));
      await Promise.all(writers.map((w) => w.kill()));
      await agrees(root, kill);
      runs = (await new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot: root }).listAll())
        .records.length;
    }
    printSummary("run index", [
      `${KILLS} kills of 2 writers, seed ${SEED}`,
      `${runs} runs at the end`,
      "index = records after each",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
