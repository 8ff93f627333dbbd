// Owns Blade's one use of the NATS client (`@nats-io/*`, imported on first connect so nothing of it
// loads unless `--store nats://…` is given): connecting with the credentials and TLS the caller asks
// for, and the narrow views the NATS store is written against: a KV bucket, and a message stream with
// per-subject compare-and-append (the work queue is nats_queue.ts). Everything else in Blade sees only
// `NatsLink`, `KvBucket`, `MessageStream`, `JobQueue`; the client's own types stay in lib/remote/nats_*.ts.

import { BladeError } from "../errors.ts";
import { importNpm } from "../npm_module.ts";
import { type Clock, realClock } from "../sys/clock.ts";
import {
  ensureStream,
  OPEN_WITHIN_MS,
  opening,
  openOrCreate,
  type Patience,
  retried,
  streamExists,
  within,
} from "./nats_retry.ts";
import { type JobQueue, openQueue, type QueueOptions } from "./nats_queue.ts";
import { liveKeys, purgeMarker } from "./nats_kv_keys.ts";
import type { NatsStoreUrl } from "./store_url.ts";
// Types only (erased): the client's code is imported on first connect, in connectNats.
import type { Kvm, KvWatchInclude } from "@nats-io/kv";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { Objm } from "@nats-io/obj";

/** One stored value as the store sees it: its text and the revision a CAS must name. */
export interface KvEntryView {
  revision: number;
  text: string;
}

/** A KV bucket with compare-and-set on revisions. Keys are NATS KV keys (see nats_keys.ts). */
export interface KvBucket {
  /** The live value of `key`, or null when absent or deleted. */
  get(key: string): Promise<KvEntryView | null>;
  /** Stores a new key; throws `CasConflict` when a live value exists. */
  create(key: string, text: string): Promise<number>;
  /** Stores `text` whatever was there. */
  put(key: string, text: string): Promise<number>;
  /** Replaces the value at `revision`; throws `CasConflict` when it changed since. */
  update(key: string, text: string, revision: number): Promise<number>;
  /** Deletes the value at `revision`; throws `CasConflict` when it changed since. */
  remove(key: string, revision: number): Promise<void>;
  /** Every key with a live value, or those matching `filter` (NATS subject wildcards: `*`, `>`). */
  keys(filter?: string): Promise<string[]>;
  /**
   * Calls `onChange` each time `key` is written or deleted from now on (the value is not passed: read
   * it). Resolves, once the servers watch it, to the function that stops the watch.
   */
  watch(key: string, onChange: () => void): Promise<() => void>;
}

/** One stored message of a stream. */
export interface StreamMessage {
  seq: number;
  subject: string;
  text: string;
}

/** A JetStream stream as the session stores see it: per-subject compare-and-append, reads, deletes. */
export interface MessageStream {
  /**
   * Appends `text` on `subject` only if the subject's last message is `lastSeq` (0: none yet), so
   * a line is never doubled or reordered; throws `CasConflict` when another writer appended first.
   * `msgId` (Nats-Msg-Id) makes a repeat within the stream's duplicate window a no-op (`duplicate`).
   */
  append(subject: string, text: string, options: { lastSeq: number; msgId?: string }): Promise<{
    seq: number;
    duplicate: boolean;
  }>;
  /** Every message on `subject`, oldest first. */
  read(subject: string): Promise<StreamMessage[]>;
  /** The last message on `subject`, or null when it has none. */
  last(subject: string): Promise<StreamMessage | null>;
  /** The largest message the servers take, in bytes (their max_payload). */
  readonly maxPayload: number;
  /** Deletes one message; false when it was gone already. */
  remove(seq: number): Promise<boolean>;
  /** Deletes every message on `subject`. */
  purge(subject: string): Promise<void>;
}

/** A compare-and-set lost: someone else wrote the key since it was read. */
export class CasConflict extends Error {
  constructor(key: string) {
    super(`Another writer changed ${JSON.stringify(key)} first`);
    this.name = "CasConflict";
  }
}

