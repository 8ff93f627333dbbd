// Owns the machinery shared by the loopback fake model servers: a Deno.serve on 127.0.0.1, a queue of
// scripted responses (streamed turns, HTTP statuses, cut or stalled streams, hangs, raw SSE), and a
// record of every request. Does not own any wire format: fake_anthropic_server.ts and
// fake_openai_server.ts supply a WireDialect. Used by tests, the bench and end-to-end tests.

import type { ScriptTurn } from "../provider/script_schema.ts";

export interface FakeToolCall {
  name: string;
  /** Arguments as an object; sent as JSON split over two deltas. */
  input?: Record<string, unknown>;
  /** Arguments sent verbatim instead of `input` (e.g. invalid JSON). */
  rawArguments?: string;
  id?: string;
}

/** A streamed model reply. Every field is optional: `{}` is an empty `end_turn` answer. */
export interface FakeTurn {
  kind?: "turn";
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Split the text into this many deltas (default one per ~20 characters). */
  chunks?: number;
  usage?: {
    inputTokens?: number;
    outputTokens?: number;
    /** Anthropic only: prompt-cache reads and writes (message_start), apart from input_tokens. */
    cacheReadInputTokens?: number;
    cacheCreationInputTokens?: number;
  };
  /** Wire stop reason (Anthropic `stop_reason`, OpenAI `finish_reason`); default from the tool calls. */
  stopReason?: string;
  /** Close the body cleanly after this many SSE events: a stream cut mid-message. */
  cutAfterEvents?: number;
  /** Send this many SSE events, then go silent until the client leaves or the server closes. */
  stallAfterEvents?: number;
  /** With stallAfterEvents: once this settles, send the rest of the events (a pause mid-answer). */
  resumeWhen?: Promise<void>;
  /** After the content, send the API's mid-stream error event instead of finishing. */
  streamError?: { type: string; message: string };
  /** Wait this long before sending the response headers. */
  delayMs?: number;
  headers?: Record<string, string>;
}

/** A plain HTTP response, e.g. `429` with `retry-after`. Without a body, the API's usual error JSON. */
export interface FakeStatus {
  kind: "status";
  status: number;
  /** An object is sent as JSON, a string verbatim. Default: the API's error JSON with `message`. */
  body?: unknown;
  message?: string;
  headers?: Record<string, string>;
}

/** Never answer (not even headers) until the client gives up or the server closes. */
export interface FakeHang {
  kind: "hang";
}

/** Raw SSE events, for edge cases the turn shape cannot express. `data` objects are sent as JSON. */
export interface FakeSse {
  kind: "sse";
  events: SseFrame[];
  cutAfterEvents?: number;
  stallAfterEvents?: number;
}

export type FakeResponse = FakeTurn | FakeStatus | FakeHang | FakeSse;

export interface SseFrame {
  event?: string;
  data: unknown;
}

export interface RecordedRequest<Body> {
  method: string;
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The parsed JSON body (undefined if it was not JSON; see `text`). */
  body: Body;
  text: string;
}

export type FakeHandler<Body> = (
  request: RecordedRequest<Body>,
  index: number,
) => FakeResponse | Response | Promise<FakeResponse | Response>;

export interface FakeServerOptions<Body> {
  /** Answers in order, one per request to the API path. */
  responses?: FakeResponse[];
  /** Decides each answer instead (sees every request, whatever its path). */
  handler?: FakeHandler<Body>;
}

