// Owns merging two copies of one conversation (docs/guides/subagents.md, "Crash recovery"): a
// sidecar's messages and the messages rebuilt from the child's transcript overlap — the transcript
// holds what the child said since it started, the sidecar what it was given (a resumed source's
// history) and, once it finished, everything. The merge keeps the sidecar's messages and appends the
// transcript's messages past the longest tail/head overlap. Pure.

import type { Message } from "../protocol/messages.ts";

function key(m: Message): string {
  return JSON.stringify(m);
}

/** The length of the longest suffix of `a` that equals a prefix of `b`. */
export function overlapLength(a: readonly Message[], b: readonly Message[]): number {
  const ak = a.map(key);
  const bk = b.map(key);
  for (let k = Math.min(ak.length, bk.length); k > 0; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = ak[ak.length - k + i] === bk[i];
    if (same) return k;
  }
  return 0;
}

/**
 * `sidecar` followed by the part of `transcript` that is not already its tail. A compacted transcript
 * (`compacted`: it holds a compaction boundary) is whole on its own: its summary covers what the
 * sidecar was given, so it is the conversation.
 */
export function mergeByOverlap(
  sidecar: readonly Message[],
  transcript: readonly Message[],
  o: { compacted?: boolean } = {},
): Message[] {
  if (o.compacted === true) return [...transcript];
  // The transcript may be wholly inside the sidecar's tail (a finished run saved everything).
  const k = overlapLength(sidecar, transcript);
  return [...sidecar, ...transcript.slice(k)];
}
