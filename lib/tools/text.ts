// Owns the text shaping tools share: binary sniffing, decoding, line splitting, line numbering (Read's)
// and output caps. Pure functions, no I/O.

/** Bytes inspected when deciding whether a file is binary. */
const SNIFF_BYTES = 8000;

/** A file is binary when its first bytes contain a NUL (what git and grep decide by). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, SNIFF_BYTES).includes(0);
}

/** UTF-8 text of `bytes`, keeping a byte-order mark so a rewrite preserves it. */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
}

/** The lines of `text` without their terminators; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  return linesOf(text, { afterFinalNewline: false });
}

/**
 * The lines of a file as Claude Code's Read numbers them: split at each `\n` (a `\r` before it
 * dropped), so a final newline is followed by one more, empty line; none for an empty file.
 */
export function fileLines(text: string): string[] {
  return linesOf(text, { afterFinalNewline: true });
}

function linesOf(text: string, o: { afterFinalNewline: boolean }): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (!o.afterFinalNewline && lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/** Number of lines in `text` as an editor counts them (a trailing newline ends the last line). */
export function countLines(text: string): number {
  return splitLines(text).length;
}

/** `1 line`, `2 lines`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * Claude Code 2.1.332's numbering (tests/fixtures/claude/tools/read_format.json): the line number, a
 * tab, then the line (`7\tfoo`, `120\tbar`; no padding).
 */
export function numberLine(lineNumber: number, line: string): string {
  return `${lineNumber}\t${line}`;
}

/** `line` cut to `max` characters with a marker saying so. */
export function cutLine(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}… [line truncated, ${line.length} chars]`;
}

/**
 * `text` bounded to about `max` characters, keeping its head and tail around a marker that says how
 * much was left out (the end of a command's output usually matters as much as its start).
 */
export function capHeadTail(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const head = Math.ceil(max / 2);
  const tail = max - head;
  const omitted = text.length - head - tail;
  return {
    text: `${text.slice(0, head)}\n\n... [${omitted} characters truncated] ...\n\n${
      text.slice(text.length - tail)
    }`,
    truncated: true,
  };
}

/** `text` bounded to `max` characters from its start, with a note when cut. */
export function capHead(text: string, max: number, note: string): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const cut = text.lastIndexOf("\n", max);
  return { text: `${text.slice(0, cut > 0 ? cut : max)}\n\n${note}`, truncated: true };
}
