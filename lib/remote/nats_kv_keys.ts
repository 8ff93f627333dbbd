// Owns listing a KV bucket's live keys so that every acknowledged write is seen, and clearing the marker
// a delete leaves. The client's own listing (`kv.keys()`) rides an ordered consumer, which a replica
// may host before it has caught up: on a 3-node cluster it sometimes listed nothing right after four
// acknowledged writes. The stream leader's subject list is the authority; the consumer's listing only
// spares a read for the keys it already knows are live. Deleted keys leave a marker message, so a
// delete is followed by purging that marker: the subject list then stays the live keys and the reads
// stay few.

/** Where a listing's keys come from (nats_link.ts gives the client's calls). */
export interface KeySources {
  /** The keys the client's listing found live: may lag behind the last writes. */
  listed(): Promise<string[]>;
  /** Every key with a message in the stream (a delete's marker included), as the stream leader has them. */
  stored(): Promise<string[]>;
  /** Whether `key` holds a live value now (a read the stream leader answers). */
  live(key: string): Promise<boolean>;
}

/**
 * The keys with a live value: those the stream leader stores, the ones the client's listing did not
 * find read once each (a write the listing missed, or a delete's marker not yet purged). A key deleted
 * while the listing ran may still be in it, as with any listing; readers find it gone.
 */
export async function liveKeys(sources: KeySources): Promise<string[]> {
  const [listed, stored] = await Promise.all([sources.listed(), sources.stored()]);
  const known = new Set(listed);
  const unknown = stored.filter((key) => !known.has(key));
  const found = await Promise.all(unknown.map(async (key) => (await sources.live(key)) ? [key] : []));
  const storedSet = new Set(stored);
  return [...listed.filter((key) => storedSet.has(key)), ...found.flat()].sort();
}

/** The last message of a subject as the marker check needs it. */
export interface LastMessage {
  seq: number;
  /** The KV operation header: "DEL" or "PURGE" for a delete's marker, absent for a value. */
  operation: string | undefined;
}

/**
 * After a delete: removes the subject's marker (`last` reads the subject's last message), unless a
 * value was written since. Only messages before `purgeBefore`'s sequence go, so a newer write is never
 * lost. Best effort: a marker left costs one read per listing.
 */
export async function purgeMarker(
  last: () => Promise<LastMessage | null>,
  purgeBefore: (seq: number) => Promise<void>,
): Promise<void> {
  try {
    const message = await last();
    if (message === null || (message.operation !== "DEL" && message.operation !== "PURGE")) return;
    await purgeBefore(message.seq + 1);
  } catch {
    // The servers did not answer, or the subject changed: the marker stays (see above).
  }
}
