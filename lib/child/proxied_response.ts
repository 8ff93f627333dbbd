// Owns the Response a child Worker's proxied fetch resolves with (child/proxy_fetch.ts): the part of
// the Fetch API's Response that Blade's providers read (status, ok, statusText, headers, a body read
// chunk by chunk through getReader() or whole through text() / json() / arrayBuffer(), cancel), built
// from plain values. In a fresh Worker the first `ReadableStream` and `Response` compile ~3.5 ms of
// Deno's own JavaScript (more on a loaded machine), which sat between the main thread's response
// headers and the Worker's (docs/reference/performance.md). Does not own where the chunks come from.

/** Statuses whose Response has no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

type ReadResult = ReadableStreamReadResult<Uint8Array>;

/**
 * A response body fed chunk by chunk (`enqueue`, then `close` or `error`), read in order. Like a
 * ReadableStream's: once errored, chunks not yet read are dropped and reads reject; cancelling ends
 * every read and calls `onCancel` once (unless the body had already ended).
 */
export class ProxiedBody {
  #queue: Uint8Array[] = [];
  #state: "open" | "closed" | "errored" | "cancelled" = "open";
  #error: unknown;
  #waiting: PromiseWithResolvers<ReadResult>[] = [];
  #onCancel: () => void;
  #locked = false;

  constructor(onCancel: () => void) {
    this.#onCancel = onCancel;
  }

  get locked(): boolean {
    return this.#locked;
  }

  enqueue(chunk: Uint8Array): void {
    if (this.#state !== "open") return;
    const reader = this.#waiting.shift();
    if (reader === undefined) this.#queue.push(chunk);
    else reader.resolve({ done: false, value: chunk });
  }

  close(): void {
    if (this.#state !== "open") return;
    this.#state = "closed";
    this.#endReads();
  }

  error(error: unknown): void {
    if (this.#state !== "open") return;
    this.#state = "errored";
    this.#error = error;
    this.#queue = [];
    for (const reader of this.#waiting.splice(0)) reader.reject(error);
  }

  /** The body's reader (one per body, as a stream's). */
  getReader(): { read(): Promise<ReadResult>; cancel(): Promise<void>; releaseLock(): void } {
    if (this.#locked) throw new TypeError("The response body is already being read");
    this.#locked = true;
    return {
      read: () => this.#read(),
      cancel: () => this.cancel(),
      releaseLock: () => {},
    };
  }

  cancel(): Promise<void> {
    if (this.#state === "open") {
      this.#state = "cancelled";
      this.#queue = [];
      this.#endReads();
      this.#onCancel();
    }
    return Promise.resolve();
  }

  #read(): Promise<ReadResult> {
    const next = this.#queue.shift();
    if (next !== undefined) return Promise.resolve({ done: false, value: next });
    if (this.#state === "errored") return Promise.reject(this.#error);
    if (this.#state !== "open") return Promise.resolve({ done: true });
    const reader = Promise.withResolvers<ReadResult>();
    this.#waiting.push(reader);
    return reader.promise;
  }

  #endReads(): void {
    for (const reader of this.#waiting.splice(0)) reader.resolve({ done: true });
  }
}

/** The head of a proxied response, as the main thread sent it. */
export interface ProxiedHead {
  status: number;
  statusText: string;
  headers: [string, string][];
}

/** Whether a response with this status has a body. */
export function hasBody(status: number): boolean {
  return !NULL_BODY.has(status);
}

/**
 * The Response of request `url` with this head and body (null for a status without one). Throws
 * where the Response constructor would: a status outside 200–599 (RangeError), a header name or value
 * Headers refuses (TypeError).
 */
export function proxiedResponse(url: string, head: ProxiedHead, body: ProxiedBody | null): Response {
  const { status, statusText } = head;
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new RangeError(`The status ${status} is not in the range 200 to 599`);
  }
  const headers = new Headers(head.headers);
  let used = false;
  const bytes = async (): Promise<Uint8Array> => {
    if (used) throw new TypeError("The response body was already read");
    used = true;
    if (body === null) return new Uint8Array();
    const reader = body.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      parts.push(r.value);
      size += r.value.byteLength;
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      all.set(part, at);
      at += part.byteLength;
    }
    return all;
  };
  const response = {
    url,
    status,
    statusText,
    ok: status >= 200 && status <= 299,
    redirected: false,
    type: "basic",
    headers,
    body,
    get bodyUsed() {
      return used || (body?.locked ?? false);
    },
    text: async () => new TextDecoder().decode(await bytes()),
    json: async () => JSON.parse(new TextDecoder().decode(await bytes())),
    arrayBuffer: async () => (await bytes()).buffer,
  };
  // The providers read only the members above (lib/provider/sse_request.ts, http_failure.ts, retry.ts).
  return response as unknown as Response;
}
