// Owns the process's standard output and error as byte sinks for the CLI's Io (lib/cli/io.ts): every
// byte is written, and a stream whose reader went away (`blade -p … | head`, or a terminal that was
// closed) drops further output instead of failing the run.

import { isBrokenPipe } from "./errors.ts";

/** The reader is gone: a closed pipe, or a closed terminal (EIO). Output is dropped from then on. */
function readerGone(e: unknown): boolean {
  return isBrokenPipe(e) || (e instanceof Error && (e as { code?: unknown }).code === "EIO");
}

const encoder = new TextEncoder();

function writeAll(fd: { writeSync(p: Uint8Array): number }, text: string): void {
  const data = encoder.encode(text);
  let off = 0;
  while (off < data.length) off += fd.writeSync(data.subarray(off));
}

function pipeSafe(fd: { writeSync(p: Uint8Array): number }): (text: string) => void {
  let broken = false;
  return (text) => {
    if (broken) return;
    try {
      writeAll(fd, text);
    } catch (e) {
      if (!readerGone(e)) throw e;
      broken = true;
    }
  };
}

export function stdoutWriter(): (text: string) => void {
  return pipeSafe(Deno.stdout);
}

export function stderrWriter(): (text: string) => void {
  return pipeSafe(Deno.stderr);
}
