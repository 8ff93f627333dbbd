// Owns OS signal subscriptions (Ctrl-C, kill, a closed terminal) and reading stdin (all of it, or line by line as it arrives).
import { decodeChunks } from "./process.ts";

/**
 * Print mode's signals: SIGINT, SIGTERM and SIGHUP (the terminal was closed) all stop the run, which
 * then ends as an interrupted one: its turn and children written as cancelled, process groups killed.
 * Without a listener, SIGHUP would end the process at once and leave its children's commands running.
 */
export function onInterrupt(handler: () => void): () => void {
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const s of signals) Deno.addSignalListener(s, handler);
  return () => {
    for (const s of signals) Deno.removeSignalListener(s, handler);
  };
}

/**
 * The interactive session's signals: SIGINT (a `kill -INT`; Ctrl-C itself arrives as a key) calls
 * `interrupt`; SIGTERM and SIGHUP (the terminal was closed) call `leave` with the signal's name
 * (Windows has neither listener).
 */
export function onSessionSignals(
  interrupt: () => void,
  leave: (signal: "SIGTERM" | "SIGHUP") => void,
): () => void {
  const term = () => leave("SIGTERM");
  const hup = () => leave("SIGHUP");
  Deno.addSignalListener("SIGINT", interrupt);
  if (Deno.build.os !== "windows") {
    Deno.addSignalListener("SIGTERM", term);
    Deno.addSignalListener("SIGHUP", hup);
  }
  return () => {
    Deno.removeSignalListener("SIGINT", interrupt);
    if (Deno.build.os !== "windows") {
      Deno.removeSignalListener("SIGTERM", term);
      Deno.removeSignalListener("SIGHUP", hup);
    }
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
