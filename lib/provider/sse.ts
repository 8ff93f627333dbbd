// Owns incremental Server-Sent Events parsing (the WHATWG `text/event-stream` format) over bytes.
// Does not own fetching, timeouts or what the events mean: the providers do.

export interface SseEvent {
  /** The `event:` field; `"message"` when the event named none. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last `id:` seen on the stream, if any. */
  id?: string;
}

const LF = 10;
const CR = 13;

/**
 * Push bytes in as they arrive, get complete events out. Lines may end in `\n`, `\r\n` or `\r`, and a
 * chunk may split a line, a `\r\n` pair or a multi-byte character anywhere.
 */
export class SseDecoder {
  #text = new TextDecoder();
  #buffer = "";
  #event = "";
  #data: string[] = [];
  #id: string | undefined;

  push(chunk: Uint8Array): SseEvent[] {
    return this.#feed(this.#text.decode(chunk, { stream: true }), false);
  }

  /** The stream ended. Per the spec an event without its closing blank line is discarded. */
  end(): SseEvent[] {
    const events = this.#feed(this.#text.decode(), true);
    this.#buffer = "";
    this.#event = "";
    this.#data = [];
    return events;
  }

  #feed(text: string, final: boolean): SseEvent[] {
    const buffer = this.#buffer + text;
    const events: SseEvent[] = [];
    let start = 0;
    // The kept remainder holds no line break except perhaps a trailing `\r`: scan from there.
    for (let i = Math.max(0, this.#buffer.length - 1); i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c !== LF && c !== CR) continue;
      // A trailing `\r` may be the first half of `\r\n`: wait for the next chunk to know.
      if (c === CR && i + 1 === buffer.length && !final) break;
      const line = buffer.slice(start, i);
      if (c === CR && buffer.charCodeAt(i + 1) === LF) i++;
      start = i + 1;
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    this.#buffer = buffer.slice(start);
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return undefined; // comment, e.g. a keep-alive
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.#event = value;
    else if (field === "data") this.#data.push(value);
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    // `retry` and unknown fields are ignored: reconnection is not ours to do.
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const data = this.#data;
    const event = this.#event === "" ? "message" : this.#event;
    this.#data = [];
    this.#event = "";
    if (data.length === 0) return undefined;
    const out: SseEvent = { event, data: data.join("\n") };
    if (this.#id !== undefined) out.id = this.#id;
    return out;
  }
}

/** All events of a byte stream, in order. Releases the stream when the consumer stops early. */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new SseDecoder();
  let finished = false;
  try {
    while (true) {
      const chunk = await reader.read();
      if (chunk.done) {
        finished = true;
        yield* decoder.end();
        return;
      }
      yield* decoder.push(chunk.value);
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
