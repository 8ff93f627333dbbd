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
import type { NatsLink, NatsLinkOptions } from "./nats_link.ts";
import type { NatsSidecarStore } from "./nats_sidecar_store.ts";
import type { NatsStoreUrl } from "./store_url.ts";

/** The KV bucket Blade's records live in. */
export const SIDECAR_BUCKET = "blade_sidecars";

export interface LazyNatsStoreOptions {
  fs: Fs;
  clock: Clock;
  /** The `.creds` file or nkey seed file (`--store-creds`, setting `storeCreds`). */
  credsFile?: string | undefined;
  redact?: (text: string) => string;
  /** What the connection calls itself on the servers. */
  name?: string;
}

/** How many servers keep a copy: three when the URL names a cluster of three or more, else one. */
export function replicasOf(url: NatsStoreUrl): number {
  return url.servers.length >= 3 ? 3 : 1;
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

export class LazyNatsStore implements SidecarStore, AsyncDisposable {
  #url: NatsStoreUrl;
  #o: LazyNatsStoreOptions;
  #opened: Promise<{ link: NatsLink; store: NatsSidecarStore }> | undefined;

  constructor(url: NatsStoreUrl, options: LazyNatsStoreOptions) {
    this.#url = url;
    this.#o = options;
  }

  #store(): Promise<NatsSidecarStore> {
    this.#opened ??= this.#open();
    return this.#opened.then((o) => o.store);
  }

  async #open(): Promise<{ link: NatsLink; store: NatsSidecarStore }> {
    const { fs, clock, credsFile, redact, name } = this.#o;
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
    const [{ connectNats }, { NatsSidecarStore }] = await Promise.all([
      import("./nats_link.ts"),
      import("./nats_sidecar_store.ts"),
    ]);
    const link = await connectNats(this.#url, { ...credentials, name: name ?? "blade" });
    try {
      const bucket = await link.bucket(SIDECAR_BUCKET, { replicas: replicasOf(this.#url) });
      return {
        link,
        store: new NatsSidecarStore(bucket, { clock, ...(redact === undefined ? {} : { redact }) }),
      };
    } catch (error) {
      await link.close();
      throw error;
    }
  }

  /** Drains the connection when one was opened (a store never used never connected). */
  async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = undefined;
    if (opened === undefined) return;
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
