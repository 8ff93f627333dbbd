// NATS store benchmark (docs/reference/performance.md, docs/guides/remote.md): the latency of one store
// operation through the NATS store against the file store — a sidecar update (read, change, CAS write;
// the file store's fsynced atomic write), an inbox notice appended, and a transcript batch appended
// (the file transcript's fsynced append; one message on the session's subject) — on one JetStream
// node and on a 3-node R3 cluster on loopback. Empty (no rows) where nats-server is not installed.
// The remote children's throughput and latency are scripts/bench_remote_children.ts.
// Run alone: deno run -A scripts/bench_remote.ts  (prints the rows; `deno task bench --only remote`).

import { type Stats, stats } from "./bench_common.ts";
import { FileSidecarStore } from "../lib/store/file_store.ts";
import { realClock } from "../lib/sys/clock.ts";
import { realFs } from "../lib/sys/fs.ts";
import { Inbox, type SessionInbox } from "../lib/session/inbox.ts";
import type { SidecarStore } from "../lib/store/store.ts";
import { sidecarFixture } from "../lib/testing/sidecar_fixtures.ts";
import { findNatsServer, startNats } from "../lib/testing/nats_server.ts";
import { connectNats } from "../lib/remote/nats_link.ts";
import { NatsSidecarStore } from "../lib/remote/nats_sidecar_store.ts";
import { INBOX_STREAM, INBOX_SUBJECTS, NatsInbox } from "../lib/remote/nats_inbox.ts";
import { parseStoreUrl } from "../lib/remote/store_url.ts";
import { type TranscriptLog, TranscriptWriter } from "../lib/session/transcript.ts";
import { NatsTranscript, TRANSCRIPT_STREAM, TRANSCRIPT_SUBJECTS } from "../lib/remote/nats_transcript.ts";

export interface RemoteBenchRow {
  name: string;
  unit: "ms" | "children/s";
  stats: Stats;
}

/** Per-operation latencies (ms) of `ops` sidecar updates, inbox appends and transcript appends. */
async function measure(
  store: SidecarStore,
  o: { inbox: SessionInbox; transcript: TranscriptLog; ops: number },
): Promise<[number[], number[], number[]]> {
  const { inbox, transcript, ops } = o;
  await store.save(sidecarFixture("agent-bench"));
  const updates: number[] = [];
  for (let n = 0; n < ops; n++) {
    const start = performance.now();
    await store.update("agent-bench", (r) => ({ ...r, stats: { ...r.stats, toolCalls: n } }));
    updates.push(performance.now() - start);
  }
  const appends: number[] = [];
  for (let n = 0; n < ops; n++) {
    const start = performance.now();
    await inbox.enqueue({ inboxId: `notice-${n}`, kind: "completion", text: "done", createdAt: n });
    appends.push(performance.now() - start);
    // The inbox stays small, as a session's does (its notices are consumed).
    if (n % 10 === 9) await inbox.remove((await inbox.pending()).map((e) => e.inboxId));
  }
  const lines: number[] = [];
  for (let n = 0; n < ops; n++) {
    const start = performance.now();
    // A tool step's batch: the assistant's text part (a few hundred bytes).
    await transcript.append([{
      type: "part_created",
      data: { messageId: `m${n}`, partId: `p${n}`, part: { type: "text", text: "x".repeat(300) } },
    }]);
    lines.push(performance.now() - start);
  }
  return [updates, appends, lines];
}

export async function benchRemote(options: { ops?: number } = {}): Promise<RemoteBenchRow[]> {
  const ops = options.ops ?? 100;
  const binary = await findNatsServer();
  if (binary === null) return [];
  const dir = await Deno.makeTempDir({ prefix: "blade-bench-remote-" });
  const rows: RemoteBenchRow[] = [];
  const add = (where: string, [updates, appends, lines]: [number[], number[], number[]]) => {
    rows.push({ name: `sidecar update, ${where}`, unit: "ms", stats: stats(updates) });
    rows.push({ name: `inbox notice appended, ${where}`, unit: "ms", stats: stats(appends) });
    rows.push({ name: `transcript batch appended, ${where}`, unit: "ms", stats: stats(lines) });
  };
  const ids = { random21: () => crypto.randomUUID().slice(0, 21), uuid: () => crypto.randomUUID() };
  const session = { sessionId: "session-bench", projectPath: "/bench" };
  try {
    const clock = realClock();
    const file = new FileSidecarStore({ fs: realFs(), clock, storageRoot: `${dir}/files` });
    add(
      "file store",
      await measure(file, {
        inbox: new Inbox({ fs: realFs(), clock, path: `${dir}/files/s.inbox.json` }),
        transcript: new TranscriptWriter({
          fs: realFs(),
          clock,
          ids,
          path: `${dir}/files/session-bench.jsonl`,
          ...session,
        }),
        ops,
      }),
    );
    for (const size of [1, 3] as const) {
      await using nats = await startNats(binary, { size, dir: `${dir}/nats${size}` });
      await using link = await connectNats(parseStoreUrl(nats.url));
      const replicas = size;
      const store = new NatsSidecarStore(await link.bucket("bench", { replicas }), { clock });
      const stream = await link.stream(INBOX_STREAM, { subjects: INBOX_SUBJECTS, replicas });
      const transcripts = await link.stream(TRANSCRIPT_STREAM, { subjects: TRANSCRIPT_SUBJECTS, replicas });
      add(
        size === 1 ? "NATS, one node" : "NATS, 3 nodes R3",
        await measure(store, {
          inbox: new NatsInbox(stream, "session-bench", { clock }),
          transcript: new NatsTranscript(transcripts, { clock, ids, ...session }),
          ops,
        }),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return rows;
}

if (import.meta.main) {
  for (const row of await benchRemote()) {
    // deno-lint-ignore no-console
    console.log(
      `${row.name}: median ${row.stats.median.toFixed(2)} ms (min ${row.stats.min.toFixed(2)}, max ${
        row.stats.max.toFixed(2)
      }, n ${row.stats.n})`,
    );
  }
}