export interface FakeServer<Body> extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:43121`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest<Body>[];
  /** Queue more responses. */
  push(...responses: FakeResponse[]): void;
  /** Ends hangs and stalled streams, then stops the server. Idempotent. */
  close(): Promise<void>;
}

/** What makes a fake server speak one API. */
export interface WireDialect {
  name: string;
  /** The path that consumes queued responses, e.g. `/v1/messages`. */
  path: string;
  turnFrames(turn: FakeTurn, context: { model: string; requestNumber: number }): SseFrame[];
  errorBody(status: number, message: string): unknown;
}

export function fakeTurn(turn: Omit<FakeTurn, "kind"> = {}): FakeTurn {
  return { kind: "turn", ...turn };
}

export function fakeStatus(
  status: number,
  options: { body?: unknown; message?: string; headers?: Record<string, string> } = {},
): FakeStatus {
  return { kind: "status", status, ...options };
}

export function fakeHang(): FakeHang {
  return { kind: "hang" };
}

export function fakeSse(events: SseFrame[], options: Omit<FakeSse, "kind" | "events"> = {}): FakeSse {
  return { kind: "sse", events, ...options };
}

const STATUS_OF_KIND: Record<string, number> = {
  rate_limit: 429,
  overloaded: 529,
  server: 500,
  auth: 401,
  invalid_request: 400,
  timeout: 408,
};

/** The wire answer for a scripted-provider turn (placeholders are not expanded: the server has no context). */
export function fromScriptTurn(turn: ScriptTurn): FakeResponse {
  if (turn.error !== undefined) {
    const status = turn.error.status ?? STATUS_OF_KIND[turn.error.kind ?? "server"] ?? 500;
    return fakeStatus(status, { message: turn.error.message });
  }
  const out: FakeTurn = { kind: "turn" };
  if (turn.text !== undefined) out.text = turn.text;
  if (turn.chunks !== undefined) out.chunks = turn.chunks;
  if (turn.delay_ms !== undefined) out.delayMs = turn.delay_ms;
  if (turn.tool_calls !== undefined) {
    out.toolCalls = turn.tool_calls.map((c) => {
      const call: FakeToolCall = { name: c.name };
      if (c.input !== undefined) call.input = c.input;
      if (c.raw_arguments !== undefined) call.rawArguments = c.raw_arguments;
      if (c.id !== undefined) call.id = c.id;
      return call;
    });
  }
  if (turn.usage !== undefined) {
    out.usage = {};
    if (turn.usage.input_tokens !== undefined) out.usage.inputTokens = turn.usage.input_tokens;
    if (turn.usage.output_tokens !== undefined) out.usage.outputTokens = turn.usage.output_tokens;
  }
  return out;
}

/** Text split like the real APIs stream it. */
export function textPieces(text: string, chunks?: number): string[] {
  const chars = [...text];
  if (chars.length === 0) return [];
  const n = Math.max(1, Math.min(chars.length, chunks ?? Math.ceil(chars.length / 20)));
  const size = Math.ceil(chars.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces;
}

/** Tool arguments as the wire sends them: JSON text in two pieces. */
export function argumentPieces(call: FakeToolCall): string[] {
  const raw = call.rawArguments ?? JSON.stringify(call.input ?? {});
  const half = Math.ceil(raw.length / 2);
  return [raw.slice(0, half), raw.slice(half)].filter((p) => p !== "");
}

export function startFakeServer<Body>(
  dialect: WireDialect,
  options: FakeServerOptions<Body> | FakeResponse[] = {},
): FakeServer<Body> {
  const { responses = [], handler } = Array.isArray(options) ? { responses: options } : options;
  const queue = [...responses];
  let scripted = queue.length;
  const requests: RecordedRequest<Body>[] = [];
  const closing = new AbortController();
  let apiRequests = 0;

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const text = await req.text();
    const recorded: RecordedRequest<Body> = {
      method: req.method,
      path: new URL(req.url).pathname,
      headers: Object.fromEntries(req.headers),
      body: parseJson(text) as Body,
      text,
    };
    requests.push(recorded);
    // Not req.signal: Deno.serve also aborts it after every successful response.
    const gone = closing.signal;
    let response: FakeResponse | Response;
    if (handler !== undefined) {
      response = await handler(recorded, requests.length - 1);
    } else if (recorded.path !== dialect.path) {
      return json(404, dialect.errorBody(404, `fake ${dialect.name} server: no route for ${recorded.path}`));
    } else {
      apiRequests++;
      const next = queue.shift();
      if (next === undefined) {
        const message =
          `fake ${dialect.name} server has no scripted response left for request ${apiRequests} ` +
          `(${scripted} were scripted)`;
        return json(400, dialect.errorBody(400, message));
      }
      response = next;
    }
    if (response instanceof Response) return response;
    const model = typeof (recorded.body as { model?: unknown })?.model === "string"
      ? (recorded.body as { model: string }).model
      : "fake-model";
    return await respond(response, { dialect, context: { model, requestNumber: requests.length }, gone });
  });

  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    push(...more) {
      queue.push(...more);
      scripted += more.length;
    },
    close() {
      closed ??= (async () => {
        closing.abort();
        await server.shutdown();
      })();
      return closed;
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
}

interface Answering {
  dialect: WireDialect;
  context: { model: string; requestNumber: number };
  /** Fires when the server closes. */
  gone: AbortSignal;
}

async function respond(response: FakeResponse, answering: Answering): Promise<Response> {
  const { dialect, context, gone } = answering;
  switch (response.kind) {
    case "status": {
      const body = response.body ??
        dialect.errorBody(
          response.status,
          response.message ?? `fake ${dialect.name} server: ${response.status}`,
        );
      const headers = new Headers(response.headers);
      if (typeof body !== "string" && !headers.has("content-type")) {
        headers.set("content-type", "application/json");
      }
      return new Response(typeof body === "string" ? body : JSON.stringify(body), {
        status: response.status,
        headers,
      });
    }
    case "hang":
      await new Promise<void>((resolve) => {
        if (gone.aborted) resolve();
        gone.addEventListener("abort", () => resolve(), { once: true });
      });
      return new Response(null, { status: 503 });
    case "sse":
      return sseResponse(response.events, { ...response, gone });
    default:
      if (response.delayMs !== undefined) await delay(response.delayMs, gone);
      return sseResponse(dialect.turnFrames(response, context), { ...response, gone });
  }
}

function sseResponse(
  frames: SseFrame[],
  options: {
    cutAfterEvents?: number;
    stallAfterEvents?: number;
    resumeWhen?: Promise<void>;
    headers?: Record<string, string>;
    gone: AbortSignal;
  },
): Response {
  const { gone, headers = {} } = options;
  const stall = options.stallAfterEvents !== undefined;
  const limit = options.stallAfterEvents ?? options.cutAfterEvents ?? frames.length;
  const encoder = new TextEncoder();
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames.slice(0, limit)) controller.enqueue(encoder.encode(encodeFrame(frame)));
      if (!stall) return controller.close();
      stop = () => {
        try {
          controller.close();
        } catch {
          // already closed or cancelled
        }
      };
      if (gone.aborted) stop();
      else gone.addEventListener("abort", stop, { once: true });
      void options.resumeWhen?.then(() => {
        if (gone.aborted) return;
        try {
          for (const frame of frames.slice(limit)) controller.enqueue(encoder.encode(encodeFrame(frame)));
        } catch {
          return; // the client left meanwhile
        }
        stop();
      });
    },
    cancel() {
      gone.removeEventListener("abort", stop);
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers },
  });
}

export function encodeFrame(frame: SseFrame): string {
  const data = typeof frame.data === "string" ? frame.data : JSON.stringify(frame.data);
  const lines = data.split("\n").map((line) => `data: ${line}\n`).join("");
  return (frame.event === undefined ? "" : `event: ${frame.event}\n`) + lines + "\n";
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function delay(ms: number, gone: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    gone.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      gone.removeEventListener("abort", done);
      resolve();
    }
  });
}