export interface NatsLinkOptions {
  /** The text of a `.creds` file (user JWT and nkey seed), when the servers want one. */
  credsText?: string;
  /** An nkey seed (`SU…`), when the servers authenticate by nkey. */
  nkeySeed?: string;
  /** What the connection calls itself on the servers (shown by `nats server report connections`). */
  name?: string;
  /** Waits between retries (default: the real clock). */
  clock?: Clock;
  /** How long opening a bucket, stream, queue or object store keeps trying (default OPEN_WITHIN_MS). */
  openWithinMs?: number | undefined;
  /** How long one read through a consumer may take before it is tried again (default READ_WITHIN_MS). */
  readWithinMs?: number | undefined;
}

export interface StreamOptions {
  /** The subjects the stream keeps (e.g. `blade.inbox.>`). */
  subjects: string[];
  replicas: number;
}

export interface BucketOptions {
  /** How many servers keep a copy (1, or 3 on a 3-node cluster). */
  replicas: number;
}

/** Named blobs (git bundles): put whole, read whole. */
export interface ObjectBucket {
  put(name: string, bytes: Uint8Array): Promise<void>;
  /** The blob, or null when there is none. */
  get(name: string): Promise<Uint8Array | null>;
  remove(name: string): Promise<void>;
}

/** A live connection to a NATS server or cluster. */
export interface NatsLink extends AsyncDisposable {
  /** Opens the bucket, creating it with `options` when it does not exist yet. */
  bucket(name: string, options: BucketOptions): Promise<KvBucket>;
  /** Opens the stream, creating it with `options` when it does not exist yet. */
  stream(name: string, options: StreamOptions): Promise<MessageStream>;
  /** Opens the work queue `name` (a stream and one durable consumer every taker shares). */
  queue(name: string, options: QueueOptions): Promise<JobQueue>;
  /** Opens the object store `name`, creating it when absent. */
  objects(name: string, options: BucketOptions): Promise<ObjectBucket>;
  /**
   * How many servers the store spans: those the URL names and those the servers announce; a server
   * that names its cluster counts as three at least (a store's cluster has three nodes or more).
   */
  readonly servers: number;
  close(): Promise<void>;
}

/**
 * How long one read through a consumer (an object's chunks, a bucket's keys) may take before it is
 * given up and tried again: such reads have no timeout of their own (nats_retry.ts `within`).
 */
export const READ_WITHIN_MS = 60_000;

/** nats-server's default max_payload (1 MiB), when the server did not say. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** JetStream's "wrong last sequence" API error: the CAS lost. */
const WRONG_LAST_SEQUENCE = 10071;

function isCasError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const api = error as { code?: unknown; message?: unknown; apiError?: () => { err_code?: number } };
  if (typeof api.apiError === "function" && api.apiError()?.err_code === WRONG_LAST_SEQUENCE) return true;
  return typeof api.message === "string" && api.message.includes("wrong last sequence");
}

