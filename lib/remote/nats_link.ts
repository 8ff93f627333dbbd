// Owns Blade's one use of the NATS client (`@nats-io/*`, imported on first connect so nothing of it
// loads unless `--store nats://…` is given): connecting with the credentials and TLS the caller asks
// for, and the narrow KV bucket view the NATS store is written against. Everything else in Blade sees
// only `NatsLink` and `KvBucket`; the client's own types never leave this file.

import { BladeError } from "../errors.ts";
import { importNpm } from "../npm_module.ts";
import type { NatsStoreUrl } from "./store_url.ts";

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
  /** Every key with a live value. */
  keys(): Promise<string[]>;
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

export interface BucketOptions {
  /** How many servers keep a copy (1, or 3 on a 3-node cluster). */
  replicas: number;
}

/** A live connection to a NATS server or cluster. */
export interface NatsLink extends AsyncDisposable {
  /** Opens the bucket, creating it with `options` when it does not exist yet. */
  bucket(name: string, options: BucketOptions): Promise<KvBucket>;
  close(): Promise<void>;
}

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
  const [{ connect, credsAuthenticator, nkeyAuthenticator }, { Kvm }] = await Promise.all([
    importNpm("@nats-io/transport-node", () => import("@nats-io/transport-node"), {
      exports: ["connect", "credsAuthenticator", "nkeyAuthenticator"],
    }),
    importNpm("@nats-io/kv", () => import("@nats-io/kv"), { exports: ["Kvm"] }),
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
    async bucket(name, bucketOptions) {
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
        keys: () =>
          retried(async () => {
            // The listing rides an ordered consumer, which restarts (and may repeat keys) on a cluster.
            const found = new Set<string>();
            for await (const key of await kv.keys()) found.add(key);
            return [...found];
          }),
      };
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
