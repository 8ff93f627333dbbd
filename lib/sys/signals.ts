// Owns OS signal subscriptions (Ctrl-C). Returns a disposer that removes the listener.

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
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const all = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.length;
  }
  return new TextDecoder().decode(all);
}
