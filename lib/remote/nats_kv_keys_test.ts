// lib/remote/nats_kv_keys.ts: a listing sees what the stream leader stores even when the client's
// consumer listing lags (it listed nothing right after four writes on a 3-node cluster), and a delete's
// marker is purged only while it is still the subject's last message.

import assert from "node:assert/strict";
import { type KeySources, liveKeys, purgeMarker } from "./nats_kv_keys.ts";

function sources(o: { listed: string[]; stored: string[]; live: string[] }): KeySources & { read: string[] } {
  const read: string[] = [];
  return {
    read,
    listed: () => Promise.resolve(o.listed),
    stored: () => Promise.resolve(o.stored),
    live: (key) => {
      read.push(key);
      return Promise.resolve(o.live.includes(key));
    },
  };
}

Deno.test("liveKeys: what the listing and the stream leader say, each case", async () => {
  const cases: {
    name: string;
    listed: string[];
    stored: string[];
    live: string[];
    keys: string[];
    read: string[];
  }[] = [
    {
      name: "both agree",
      listed: ["a", "b"],
      stored: ["b", "a"],
      live: ["a", "b"],
      keys: ["a", "b"],
      read: [],
    },
    {
      name: "the listing lags behind four writes",
      listed: [],
      stored: ["r1", "r2", "r3", "r4"],
      live: ["r1", "r2", "r3", "r4"],
      keys: ["r1", "r2", "r3", "r4"],
      read: ["r1", "r2", "r3", "r4"],
    },
    {
      name: "an unpurged delete marker is read and left out",
      listed: ["a"],
      stored: ["a", "gone"],
      live: ["a"],
      keys: ["a"],
      read: ["gone"],
    },
    {
      name: "a key the lagging listing has but the leader purged",
      listed: ["a", "old"],
      stored: ["a"],
      live: ["a"],
      keys: ["a"],
      read: [],
    },
    { name: "nothing stored", listed: [], stored: [], live: [], keys: [], read: [] },
  ];
  for (const c of cases) {
    const s = sources(c);
    assert.deepEqual(await liveKeys(s), c.keys, c.name);
    assert.deepEqual(s.read.sort(), c.read, `${c.name}: reads`);
  }
});

Deno.test("purgeMarker purges up to a delete's marker only, and never throws", async () => {
  const purged: number[] = [];
  const purge = (seq: number) => {
    purged.push(seq);
    return Promise.resolve();
  };
  await purgeMarker(() => Promise.resolve({ seq: 41, operation: "DEL" }), purge);
  await purgeMarker(() => Promise.resolve({ seq: 50, operation: "PURGE" }), purge);
  // A value written after the delete is the subject's last message: nothing is purged.
  await purgeMarker(() => Promise.resolve({ seq: 60, operation: undefined }), purge);
  await purgeMarker(() => Promise.resolve(null), purge);
  assert.deepEqual(purged, [42, 51]);
  await purgeMarker(() => Promise.reject(new Error("timeout")), purge);
  await purgeMarker(
    () => Promise.resolve({ seq: 70, operation: "DEL" }),
    () => Promise.reject(new Error("timeout")),
  );
});
