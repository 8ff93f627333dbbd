// Owns the output channel of the CLI layer: the only place where text leaves Blade for a person or
// a script. Commands write through an Io so tests can capture what they print; the real one writes
// through lib/sys/stdio.ts.

import { stderrWriter, stdoutWriter } from "../sys/stdio.ts";

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether ANSI colour may be used on stdout (TTY and NO_COLOR unset). */
  color: boolean;
  /** Whether stdout is an interactive terminal (live progress is only drawn then). */
  tty: boolean;
}

export function realIo(options: { color: boolean; tty: boolean }): Io {
  return { out: stdoutWriter(), err: stderrWriter(), color: options.color, tty: options.tty };
}

/** The same Io with every secret removed from what it prints (text, json and stream-json alike). */
export function redactedIo(io: Io, redact: (text: string) => string): Io {
  return { ...io, out: (text) => io.out(redact(text)), err: (text) => io.err(redact(text)) };
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
