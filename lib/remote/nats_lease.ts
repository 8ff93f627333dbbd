// Owns session leases in the NATS store (docs/guides/remote.md): one KV entry per session holding the
// holder (session, PID, identity, machine) and an expiry. Taking a lease is a create (none yet) or a
// compare-and-set on the revision read (an expired or corrupt one), so two machines never both win;
// renewing is a compare-and-set on the revision this holder wrote last, so a holder whose lease was
// taken over fails to renew and learns it lost (fencing by revision). A holder also counts its lease
// lost once its own expiry passed without a renewal (cut off from the servers, or stopped): it must stop
// and commit nothing, whether or not anyone took the lease yet. Expiry uses each machine's clock, so
// their skew must stay well under the lease's time to live.

import type { Clock } from "../sys/clock.ts";
import type { ProcessIdentity } from "../sys/process.ts";
import type { HeldLease, LeaseHolder } from "../session/lease.ts";
import { CasConflict, type KvBucket } from "./nats_link.ts";
import { isTransient, pauseAfter } from "./nats_retry.ts";
import { keyOfId } from "./nats_keys.ts";

/** The KV bucket the leases live in. */
export const LEASE_BUCKET = "blade_leases";
/** How long a lease lasts without a renewal; holders renew well within it (a third of it). */
export const LEASE_TTL_MS = 30_000;

/** What a NATS lease entry holds. */
export interface NatsLeaseHolder extends LeaseHolder {
  machine: string;
  expiresAt: number;
}

export type NatsLeaseEntry =
  | { kind: "absent" }
  | { kind: "corrupt" }
  | { kind: "held"; holder: NatsLeaseHolder };

/** Pure: the entry's text → what it says. Never throws. */
export function parseLeaseEntry(text: string | null): NatsLeaseEntry {
  if (text === null) return { kind: "absent" };
  try {
    const o = JSON.parse(text) as Partial<NatsLeaseHolder> | null;
    if (
      typeof o === "object" && o !== null && typeof o.sessionId === "string" && typeof o.pid === "number" &&
      typeof o.acquiredAt === "number" && typeof o.machine === "string" && typeof o.expiresAt === "number"
    ) return { kind: "held", holder: o as NatsLeaseHolder };
  } catch { /* corrupt */ }
  return { kind: "corrupt" };
}

/** Pure: may a new holder take the lease now? An unexpired holder keeps it, whoever asks. */
export function natsLeaseVerdict(
  entry: NatsLeaseEntry,
  now: number,
): { take: true; takeover: HeldLease["takeover"] } | { take: false; holder: NatsLeaseHolder } {
  if (entry.kind === "absent") return { take: true, takeover: "none" };
  if (entry.kind === "corrupt") return { take: true, takeover: "corrupt" };
  return now >= entry.holder.expiresAt
    ? { take: true, takeover: "stale" }
    : { take: false, holder: entry.holder };
}

export interface NatsLeasesOptions {
  clock: Clock;
  /** This machine's name (recorded in the holder). */
  machine: string;
  ttlMs?: number;
}

/** How many times taking a lease re-reads after another taker wrote first. */
const TAKE_ATTEMPTS = 16;

export class NatsLeases {
  #bucket: KvBucket;
  #o: NatsLeasesOptions;

  constructor(bucket: KvBucket, options: NatsLeasesOptions) {
    this.#bucket = bucket;
    this.#o = options;
  }

