// Owns OS signal subscriptions (Ctrl-C) and reading all of stdin.
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

/** Reads all of stdin as text. */
export async function readStdin(): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const c of Deno.stdin.readable) chunks.push(c);
  return decodeChunks(chunks);
}
