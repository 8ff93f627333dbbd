// Owns a child Worker's side of its proxied model requests (docs/reference/permissions.md): a `fetch`
// for the run's provider that sends each request to the main thread as a `fetch` event and builds its
// Response (proxied_response.ts) from the notices that come back (head, body chunks in order, end or
// error). So the
// Worker needs no network grant, never holds the provider's credentials (the main thread adds them,
// child/child_fetch.ts), and does not pay fetch's first use (its own HTTP client, ~8 ms and ~4 MiB,
// docs/reference/performance.md). Aborting the request's signal or cancelling the body tells the main
// thread to abort its fetch. Does not own retries, timeouts or classifying failures: the provider's
// attempt does, as for a direct fetch.

import type { ChildWorkerEvent, FetchNotice } from "./child_protocol.ts";
import { hasBody, ProxiedBody, proxiedResponse } from "./proxied_response.ts";

interface Open {
  runId: number;
  url: string;
  head: PromiseWithResolvers<Response>;
  body: ProxiedBody | undefined;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class FetchProxy {
  #send: (event: ChildWorkerEvent) => void;
  #open = new Map<number, Open>();
  #next = 1;

  constructor(send: (event: ChildWorkerEvent) => void) {
    this.#send = send;
  }

  /** Requests in flight (for tests). */
  get size(): number {
    return this.#open.size;
  }

  /** The fetch of one run: the main thread answers its requests as that run's. */
  fetchFor(runId: number): typeof fetch {
    return (input, init) => this.#fetch(runId, input, init);
  }

  /** One notice from the main thread; a notice of no request in flight is ignored. */
  receive(notice: FetchNotice): void {
    const open = this.#open.get(notice.id);
    if (open === undefined) return;
    switch (notice.kind) {
      case "fetch_head":
        if (open.body !== undefined) return;
        try {
          open.head.resolve(this.#response(notice.id, open, notice));
        } catch (error) {
          // A status or header the Response constructor refuses: the request fails as a bad reply.
          if (this.#open.get(notice.id) === open) this.#cancel(notice.id, open);
          open.head.reject(error);
        }
        return;
      case "fetch_chunk":
        open.body?.enqueue(notice.chunk);
        return;
      case "fetch_end":
        this.#forget(notice.id, open);
        open.body?.close();
        return;
      case "fetch_error": {
        this.#forget(notice.id, open);
        // A refusal is named as Deno names a missing grant, so the attempt does not retry it.
        const error = notice.refused === true ? notCapable(notice.message) : new TypeError(notice.message);
        if (open.body === undefined) open.head.reject(error);
        else open.body.error(error);
        return;
      }
    }
  }

  /** Fails every request in flight (the main thread is gone or the run ended). */
  failAll(message: string): void {
    for (const id of [...this.#open.keys()]) this.receive({ kind: "fetch_error", id, message });
  }

  #fetch(runId: number, input: RequestInfo | URL, init: RequestInit | undefined): Promise<Response> {
    const signal = init?.signal ?? undefined;
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    if (init?.body !== undefined && init.body !== null && typeof init.body !== "string") {
      return Promise.reject(new TypeError("A proxied request's body must be a string"));
    }
    // Plain values on the way out (the provider passes a string URL and a record of headers): Request
    // and Headers cost their first use's compilation in a fresh Worker before the request could leave.
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const id = this.#next++;
    const open: Open = {
      runId,
      url,
      head: Promise.withResolvers<Response>(),
      body: undefined,
      signal,
      onAbort: () => {
        if (this.#open.get(id) !== open) return;
        this.#cancel(id, open);
        const reason = signal?.reason ?? new DOMException("aborted", "AbortError");
        if (open.body === undefined) open.head.reject(reason);
        else open.body.error(reason);
      },
    };
    this.#open.set(id, open);
    signal?.addEventListener("abort", open.onAbort, { once: true });
    const headers = plainHeaders(init?.headers);
    const method = init?.method ?? "GET";
    this.#send({ kind: "fetch", runId, id, request: { url, method, headers, body: init?.body ?? "" } });
    return open.head.promise;
  }

  #response(id: number, open: Open, head: Extract<FetchNotice, { kind: "fetch_head" }>): Response {
    const body = hasBody(head.status)
      ? new ProxiedBody(() => {
        if (this.#open.get(id) === open) this.#cancel(id, open);
      })
      : null;
    const response = proxiedResponse(open.url, head, body);
    if (body === null) this.#cancel(id, open);
    else open.body = body;
    return response;
  }

  #cancel(id: number, open: Open): void {
    this.#forget(id, open);
    this.#send({ kind: "fetch_cancel", runId: open.runId, id });
  }

  #forget(id: number, open: Open): void {
    this.#open.delete(id);
    open.signal?.removeEventListener("abort", open.onAbort);
  }
}

function plainHeaders(init: HeadersInit | undefined): Record<string, string> {
  if (init === undefined) return {};
  if (Array.isArray(init)) return Object.fromEntries(init);
  if (typeof (init as Headers).entries === "function") return Object.fromEntries((init as Headers).entries());
  return { ...init as Record<string, string> };
}

function notCapable(message: string): Error {
  const error = new Error(message);
  error.name = "NotCapable";
  return error;
}
