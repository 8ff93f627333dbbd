// Owns the run's WebAccess as the composition root hands it out: lib/web/web_access.ts and what it
// imports load on the first web call only, so a run that fetches and searches nothing never loads them.
// WebFetch answers with the run's small, fast model, WebSearch with its model.

import type { Clock } from "../sys/clock.ts";
import type { Ids } from "../sys/ids.ts";
import type { Provider } from "../protocol/provider.ts";
import type { WebAccess } from "../protocol/web.ts";

/** What the web tools need of the run (lib/app.ts's App has it). */
export interface WebRun {
  ports: { clock: Clock; ids: Ids };
  config: { model: string; smallFastModel: string };
  provider(): Promise<Provider>;
}

const byRun = new WeakMap<WebRun, WebAccess>();

/** The run's one WebAccess (one page cache for every session and child of the run). */
export function webAccessOf(run: WebRun): WebAccess {
  let access = byRun.get(run);
  if (access === undefined) byRun.set(run, access = lazyWebAccess(() => run));
  return access;
}

/** A WebAccess whose module loads on its first call; the run is read then. */
export function lazyWebAccess(runOf: () => WebRun): WebAccess {
  let access: Promise<WebAccess> | undefined;
  const load = () =>
    access ??= import("./web_access.ts").then(({ webAccess }) => {
      const run = runOf();
      return webAccess({
        fetch: globalThis.fetch,
        clock: run.ports.clock,
        ids: run.ports.ids,
        provider: () => run.provider(),
        model: run.config.model,
        smallFastModel: run.config.smallFastModel,
      });
    });
  return {
    fetch: async (request, signal) => (await load()).fetch(request, signal),
    search: async (request, signal) => (await load()).search(request, signal),
  };
}
