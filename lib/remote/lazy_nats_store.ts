// Owns the NATS store as the App hands it out (docs/guides/remote.md): `app.store()` is synchronous,
// so this store connects on its first call — reading the `.creds`/nkey file, then the servers, then the
// bucket — and every later call shares that one connection. `close()` drains it, so the process can
// exit. Nothing of the client is imported until the first call (nats_link.ts imports it on connect).

import { BladeError } from "../errors.ts";
import type { Clock } from "../sys/clock.ts";
import type { Fs } from "../sys/fs.ts";
import type { LoadResult } from "../store/codec.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type {
  GroupChange,
  GroupOutcome,
  RunListing,
  RunSummary,
  SidecarChange,
  SidecarCompletion,
  SidecarListing,
  SidecarOwner,
  SidecarStore,
} from "../store/store.ts";
import type { InboxEntry, SessionInbox } from "../session/inbox.ts";
import type { JobQueue } from "./nats_queue.ts";
import type {
  KvBucket,
  MessageStream,
  NatsLink,
  NatsLinkOptions,
  ObjectBucket,
  StreamOptions,
} from "./nats_link.ts";
import { INBOX_STREAM, INBOX_SUBJECTS, NatsInbox } from "./nats_inbox.ts";
import { keyOfId } from "./nats_keys.ts";
import { readNatsTranscript, TRANSCRIPT_STREAM, TRANSCRIPT_SUBJECTS } from "./nats_transcript.ts";
import type { TranscriptRead } from "../session/transcript.ts";
import type { NatsSidecarStore } from "./nats_sidecar_store.ts";
import type { NatsStoreUrl } from "./store_url.ts";

/** The KV bucket Blade's records live in. */
export const SIDECAR_BUCKET = "blade_sidecars";
/** Remote children's jobs: a work queue (docs/guides/remote.md). */
export const JOB_QUEUE = "blade_jobs";
export const JOB_SUBJECT = "blade.jobs";
/** Snapshots and result branches of remote children, as git bundles. */
export const BUNDLE_STORE = "blade_bundles";
/** How long a taken job may go without a sign of life (its worker's) before it is delivered again. */
export const JOB_ACK_WAIT_MS = 60_000;

export interface LazyNatsStoreOptions {
  fs: Fs;
  clock: Clock;
  /** The `.creds` file or nkey seed file (`--store-creds`, setting `storeCreds`). */
  credsFile?: string | undefined;
  redact?: (text: string) => string;
  /** What the connection calls itself on the servers. */
  name?: string;
  /** How long opening a bucket or stream keeps trying while the cluster settles (nats_retry.ts). */
  openWithinMs?: number;
}

/**
 * How many servers keep a copy: three on a cluster of three or more servers — those the URL names, or
 * those the servers announce (a worker given one server of a cluster still makes R3 streams) — else one.
 */
export function replicasOf(url: NatsStoreUrl, announced = 0): number {
  return Math.max(url.servers.length, announced) >= 3 ? 3 : 1;
}

/** The authentication a creds file gives: a `.creds` file (JWT and seed) or a bare nkey seed. */
export function credentialsOf(text: string, file: string): Pick<NatsLinkOptions, "credsText" | "nkeySeed"> {
  if (text.includes("-----BEGIN NATS USER JWT-----")) return { credsText: text };
  const seed = text.trim();
  if (/^SU[A-Z2-7]{56}$/.test(seed)) return { nkeySeed: seed };
  throw new BladeError(
    "store_unavailable",
    `${file} is neither a NATS .creds file nor a user nkey seed (SU…)`,
    { hint: "Pass the file `nsc generate creds` wrote, or one holding only the user's nkey seed." },
  );
}

/** The connection, the records' bucket and the store over it, once opened. */
interface Opened {
  link: NatsLink;
  bucket: KvBucket;
  store: NatsSidecarStore;
}

