// Owns the run's WebAccess as the composition root hands it out: lib/web/web_access.ts and what it
// imports load on the first web call only, so a run that fetches and searches nothing never loads them.

import type { WebAccess } from "../protocol/web.ts";
import type { WebAccessDeps } from "./web_access.ts";

/** A WebAccess whose module loads on its first call; `deps` is read then. */
export function lazyWebAccess(deps: () => WebAccessDeps): WebAccess {
  let access: Promise<WebAccess> | undefined;
  const load = () => access ??= import("./web_access.ts").then(({ webAccess }) => webAccess(deps()));
  return {
    fetch: async (request, signal) => (await load()).fetch(request, signal),
    search: async (request, signal) => (await load()).search(request, signal),
  };
}
