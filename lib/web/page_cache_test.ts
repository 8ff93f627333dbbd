// Tests of WebFetch's page cache: 15 minutes per URL by the caller's clock, bounded by entries and
// characters, oldest dropped first.

import assert from "node:assert/strict";
import {
  type CachedPage,
  PAGE_CACHE_MAX_CHARS,
  PAGE_CACHE_MAX_ENTRIES,
  PAGE_CACHE_TTL_MS,
  PageCache,
} from "./page_cache.ts";

const page = (text: string): CachedPage => ({
  finalUrl: "https://x/",
  contentType: "text/html",
  text,
  truncated: false,
});

Deno.test("PageCache keeps a page for 15 minutes, then drops it", () => {
  assert.equal(PAGE_CACHE_TTL_MS, 900_000);
  const cache = new PageCache();
  cache.put("https://a/", { page: page("A"), now: 1_000 });
  assert.equal(cache.get("https://a/", 1_000 + PAGE_CACHE_TTL_MS - 1)?.text, "A");
  assert.equal(cache.get("https://a/", 1_000 + PAGE_CACHE_TTL_MS), undefined);
  assert.equal(cache.get("https://a/", 1_000), undefined, "dropped for good");
});

Deno.test("PageCache drops the oldest pages past its entry and character bounds", () => {
  assert.equal(PAGE_CACHE_MAX_ENTRIES, 64);
  const cache = new PageCache();
  for (let i = 0; i <= PAGE_CACHE_MAX_ENTRIES; i++) {
    cache.put(`https://p/${i}`, { page: page(`${i}`), now: 0 });
  }
  assert.equal(cache.get("https://p/0", 0), undefined);
  assert.equal(cache.get("https://p/1", 0)?.text, "1");
  const big = new PageCache();
  big.put("https://a/", { page: page("a".repeat(PAGE_CACHE_MAX_CHARS / 2)), now: 0 });
  big.put("https://b/", { page: page("b".repeat(PAGE_CACHE_MAX_CHARS / 2)), now: 0 });
  big.put("https://c/", { page: page("c"), now: 0 });
  assert.equal(big.get("https://a/", 0), undefined);
  assert.equal(big.get("https://c/", 0)?.text, "c");
  big.put("https://huge/", { page: page("h".repeat(PAGE_CACHE_MAX_CHARS + 1)), now: 0 });
  assert.equal(big.get("https://huge/", 0), undefined, "a page over the whole bound is never kept");
});