export class LazyNatsStore implements SidecarStore, AsyncDisposable {
  #url: NatsStoreUrl;
  #o: LazyNatsStoreOptions;
  #opened: Promise<Opened> | undefined;
  #streams = new Map<string, Promise<MessageStream>>();
  #opens = new Map<string, Promise<unknown>>();

  constructor(url: NatsStoreUrl, options: LazyNatsStoreOptions) {
    this.#url = url;
    this.#o = options;
  }

  #store(): Promise<NatsSidecarStore> {
    return this.#opening().then((o) => o.store);
  }

  /**
   * The connection and the records' bucket, opened once and shared; an open that failed (the servers
   * unreachable, a cluster still electing its leaders past nats_retry.ts's OPEN_WITHIN_MS) is forgotten,
   * so the next call tries again instead of failing for the rest of the process.
   */
  #opening(): Promise<Opened> {
    if (this.#opened === undefined) {
      const opened = this.#open();
      opened.catch(() => {
        if (this.#opened === opened) this.#opened = undefined;
      });
      this.#opened = opened;
    }
    return this.#opened;
  }

  async #open(): Promise<Opened> {
    const { fs, clock, credsFile, redact, name, openWithinMs } = this.#o;
    let credentials = {};
    if (credsFile !== undefined) {
      const text = await fs.readText(credsFile).catch((e: Error) => {
        throw new BladeError(
          "store_unavailable",
          `Cannot read the store credentials ${credsFile}: ${e.message}`,
          {
            hint: "Check the path given to --store-creds (or the setting storeCreds).",
          },
        );
      });
      credentials = credentialsOf(text, credsFile);
    }
    const [{ connectNats }, { NatsSidecarStore }, { NatsSpill, SPILL_STORE }] = await Promise.all([
      import("./nats_link.ts"),
      import("./nats_sidecar_store.ts"),
      import("./nats_spill.ts"),
    ]);
    const link = await connectNats(this.#url, {
      ...credentials,
      name: name ?? "blade",
      clock,
      openWithinMs,
    });
    try {
      const replicas = replicasOf(this.#url, link.servers);
      const bucket = await link.bucket(SIDECAR_BUCKET, { replicas });
      // Large results go to the object store (nats_spill.ts), opened on first need.
      let objects: ReturnType<NatsLink["objects"]> | undefined;
      const spill = new NatsSpill(() => objects ??= link.objects(SPILL_STORE, { replicas }), { redact });
      return {
        link,
        bucket,
        store: new NatsSidecarStore(bucket, { clock, spill, ...(redact === undefined ? {} : { redact }) }),
      };
    } catch (error) {
      await link.close();
      throw error;
    }
  }

  /** The connection, opened on first use and shared by everything of this store. */
  async link(): Promise<NatsLink> {
    return (await this.#opening()).link;
  }

  /** How many servers keep a copy of what this store makes on `link` (buckets, streams). */
  #replicas(link: NatsLink): number {
    return replicasOf(this.#url, link.servers);
  }

  /** The stream `name`, opened (created when absent) once per store. */
  stream(name: string, options: Omit<StreamOptions, "replicas">): Promise<MessageStream> {
    let got = this.#streams.get(name);
    if (got === undefined) {
      got = this.link().then((link) => link.stream(name, { ...options, replicas: this.#replicas(link) }));
      got.catch(() => this.#streams.delete(name));
      this.#streams.set(name, got);
    }
    return got;
  }

  /** `open()` once per store under `key` (a failed open is tried again next time). */
  #once<T>(key: string, open: (link: NatsLink) => Promise<T>): Promise<T> {
    let got = this.#opens.get(key) as Promise<T> | undefined;
    if (got === undefined) {
      got = this.link().then(open);
      got.catch(() => this.#opens.delete(key));
      this.#opens.set(key, got);
    }
    return got;
  }

  /** The KV bucket `name` of this store (leases, workers). */
  bucket(name: string): Promise<KvBucket> {
    return this.#once(`bucket:${name}`, (link) => link.bucket(name, { replicas: this.#replicas(link) }));
  }

  /**
   * Calls `onChange` each time run `id`'s record is written from now on (a KV watch on its key);
   * resolves to the function that stops it. A parent waits on its remote children with it.
   */
  async watchRecord(id: string, onChange: () => void): Promise<() => void> {
    const { bucket } = await this.#opening();
    return await bucket.watch(keyOfId(id), onChange);
  }

  /** The remote children's job queue; `ackWaitMs` is used when this call creates it. */
  jobs(ackWaitMs = JOB_ACK_WAIT_MS): Promise<JobQueue> {
    return this.#once(
      "jobs",
      (link) => link.queue(JOB_QUEUE, { subject: JOB_SUBJECT, replicas: this.#replicas(link), ackWaitMs }),
    );
  }

  /** The git bundles of remote children (snapshots, results). */
  bundles(): Promise<ObjectBucket> {
    return this.#once("bundles", (link) => link.objects(BUNDLE_STORE, { replicas: this.#replicas(link) }));
  }

  /**
   * The transcript of run `id` as its worker copied it here (a remote child's: lib/worker/transcript_mirror.ts),
   * or null when the store has none (a local run's transcript stays a file where it ran).
   */
  async transcriptOf(id: string): Promise<TranscriptRead | null> {
    return await readNatsTranscript(
      await this.stream(TRANSCRIPT_STREAM, { subjects: TRANSCRIPT_SUBJECTS }),
      id,
    );
  }

  /** The inbox of session `sessionId` in this store (lib/remote/nats_inbox.ts), opened on first use. */
  inboxOf(sessionId: string): SessionInbox {
    const inbox = () =>
      this.stream(INBOX_STREAM, { subjects: INBOX_SUBJECTS }).then((s) =>
        new NatsInbox(s, sessionId, { clock: this.#o.clock })
      );
    return {
      enqueue: async (entry: InboxEntry) => await (await inbox()).enqueue(entry),
      pending: async () => await (await inbox()).pending(),
      remove: async (ids: readonly string[]) => await (await inbox()).remove(ids),
    };
  }

  /** Drains the connection when one was opened (a store never used never connected). */
  async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = undefined;
    if (opened === undefined) return;
    this.#streams.clear();
    this.#opens.clear();
    const o = await opened.catch(() => null);
    await o?.link.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async create(record: SidecarRecord): Promise<void> {
    return await (await this.#store()).create(record);
  }
  async save(record: SidecarRecord): Promise<void> {
    return await (await this.#store()).save(record);
  }
  async load(id: string): Promise<LoadResult | null> {
    return await (await this.#store()).load(id);
  }
  async readSpilled(record: SidecarRecord): Promise<SidecarRecord> {
    return await (await this.#store()).readSpilled(record);
  }
  async update(id: string, change: SidecarChange): Promise<SidecarRecord> {
    return await (await this.#store()).update(id, change);
  }
  async updateMany(changes: readonly GroupChange[]): Promise<GroupOutcome[]> {
    return await (await this.#store()).updateMany(changes);
  }
  async markCompleted(id: string, completion: SidecarCompletion): Promise<SidecarRecord> {
    return await (await this.#store()).markCompleted(id, completion);
  }
  async list(owner: SidecarOwner): Promise<SidecarRecord[]> {
    return await (await this.#store()).list(owner);
  }
  async listAll(): Promise<SidecarListing> {
    return await (await this.#store()).listAll();
  }
  async listRunning(): Promise<SidecarListing> {
    return await (await this.#store()).listRunning();
  }
  async remove(id: string): Promise<boolean> {
    return await (await this.#store()).remove(id);
  }
  async listSummaries(): Promise<RunListing> {
    return await (await this.#store()).listSummaries();
  }
  async cleanExpired(
    select: (run: RunSummary) => boolean,
    olderThanMs: number,
    options?: { now?: number },
  ): Promise<RunSummary[]> {
    return await (await this.#store()).cleanExpired(select, olderThanMs, options);
  }
}
