// Owns Blade's one use of the NATS client (`@nats-io/*`, imported on first connect so nothing of it
// loads unless `--store nats://…` is given): connecting with the credentials and TLS the caller asks
// for, and the narrow views the NATS store is written against: a KV bucket, and a message stream with
// per-subject compare-and-append. Everything else in Blade sees only `NatsLink`, `KvBucket` and
// `MessageStream`; the client's own types never leave this file.

import { BladeError } from "../errors.ts";
import { importNpm } from "../npm_module.ts";
import type { NatsStoreUrl } from "./store_url.ts";
// Types only (erased): the client's code is imported on first connect, in connectNats.
import type { Kvm } from "@nats-io/kv";
import type { AckPolicy, JetStreamClient, JetStreamManager, RetentionPolicy } from "@nats-io/jetstream";
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

/** One job taken from a work queue: unacknowledged until `ack`; redelivered if never acknowledged. */
export interface QueuedJob {
  text: string;
  /** 1 on the first delivery, 2 on the first redelivery, … */
  deliveries: number;
  /** The job is still being worked on: its acknowledgement wait starts over. */
  working(): void;
  /** Done: the servers drop the job (resolves once they confirmed it). */
  ack(): Promise<void>;
  /** Not now: delivered again (to any worker) after `delayMs`. */
  nak(delayMs: number): void;
}

/** A work queue: each job goes to one taker at a time, again after `ackWaitMs` without an ack. */
export interface JobQueue {
  /** Publishes a job; a repeat of `msgId` within the duplicate window is dropped by the servers. */
  publish(text: string, msgId: string): Promise<{ duplicate: boolean }>;
  /** The next job, or null when none came within `waitMs`. */
  next(waitMs: number): Promise<QueuedJob | null>;
  /** Jobs waiting or taken and not acknowledged yet. */
  pending(): Promise<number>;
}

export interface QueueOptions {
  subject: string;
  replicas: number;
  /**
   * How long a taken job may go without `working()` or `ack()` before it is delivered again; set when
   * the first taker of the queue (on any machine) makes its consumer.
   */
  ackWaitMs: number;
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
  close(): Promise<void>;
}

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

/** Errors after which the cluster may answer again (a node died, a new leader is being elected). */
const TRANSIENT = new Set(["TimeoutError", "NoRespondersError", "RequestError", "ConnectionError"]);

/** How many times an idempotent call (get, put, keys) is tried before the error is the caller's. */
const TRIES = 12;

