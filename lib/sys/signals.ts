// Owns OS signal subscriptions (Ctrl-C) and reading stdin (all of it, or line by line as it arrives).
import { decodeChunks } from "./process.ts";

export function onInterrupt(handler: () => void): () => void {
  if (Deno.build.os === "windows") {
    Deno.addSignalListener("SIGINT", handler);
    return () => Deno.removeSignalListener("SIGINT", handler);
  }
  Deno.addSignalListener("SIGINT", handler);
  Deno.addSignalListener("SIGTERM", handler);
  return () => {
    Deno.removeSignalListener("SIGINT", handler);
    Deno.removeSignalListener("SIGTERM", handler);
  };
}

/**
 * The interactive session's signals: SIGINT (a `kill -INT`; Ctrl-C itself arrives as a key) calls
 * `interrupt`, SIGTERM calls `leave` (Windows has no SIGTERM listener).
 */
export function onSessionSignals(interrupt: () => void, leave: () => void): () => void {
  Deno.addSignalListener("SIGINT", interrupt);
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", leave);
  return () => {
    Deno.removeSignalListener("SIGINT", interrupt);
    if (Deno.build.os !== "windows") Deno.removeSignalListener("SIGTERM", leave);
  };
}

/** Reads all of stdin as text. */
export async function readStdin(): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const c of Deno.stdin.readable) chunks.push(c);
  return decodeChunks(chunks);
}

/**
 * Standard input line by line as each line arrives (without its newline; a last line without one is
 * yielded at EOF). For protocols whose writer keeps stdin open (`--input-format stream-json`).
 */
export function stdinLines(): AsyncGenerator<string> {
  return streamLines(Deno.stdin.readable);
}

/** The lines of a byte stream as each arrives (without its newline; a last line without one at the end). */
export async function* streamLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
  buffered += decoder.decode();
  if (buffered !== "") yield buffered;
}