/** Connects to the servers of `url`; BladeError `store_unavailable` when none answers. */
export async function connectNats(url: NatsStoreUrl, options: NatsLinkOptions = {}): Promise<NatsLink> {
  const [
    { connect, credsAuthenticator, nkeyAuthenticator },
    { Kvm, KvWatchInclude },
    { jetstream, jetstreamManager, AckPolicy, RetentionPolicy },
    { Objm },
  ] = await Promise.all([
    importNpm("@nats-io/transport-node", () => import("@nats-io/transport-node"), {
      exports: ["connect", "credsAuthenticator", "nkeyAuthenticator"],
    }),
    importNpm("@nats-io/kv", () => import("@nats-io/kv"), { exports: ["Kvm", "KvWatchInclude"] }),
    importNpm("@nats-io/jetstream", () => import("@nats-io/jetstream"), {
      exports: ["jetstream", "jetstreamManager", "AckPolicy", "RetentionPolicy"],
    }),
    importNpm("@nats-io/obj", () => import("@nats-io/obj"), { exports: ["Objm"] }),
  ]);
  const encoder = new TextEncoder();
  const authenticator = options.credsText !== undefined
    ? credsAuthenticator(encoder.encode(options.credsText))
    : options.nkeySeed !== undefined
    ? nkeyAuthenticator(encoder.encode(options.nkeySeed.trim()))
    : undefined;
  let nc;
  try {
    nc = await connect({
      servers: url.servers,
      name: options.name ?? "blade",
      ...(url.tls ? { tls: {} } : {}),
      ...(authenticator === undefined ? {} : { authenticator }),
      maxReconnectAttempts: -1,
    });
  } catch (error) {
    throw new BladeError(
      "store_unavailable",
      `Cannot reach the NATS store at ${url.servers.join(",")}: ${(error as Error).message}`,
      {
        hint: "Check that nats-server runs there with JetStream (-js), and the credentials and TLS setting.",
      },
    );
  }
  const kvm = new Kvm(nc);
  const clock = options.clock ?? realClock();
  const patience = {
    clock,
    openWithinMs: options.openWithinMs ?? OPEN_WITHIN_MS,
    readWithinMs: options.readWithinMs ?? READ_WITHIN_MS,
  };
  const policies = { ack: AckPolicy.Explicit, work: RetentionPolicy.Workqueue };
  // One manager per connection; made without the account-info request (nothing to ask the servers).
  const manager = jetstreamManager(nc, { checkAPI: false });
  const close = async () => {
    if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
  };
  return {
    bucket: (name, bucketOptions) =>
      openBucket(
        { kvm, jsm: manager, patience, updatesOnly: KvWatchInclude.UpdatesOnly },
        name,
        bucketOptions,
      ),
    stream: (name, streamOptions) =>
      openStream(
        { js: jetstream(nc), jsm: manager, maxPayload: nc.info?.max_payload, patience },
        name,
        streamOptions,
      ),
    queue: (name, queueOptions) =>
      openQueue({ js: jetstream(nc), jsm: manager, patience, ...policies }, name, queueOptions),
    objects: (name, bucketOptions) =>
      openObjects({ objm: new Objm(nc), jsm: manager, patience }, name, bucketOptions),
    // A clustered server names its cluster (also when it advertises no other member to clients).
    servers: nc.info?.cluster === undefined
      ? new Set([...url.servers, ...(nc.info?.connect_urls ?? [])]).size
      : Math.max(3, url.servers.length),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The KV view of bucket `name`, created with `options` when absent. */
async function openBucket(
  client: {
    kvm: Kvm;
    jsm: Promise<JetStreamManager>;
    patience: Patience;
    updatesOnly: typeof KvWatchInclude.UpdatesOnly;
  },
  name: string,
  bucketOptions: BucketOptions,
): Promise<KvBucket> {
  // No direct gets: any replica may answer those, a follower from before the last write. Reads
  // through the stream leader see every acknowledged write (read-your-writes across machines).
  // An existing bucket is opened as it is (never made again with this client's replica count).
  const { kvm } = client;
  const { clock, readWithinMs = READ_WITHIN_MS } = client.patience;
  const jsm = await client.jsm;
  const kv = await opening(client.patience, {
    what: `the bucket ${name}`,
    open: () =>
      openOrCreate({
        exists: () => streamExists(jsm, `KV_${name}`),
        open: () => kvm.open(name, { allow_direct: false }),
        create: () => kvm.create(name, { history: 1, replicas: bucketOptions.replicas, allow_direct: false }),
      }),
  });
  const [stream, prefix] = [`KV_${name}`, `$KV.${name}.`];
  const cas = async <T>(key: string, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (error) {
      if (isCasError(error)) throw new CasConflict(key);
      throw error;
    }
  };
  return {
    async get(key) {
      const entry = await retried(clock, () => kv.get(key));
      if (entry === null || entry.operation !== "PUT") return null;
      return { revision: entry.revision, text: entry.string() };
    },
    create: (key, text) => cas(key, () => kv.create(key, text)),
    put: (key, text) => retried(clock, () => kv.put(key, text)),
    update: (key, text, revision) => cas(key, () => kv.update(key, text, revision)),
    async remove(key, revision) {
      await cas(key, () => kv.delete(key, { previousSeq: revision }));
      await purgeMarker(
        async () => {
          const last = await jsm.streams.getMessage(stream, { last_by_subj: prefix + key }).catch(() => null);
          return last && { seq: last.seq, operation: last.header?.get("KV-Operation") || undefined };
        },
        (seq) =>
          retried(clock, async () => void await jsm.streams.purge(stream, { filter: prefix + key, seq })),
      );
    },
    keys: (filter = ">") =>
      retried(clock, () =>
        liveKeys({
          listed: () =>
            within(async () => {
              // An ordered consumer, which restarts (and may repeat keys) on a cluster.
              const found = new Set<string>();
              for await (const key of await kv.keys(filter)) found.add(key);
              return [...found];
            }, { clock, ms: readWithinMs, what: `listing the keys of ${name}` }),
          async stored() {
            const info = await jsm.streams.info(stream, { subjects_filter: prefix + filter });
            return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
          },
          live: async (key) => (await retried(clock, () => kv.get(key)))?.operation === "PUT",
        })),
    async watch(key, onChange) {
      // Headers only, updates only: a wake-up, not a copy of the value (an ephemeral ordered consumer).
      const changes = await kv.watch({ key, headers_only: true, include: client.updatesOnly });
      void (async () => {
        for await (const _ of changes) onChange();
      })().catch(() => {});
      return () => changes.stop();
    },
  };
}

/** The object store `name`, created when absent. */
async function openObjects(
  client: { objm: Objm; jsm: Promise<JetStreamManager>; patience: Patience },
  name: string,
  options: BucketOptions,
): Promise<ObjectBucket> {
  const { objm } = client;
  const { clock, readWithinMs = READ_WITHIN_MS } = client.patience;
  const jsm = await client.jsm;
  const store = await opening(client.patience, {
    what: `the object store ${name}`,
    open: () =>
      openOrCreate({
        exists: () => streamExists(jsm, `OBJ_${name}`),
        open: () => objm.open(name),
        create: () => objm.create(name, { replicas: options.replicas }),
      }),
  });
  return {
    // A put again replaces the object whole: safe to retry after a lost answer.
    put: (key, bytes) => retried(clock, async () => void await store.putBlob({ name: key }, bytes)),
    get: (key) =>
      retried(
        clock,
        () => within(() => store.getBlob(key), { clock, ms: readWithinMs, what: `reading ${key}` }),
      ),
    async remove(key) {
      await store.delete(key).catch((e) => {
        if (!/not found/i.test((e as Error).message)) throw e;
      });
    },
  };
}

/** The stream view of stream `name`, created with `options` when absent. */
async function openStream(
  client: {
    js: JetStreamClient;
    jsm: Promise<JetStreamManager>;
    maxPayload: number | undefined;
    patience: Patience;
  },
  name: string,
  streamOptions: StreamOptions,
): Promise<MessageStream> {
  const { js } = client;
  const { clock } = client.patience;
  const jsm = await client.jsm;
  // No direct gets, as for the bucket: reads through the leader see every acknowledged append.
  await opening(client.patience, {
    what: `the stream ${name}`,
    open: () =>
      ensureStream(jsm, name, {
        subjects: streamOptions.subjects,
        num_replicas: streamOptions.replicas,
        allow_direct: false,
      }),
  });
  const decoder = new TextDecoder();
  return {
    async append(subject, text, { lastSeq, msgId }) {
      try {
        const ack = await js.publish(subject, text, {
          expect: { lastSubjectSequence: lastSeq },
          ...(msgId === undefined ? {} : { msgID: msgId }),
        });
        return { seq: ack.seq, duplicate: ack.duplicate };
      } catch (error) {
        if (isCasError(error)) throw new CasConflict(subject);
        throw error;
      }
    },
    maxPayload: client.maxPayload ?? DEFAULT_MAX_PAYLOAD,
    last: (subject) =>
      retried(clock, async () => {
        const m = await jsm.streams.getMessage(name, { last_by_subj: subject });
        return m === null ? null : { seq: m.seq, subject: m.subject, text: decoder.decode(m.data) };
      }),
    read: (subject) =>
      retried(clock, async () => {
        const out: StreamMessage[] = [];
        for (let seq = 1;;) {
          // The server's MSG.GET takes next_by_subj (the client's type names only seq and last_by_subj).
          const query = { next_by_subj: subject, seq } as unknown as { seq: number };
          const m = await jsm.streams.getMessage(name, query);
          if (m === null) return out;
          out.push({ seq: m.seq, subject: m.subject, text: decoder.decode(m.data) });
          seq = m.seq + 1;
        }
      }),
    purge: (subject) => retried(clock, async () => void await jsm.streams.purge(name, { filter: subject })),
    remove: (seq) =>
      retried(clock, () =>
        jsm.streams.deleteMessage(name, seq).catch((e) => {
          if (/no message found/i.test((e as Error).message)) return false;
          throw e;
        })),
  };
}
