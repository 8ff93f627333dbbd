// Owns the main thread's side of a child Worker's model requests (child/proxy_fetch.ts): a
// Worker has no network grant and no provider credentials, so it asks the main thread, which sends
// the request only to the run's own provider endpoint, with that provider's own headers (the key
// among them; of the Worker's headers only `anthropic-beta` is kept), and streams the status, headers and body chunks
// back (their buffers transferred). A Worker's cancel aborts the fetch; a failure here errors the
// Worker's response. Does not own retries, timeouts or error classification: the Worker's provider
// does, as for a direct fetch.

import type { FetchNotice, ProxiedRequest } from "./child_protocol.ts";
import type { HttpEndpoint } from "../provider/http_provider.ts";
import { describeCauses, displayUrl } from "../provider/http_failure.ts";
import { profileMark } from "../sys/profile.ts";

/** Sends one notice to the Worker (moving `transfer`); false when it cannot be delivered. */
export type Notify = (notice: FetchNotice, transfer?: Transferable[]) => boolean;

interface InFlight {
  runId: number;
  controller: AbortController;
}

/** The proxied requests of one Worker. */
export class ChildFetches {
  #notify: Notify;
  #fetch: typeof fetch;
  #open = new Map<number, InFlight>();

  constructor(notify: Notify, options: { fetch?: typeof fetch } = {}) {
    this.#notify = notify;
    this.#fetch = options.fetch ?? fetch;
  }

  /** Requests in flight (for tests). */
  get size(): number {
    return this.#open.size;
  }

  /**
   * Sends request `id` of run `runId` if it is for `endpoint` (the run's provider; undefined when
   * it makes no HTTP requests), and streams its response to the Worker. Never throws.
   */
  async start(
    runId: number,
    id: number,
    request: ProxiedRequest,
    endpoint: HttpEndpoint | undefined,
  ): Promise<void> {
    if (this.#open.has(id)) return; // a repeated id is the Worker's confusion; the first one stands
    const refusal = refused(request, endpoint);
    if (refusal !== undefined || endpoint === undefined) return this.refuse(id, refusal ?? "Refused");
    const inFlight: InFlight = { runId, controller: new AbortController() };
    const { signal } = inFlight.controller;
    this.#open.set(id, inFlight);
    profileMark("child request sent");
    try {
      const response = await this.#fetch(endpoint.url, {
        method: "POST",
        // The beta features of the body (no credential) come from the Worker's provider; all else is ours.
        headers: { ...betaHeader(request.headers), ...endpoint.headers },
        body: request.body,
        signal,
      });
      profileMark("child response headers");
      const headers = [...response.headers];
      const sent = this.#notify({
        kind: "fetch_head",
        id,
        status: response.status,
        statusText: response.statusText,
        headers,
      });
      if (!sent) inFlight.controller.abort();
      await this.#pipe(id, response, signal);
    } catch (error) {
      if (!signal.aborted) this.#notify({ kind: "fetch_error", id, message: describeCauses(error) });
    } finally {
      if (this.#open.get(id) === inFlight) this.#open.delete(id);
    }
  }

  /** Answers request `id` with a refusal (`message` says what and why); the Worker does not retry it. */
  refuse(id: number, message: string): void {
    this.#notify({ kind: "fetch_error", id, message, refused: true });
  }

  /** The Worker no longer wants request `id` (of `runId`: a run cannot cancel another's). */
  cancel(runId: number, id: number): void {
    const inFlight = this.#open.get(id);
    if (inFlight === undefined || inFlight.runId !== runId) return;
    this.#open.delete(id);
    inFlight.controller.abort();
  }

  /** Aborts every request of a run that has ended (or of every run, when the Worker is gone). */
  endRun(runId?: number): void {
    for (const [id, inFlight] of this.#open) {
      if (runId !== undefined && inFlight.runId !== runId) continue;
      this.#open.delete(id);
      inFlight.controller.abort();
    }
  }

  async #pipe(id: number, response: Response, signal: AbortSignal): Promise<void> {
    if (response.body === null) {
      if (!signal.aborted) this.#notify({ kind: "fetch_end", id });
      return;
    }
    const reader = response.body.getReader();
    const onAbort = () => void reader.cancel().catch(() => {});
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      while (!signal.aborted) {
        const chunk = await reader.read();
        if (signal.aborted) return;
        if (chunk.done) {
          this.#notify({ kind: "fetch_end", id });
          return;
        }
        // Moved, not copied; a view of a larger buffer is copied first (moving it would detach the rest).
        const whole = chunk.value.byteOffset === 0 &&
          chunk.value.byteLength === chunk.value.buffer.byteLength;
        const bytes = whole ? chunk.value : chunk.value.slice();
        if (!this.#notify({ kind: "fetch_chunk", id, chunk: bytes }, [bytes.buffer as ArrayBuffer])) return;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      reader.cancel().catch(() => {});
    }
  }
}

/** Why the request is refused; undefined when it is for the run's own provider endpoint. */
export function refused(request: ProxiedRequest, endpoint: HttpEndpoint | undefined): string | undefined {
  const shown = displayUrl(request.url).slice(0, 200);
  const method = request.method.slice(0, 10);
  if (endpoint === undefined) {
    return `Refused the child's ${method} request to ${shown}: its provider makes no HTTP requests`;
  }
  if (request.method !== "POST" || request.url !== endpoint.url) {
    return `Refused the child's ${method} request to ${shown}: a child Worker has no network access; ` +
      `the main thread sends only POST requests to its provider's endpoint ${displayUrl(endpoint.url)}`;
  }
  return undefined;
}

/** The Worker request's `anthropic-beta` header (beta feature names only), if it sent one. */
function betaHeader(headers: Readonly<Record<string, string>>): Record<string, string> {
  const value = Object.entries(headers).find(([name]) => name.toLowerCase() === "anthropic-beta")?.[1];
  return value !== undefined && /^[\w.,-]{1,500}$/.test(value) ? { "anthropic-beta": value } : {};
}
