// Owns WebFetch's page cache (docs/reference/tools.md "WebFetch"): a fetched page's text is kept for
// 15 minutes per URL, so asking several questions about one page fetches it once. Bounded by entries
// and characters, oldest dropped first; the clock is the caller's. In memory, per process.

export const PAGE_CACHE_TTL_MS = 15 * 60 * 1000;
export const PAGE_CACHE_MAX_ENTRIES = 64;
/** Characters of page text held at most over all entries. */
export const PAGE_CACHE_MAX_CHARS = 20_000_000;

export interface CachedPage {
  /** The URL the page came from after followed redirects. */
  finalUrl: string;
  contentType: string;
  /** The page as text (Markdown for HTML). */
  text: string;
  /** The body was longer than WebFetch reads (lib/web/page_fetch.ts). */
  truncated: boolean;
}

export class PageCache {
  #entries = new Map<string, { page: CachedPage; at: number }>();
  #chars = 0;

  get(url: string, now: number): CachedPage | undefined {
    const entry = this.#entries.get(url);
    if (entry === undefined) return undefined;
    if (now - entry.at >= PAGE_CACHE_TTL_MS) {
      this.#drop(url);
      return undefined;
    }
    return entry.page;
  }

  put(url: string, entry: { page: CachedPage; now: number }): void {
    const { page, now } = entry;
    this.#drop(url);
    if (page.text.length > PAGE_CACHE_MAX_CHARS) return;
    this.#entries.set(url, { page, at: now });
    this.#chars += page.text.length;
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= PAGE_CACHE_MAX_ENTRIES && this.#chars <= PAGE_CACHE_MAX_CHARS) break;
      this.#drop(key);
    }
  }

  #drop(url: string): void {
    const entry = this.#entries.get(url);
    if (entry === undefined) return;
    this.#chars -= entry.page.text.length;
    this.#entries.delete(url);
  }
}
