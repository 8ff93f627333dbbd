// Owns the main thread's WebAccess (protocol/web.ts): one page cache per run, the provider loaded on
// first use, WebFetch's answers from the small, fast model and WebSearch's from the session's model.
// Every session of the run shares it; a child in a Worker reaches it through the main thread, which
// checks the child's tools first (manager/child_host.ts).

import type { Clock } from "../sys/clock.ts";
import type { Ids } from "../sys/ids.ts";
import type { Provider } from "../protocol/provider.ts";
import type { WebAccess } from "../protocol/web.ts";
import { PageCache } from "./page_cache.ts";
import { fetchCall } from "./fetch_call.ts";
import { searchCall } from "./search_call.ts";

export interface WebAccessDeps {
  /** The HTTP client pages are fetched with (globalThis.fetch; a test may pass another). */
  fetch: typeof fetch;
  clock: Clock;
  ids: Ids;
  provider(): Promise<Provider>;
  /** The model WebSearch asks (the session's). */
  model: string;
  /** The model WebFetch's answers come from (ANTHROPIC_SMALL_FAST_MODEL, else haiku). */
  smallFastModel: string;
}

export function webAccess(deps: WebAccessDeps): WebAccess {
  const cache = new PageCache();
  return {
    async fetch(request, signal) {
      return fetchCall(
        {
          fetch: deps.fetch,
          clock: deps.clock,
          cache,
          provider: await deps.provider(),
          model: deps.smallFastModel,
          sessionId: "web",
          nonce: () => deps.ids.random21(),
        },
        request,
        signal,
      );
    },
    async search(request, signal) {
      return searchCall(
        { provider: await deps.provider(), model: deps.model, sessionId: "web" },
        request,
        signal,
      );
    },
  };
}
