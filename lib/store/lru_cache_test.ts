import assert from "node:assert/strict";
import { LruCache } from "./lru_cache.ts";

Deno.test("evicts the least recently used entry", () => {
  const cache = new LruCache<string, number>(2);
  cache.set("a", 1);
  cache.set("b", 2);
  assert.equal(cache.get("a"), 1);
  cache.set("c", 3);
  assert.deepEqual([cache.has("a"), cache.has("b"), cache.has("c")], [true, false, true]);
  assert.equal(cache.size, 2);
});

Deno.test("pinned entries are skipped and may exceed the limit", () => {
  const cache = new LruCache<string, { pinned: boolean }>(2, { pinned: (v) => v.pinned });
  cache.set("p1", { pinned: true });
  cache.set("u1", { pinned: false });
  cache.set("u2", { pinned: false });
  assert.deepEqual([cache.has("p1"), cache.has("u1"), cache.has("u2")], [true, false, true]);
  cache.set("p2", { pinned: true });
  cache.set("p3", { pinned: true });
  assert.deepEqual([cache.has("p1"), cache.has("p2"), cache.has("p3"), cache.has("u2")], [
    true,
    true,
    true,
    false,
  ]);
  assert.equal(cache.size, 3);
  cache.set("p1", { pinned: false });
  cache.set("u3", { pinned: false });
  assert.equal(cache.has("p1"), false);
  assert.equal(cache.has("u3"), false, "the newest unpinned entry goes when everything older is pinned");
  assert.equal(cache.size, 2);
});

Deno.test("has() does not refresh an entry; delete() removes it", () => {
  const cache = new LruCache<string, number>(2);
  cache.set("a", 1);
  cache.set("b", 2);
  assert.equal(cache.has("a"), true);
  cache.set("c", 3);
  assert.equal(cache.has("a"), false);
  cache.delete("b");
  assert.equal(cache.get("b"), undefined);
  assert.equal(cache.size, 1);
});

Deno.test("LruCache: a cache full of pinned entries keeps them all, and evicts the unpinned ones among them first", () => {
  const cache = new LruCache<string, { pinned: boolean }>(2, { pinned: (v) => v.pinned });
  for (let i = 0; i < 5; i++) cache.set(`p${i}`, { pinned: true });
  assert.equal(cache.size, 5);
  cache.set("u1", { pinned: false });
  assert.equal(cache.has("u1"), false, "over the limit: the only evictable entry goes");
  cache.set("p0", { pinned: false }); // no longer pinned: evictable now
  assert.equal(cache.has("p0"), false);
  assert.equal(cache.size, 4);
  cache.delete("p1");
  cache.delete("missing");
  assert.equal(cache.size, 3);
});
