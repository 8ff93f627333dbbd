// Owns fetching one page for WebFetch (docs/reference/tools.md "WebFetch"): the request (no cookies,
// no credentials), same-host redirects followed and others reported (url_policy.ts), a cap on the
// bytes read, a time limit, the body decoded by its charset. Does not convert HTML (html_markdown.ts)
// or cache (page_cache.ts). The fetch function and the clock are the caller's.

import type { Clock } from "../sys/clock.ts";
import { followsRedirect } from "./url_policy.ts";
import { VERSION } from "../version.ts";

/** Bytes of a response body read at most; the rest is dropped (and said so). */
export const MAX_PAGE_BYTES = 10 * 1024 * 1024;
/** How long one fetch, redirects included, may take. */
export const PAGE_TIMEOUT_MS = 60_000;
/** Same-host redirects followed in a row at most. */
export const MAX_REDIRECTS = 10;

export type PageOutcome =
  | { kind: "page"; finalUrl: URL; status: number; contentType: string; body: string; truncated: boolean }
  | { kind: "redirect"; from: URL; to: string; status: number }
  | { kind: "failed"; message: string };

export interface PageFetchDeps {
  fetch: typeof fetch;
  clock: Pick<Clock, "timer">;
}

/** Fetches `url`, following same-host redirects; never throws. */
export async function fetchPage(url: URL, deps: PageFetchDeps, signal: AbortSignal): Promise<PageOutcome> {
  const controller = new AbortController();
  const stop = deps.clock.timer(PAGE_TIMEOUT_MS, () => controller.abort(new Error("timeout")));
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const response = await deps.fetch(current, {
        redirect: "manual",
        signal: controller.signal,
        headers: {
          "user-agent": `Blade/${VERSION} (WebFetch)`,
          "accept": "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5",
        },
      });
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.body?.cancel();
        const location = response.headers.get("location")!;
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          return {
            kind: "failed",
            message: `it redirects to "${location.slice(0, 500)}", which is not a URL`,
          };
        }
        if (!followsRedirect(current, next)) {
          return { kind: "redirect", from: current, to: next.href, status: response.status };
        }
        current = next;
        continue;
      }
      const { body, truncated } = await readCapped(response);
      const contentType = response.headers.get("content-type") ?? "";
      return {
        kind: "page",
        finalUrl: current,
        status: response.status,
        contentType,
        body: decode(body, contentType),
        truncated,
      };
    }
    return { kind: "failed", message: `it redirects more than ${MAX_REDIRECTS} times` };
  } catch (e) {
    if (signal.aborted) return { kind: "failed", message: "the fetch was interrupted" };
    if (controller.signal.aborted) {
      return { kind: "failed", message: `no answer within ${PAGE_TIMEOUT_MS / 1000} s` };
    }
    return { kind: "failed", message: (e as Error).message };
  } finally {
    stop();
    signal.removeEventListener("abort", onAbort);
  }
}

/** The body's first MAX_PAGE_BYTES bytes. */
async function readCapped(response: Response): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (response.body === null) return { body: new Uint8Array(), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > MAX_PAGE_BYTES) {
      chunks.push(value.subarray(0, MAX_PAGE_BYTES - size));
      size = MAX_PAGE_BYTES;
      await reader.cancel();
      return { body: join(chunks, size), truncated: true };
    }
    chunks.push(value);
    size += value.length;
  }
  return { body: join(chunks, size), truncated: false };
}

function join(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The body as text in the charset its content type names (UTF-8 when none or unknown). */
function decode(body: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder().decode(body);
  }
}
