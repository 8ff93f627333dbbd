// Sidecar write benchmark (docs/reference/performance.md): durable writes per second through the real file store (temp file,
// fsync, rename, fsync of the folder), one writer at a time and 8 concurrent writers.
// Run alone: deno run -A scripts/bench_store.ts  (prints medians; `deno task bench` imports benchStore).

import { median } from "./bench_common.ts";
import { FileSidecarStore } from "../lib/store/file_store.ts";
import { realClock } from "../lib/sys/clock.ts";
import { realFs } from "../lib/sys/fs.ts";
import { fullSidecarFixture } from "../lib/testing/sidecar_fixtures.ts";

export interface StoreBenchOptions {
  /** Measured rounds; the medians are reported. Default 5. */
  rounds?: number;
  /** Writes per round and mode. Default 200. */
  writes?: number;
  /** Concurrent writers in the concurrent mode. Default 8. */
  concurrency?: number;
  /** Folder to create the temporary storage roots in (default: the system temp folder). */
  dir?: string;
}

export interface StoreBenchResult {
  rounds: number;
  writes: number;
  concurrency: number;
  recordBytes: number;
  /** Median writes per second, one writer. */
  sequentialWritesPerSec: number;
  /** Median writes per second, `concurrency` writers on distinct records. */
  concurrentWritesPerSec: number;
}

const IDS_PER_WRITER = 4;

export async function benchStore(options: StoreBenchOptions = {}): Promise<StoreBenchResult> {
  const rounds = options.rounds ?? 5;
  const writes = options.writes ?? 200;
  const concurrency = options.concurrency ?? 8;
  const record = (id: string, n: number) =>
    fullSidecarFixture(id, { stats: { tokens: n, toolCalls: n, durationMs: n } });
  const sequential: number[] = [];
  const concurrent: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const root = await Deno.makeTempDir({
      prefix: "blade-bench-store-",
      ...(options.dir ? { dir: options.dir } : {}),
    });
    try {
      const store = new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot: root });
      await store.save(record("agent-warmup", 0));

      let start = performance.now();
      for (let n = 0; n < writes; n++) await store.save(record(`agent-seq-${n % IDS_PER_WRITER}`, n));
      sequential.push(writes / ((performance.now() - start) / 1000));

      const perWriter = Math.ceil(writes / concurrency);
      start = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
        for (let n = 0; n < perWriter; n++) await store.save(record(`agent-c${w}-${n % IDS_PER_WRITER}`, n));
      }));
      concurrent.push((perWriter * concurrency) / ((performance.now() - start) / 1000));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }
  return {
    rounds,
    writes,
    concurrency,
    recordBytes: new TextEncoder().encode(`${JSON.stringify(record("agent-seq-0", 0), null, 2)}\n`).length,
    sequentialWritesPerSec: Math.round(median(sequential)),
    concurrentWritesPerSec: Math.round(median(concurrent)),
  };
}

if (import.meta.main) {
  const r = await benchStore();
  const lines = [
    `sidecar writes with full fsync (${r.recordBytes} B records, median of ${r.rounds} rounds of ${r.writes})`,
    `  sequential:      ${r.sequentialWritesPerSec} writes/s`,
    `  ${r.concurrency} concurrent:    ${r.concurrentWritesPerSec} writes/s`,
  ];
  await Deno.stdout.write(new TextEncoder().encode(`${lines.join("\n")}\n`));
}