/**
 * Whether `error` left the outcome of a write unknown and the cluster may answer a retry: a request
 * that timed out may still have been applied, so a writer re-reads before it writes again.
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return TRANSIENT.has(error.name) || /\b(timeout|no responders|503)\b/i.test(error.message);
}

async function retried<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= TRIES || !isTransient(error)) throw error;
    }
  }
}

/** Connects to the servers of `url`; BladeError `store_unavailable` when none answers. */
export async function connectNats(url: NatsStoreUrl, options: NatsLinkOptions = {}): Promise<NatsLink> {
  const [
    { connect, credsAuthenticator, nkeyAuthenticator },
    { Kvm },
    { jetstream, jetstreamManager, AckPolicy, RetentionPolicy },
    { Objm },
  ] = await Promise.all([
    importNpm("@nats-io/transport-node", () => import("@nats-io/transport-node"), {
      exports: ["connect", "credsAuthenticator", "nkeyAuthenticator"],
    }),
    importNpm("@nats-io/kv", () => import("@nats-io/kv"), { exports: ["Kvm"] }),
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
  const close = async () => {
    if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
  };
  return {
    bucket: (name, bucketOptions) => openBucket(kvm, name, bucketOptions),
    stream: (name, streamOptions) =>
      openStream(
        { js: jetstream(nc), jsm: jetstreamManager(nc), maxPayload: nc.info?.max_payload },
        name,
        streamOptions,
      ),
    queue: (name, queueOptions) =>
      openQueue(
        {
          js: jetstream(nc),
          jsm: jetstreamManager(nc),
          ack: AckPolicy.Explicit,
          work: RetentionPolicy.Workqueue,
        },
        name,
        queueOptions,
      ),
    objects: (name, bucketOptions) => openObjects(new Objm(nc), name, bucketOptions),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The KV view of bucket `name`, created with `options` when absent. */
async function openBucket(kvm: Kvm, name: string, bucketOptions: BucketOptions): Promise<KvBucket> {
  // No direct gets: any replica may answer those, a follower from before the last write. Reads
  // through the stream leader see every acknowledged write (read-your-writes across machines).
  const kv = await kvm.create(name, {
    history: 1,
    replicas: bucketOptions.replicas,
    allow_direct: false,
  });
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
      const entry = await retried(() => kv.get(key));
      if (entry === null || entry.operation !== "PUT") return null;
      return { revision: entry.revision, text: entry.string() };
    },
    create: (key, text) => cas(key, () => kv.create(key, text)),
    put: (key, text) => retried(() => kv.put(key, text)),
    update: (key, text, revision) => cas(key, () => kv.update(key, text, revision)),
    remove: (key, revision) => cas(key, () => kv.delete(key, { previousSeq: revision })),
    keys: (filter = ">") =>
      retried(async () => {
        // The listing rides an ordered consumer, which restarts (and may repeat keys) on a cluster.
        const found = new Set<string>();
        for await (const key of await kv.keys(filter)) found.add(key);
        return [...found];
      }),
  };
}

/** The durable consumer every worker shares: each job goes to one of them at a time. */
const QUEUE_CONSUMER = "blade_workers";

/** The work queue `name`: a work-queue stream on `options.subject` and its one shared durable consumer. */
async function openQueue(
  client: {
    js: JetStreamClient;
    jsm: Promise<JetStreamManager>;
    ack: typeof AckPolicy.Explicit;
    work: typeof RetentionPolicy.Workqueue;
  },
  name: string,
  options: QueueOptions,
): Promise<JobQueue> {
  const { js } = client;
  const jsm = await client.jsm;
  try {
    await jsm.streams.info(name);
  } catch {
    await jsm.streams.add({
      name,
      subjects: [options.subject],
      retention: client.work,
      num_replicas: options.replicas,
    });
  }
  // The consumer is made by the first taker (a publisher never needs it): its ack wait is that taker's.
  let consumer: ReturnType<typeof js.consumers.get> | undefined;
  const taking = () =>
    consumer ??= (async () => {
      try {
        await jsm.consumers.info(name, QUEUE_CONSUMER);
      } catch {
        await jsm.consumers.add(name, {
          durable_name: QUEUE_CONSUMER,
          ack_policy: client.ack,
          ack_wait: options.ackWaitMs * 1_000_000,
          max_deliver: -1,
          num_replicas: options.replicas,
        });
      }
      return await js.consumers.get(name, QUEUE_CONSUMER);
    })();
  const decoder = new TextDecoder();
  return {
    async publish(text, msgId) {
      const ack = await retried(() => js.publish(options.subject, text, { msgID: msgId }));
      return { duplicate: ack.duplicate };
    },
    async next(waitMs) {
      const m = await (await taking()).next({ expires: Math.max(waitMs, 1000) });
      if (m === null) return null;
      return {
        text: decoder.decode(m.data),
        deliveries: m.info.deliveryCount,
        working: () => m.working(),
        ack: async () => void await m.ackAck(),
        nak: (delayMs) => m.nak(delayMs),
      };
    },
    pending: async () => {
      const info = await jsm.streams.info(name);
      return info.state.messages;
    },
  };
}

/** The object store `name`, created when absent. */
async function openObjects(objm: Objm, name: string, options: BucketOptions): Promise<ObjectBucket> {
  const store = await objm.create(name, { replicas: options.replicas });
  return {
    async put(key, bytes) {
      await store.putBlob({ name: key }, bytes);
    },
    get: (key) => retried(() => store.getBlob(key)),
    async remove(key) {
      await store.delete(key).catch((e) => {
        if (!/not found/i.test((e as Error).message)) throw e;
      });
    },
  };
}

/** The stream view of stream `name`, created with `options` when absent. */
async function openStream(
  client: { js: JetStreamClient; jsm: Promise<JetStreamManager>; maxPayload: number | undefined },
  name: string,
  streamOptions: StreamOptions,
): Promise<MessageStream> {
  const { js } = client;
  const jsm = await client.jsm;
  try {
    await jsm.streams.info(name);
  } catch {
    // Absent: made now (a concurrent creator's identical config is accepted by the server).
    // No direct gets, as for the bucket: reads through the leader see every acknowledged append.
    await jsm.streams.add({
      name,
      subjects: streamOptions.subjects,
      num_replicas: streamOptions.replicas,
      allow_direct: false,
    });
  }
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
      retried(async () => {
        const m = await jsm.streams.getMessage(name, { last_by_subj: subject });
        return m === null ? null : { seq: m.seq, subject: m.subject, text: decoder.decode(m.data) };
      }),
    read: (subject) =>
      retried(async () => {
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
    purge: (subject) => retried(async () => void await jsm.streams.purge(name, { filter: subject })),
    remove: (seq) =>
      retried(() =>
        jsm.streams.deleteMessage(name, seq).catch((e) => {
          if (/no message found/i.test((e as Error).message)) return false;
          throw e;
        })
      ),
  };
}