  /** The lease of `sessionId` for the process `owner`, or `{busy}` naming its unexpired holder. */
  async tryAcquire(
    sessionId: string,
    owner: { pid: number; identity?: ProcessIdentity },
  ): Promise<NatsLease | { busy: NatsLeaseHolder }> {
    const key = keyOfId(sessionId);
    const ttl = this.#o.ttlMs ?? LEASE_TTL_MS;
    for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
      const stored = await this.#bucket.get(key);
      const now = this.#o.clock.now();
      const verdict = natsLeaseVerdict(parseLeaseEntry(stored?.text ?? null), now);
      if (!verdict.take) return { busy: verdict.holder };
      const holder: NatsLeaseHolder = {
        sessionId,
        pid: owner.pid,
        ...(owner.identity === undefined ? {} : { identity: owner.identity }),
        machine: this.#o.machine,
        acquiredAt: now,
        expiresAt: now + ttl,
      };
      const text = JSON.stringify(holder);
      try {
        const revision = stored === null
          ? await this.#bucket.create(key, text)
          : await this.#bucket.update(key, text, stored.revision);
        return new NatsLease(this.#bucket, { key, holder, revision, takeover: verdict.takeover, ...this.#o });
      } catch (error) {
        // Another taker won (or a lost answer: the next read says who holds it, perhaps us — then busy).
        if (!(error instanceof CasConflict) && !isTransient(error)) throw error;
        if (!(error instanceof CasConflict)) await pauseAfter(this.#o.clock, attempt + 1);
      }
    }
    const now = parseLeaseEntry((await this.#bucket.get(key))?.text ?? null);
    if (now.kind === "held") return { busy: now.holder };
    throw new CasConflict(key);
  }
}

/** A held NATS lease: renewed by CAS on its revision; lost once taken over or expired. */
export class NatsLease implements HeldLease {
  readonly takeover: HeldLease["takeover"];
  #bucket: KvBucket;
  #key: string;
  #holder: NatsLeaseHolder;
  #revision: number;
  #o: NatsLeasesOptions;
  #lost = false;
  #renewing: Promise<boolean> | undefined;
  /** The last renewal whose answer was lost (it may have landed). */
  #unanswered: { text: string; holder: NatsLeaseHolder } | undefined;

  constructor(
    bucket: KvBucket,
    o: NatsLeasesOptions & {
      key: string;
      holder: NatsLeaseHolder;
      revision: number;
      takeover: HeldLease["takeover"];
    },
  ) {
    this.#bucket = bucket;
    this.#key = o.key;
    this.#holder = o.holder;
    this.#revision = o.revision;
    this.takeover = o.takeover;
    this.#o = o;
  }

  get holder(): NatsLeaseHolder {
    return { ...this.#holder };
  }

  /** Whether this holder may still act (write, commit): not taken over, not expired, not released. */
  held(): boolean {
    return !this.#lost && this.#o.clock.now() < this.#holder.expiresAt;
  }

  /**
   * Extends the lease by its time to live, by CAS on the revision this holder wrote last. False (and
   * lost for good) when it expired first or another holder took it: the caller must stop. One renewal
   * at a time: a call while one is in flight (the servers electing a leader answer slowly) gets that
   * one's answer, so two renewals never race with the same revision and lose the lease to each other.
   */
  renew(): Promise<boolean> {
    this.#renewing ??= this.#renew().finally(() => this.#renewing = undefined);
    return this.#renewing;
  }

  async #renew(): Promise<boolean> {
    if (!this.held()) {
      this.#lost = true;
      return false;
    }
    const now = this.#o.clock.now();
    const next = { ...this.#holder, expiresAt: now + (this.#o.ttlMs ?? LEASE_TTL_MS) };
    try {
      this.#revision = await this.#bucket.update(this.#key, JSON.stringify(next), this.#revision);
      this.#holder = next;
      this.#unanswered = undefined;
      return true;
    } catch (error) {
      if (!(error instanceof CasConflict) && !isTransient(error)) throw error;
      // A renewal whose answer was lost may have landed: the entry is then ours at a newer revision.
      // Adopted, or this CAS (and every later one) would fail against our own write.
      if (error instanceof CasConflict && this.#unanswered === undefined) {
        this.#lost = true;
        return false;
      }
      const stored = await this.#bucket.get(this.#key).catch(() => null);
      const ours = [JSON.stringify(next), this.#unanswered?.text];
      if (stored !== null && ours.includes(stored.text)) {
        this.#revision = stored.revision;
        this.#holder = stored.text === ours[0] ? next : this.#unanswered!.holder;
        this.#unanswered = undefined;
        return this.held();
      }
      if (error instanceof CasConflict) {
        this.#lost = true; // another holder wrote it
        return false;
      }
      // Unknown outcome: still held until its old expiry; the next renewal says.
      this.#unanswered = { text: JSON.stringify(next), holder: next };
      return this.held();
    }
  }

  /** Deletes the entry while it is still this holder's (a taken-over lease is left to its new holder). */
  async release(): Promise<void> {
    if (this.#lost) return;
    this.#lost = true;
    await this.#bucket.remove(this.#key, this.#revision).catch(() => {
      // Taken over since, or the servers did not answer: it expires by itself.
    });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
