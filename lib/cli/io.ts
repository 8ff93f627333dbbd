// Owns the output channel of the CLI layer: the only place where text leaves Blade for a person or
// a script. Commands write through an Io so tests can capture what they print.

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether ANSI colour may be used on stdout (TTY and NO_COLOR unset). */
  color: boolean;
  /** Whether stdout is an interactive terminal (live progress is only drawn then). */
  tty: boolean;
}

const encoder = new TextEncoder();

function writeAll(fd: { writeSync(p: Uint8Array): number }, text: string): void {
  const data = encoder.encode(text);
  let off = 0;
  while (off < data.length) off += fd.writeSync(data.subarray(off));
}

/**
 * Writes to a stream that may be closed by its reader (`blade -p … | head`): once the pipe is broken,
 * further output is dropped instead of failing the run.
 */
function pipeSafe(fd: { writeSync(p: Uint8Array): number }): (text: string) => void {
  let broken = false;
  return (text) => {
    if (broken) return;
    try {
      writeAll(fd, text);
    } catch (e) {
      if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
      broken = true;
    }
  };
}

export function realIo(options: { color: boolean; tty: boolean }): Io {
  return {
    out: pipeSafe(Deno.stdout),
    err: pipeSafe(Deno.stderr),
    color: options.color,
    tty: options.tty,
  };
}

/** An Io that records what was printed, for tests. */
export function captureIo(): Io & { stdout: () => string; stderr: () => string } {
  let out = "";
  let err = "";
  return {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    color: false,
    tty: false,
    stdout: () => out,
    stderr: () => err,
  };
}
