// Owns searching one file's bytes for Grep's built-in search (docs/reference/search.md, "Grep";
// builtin_engine.ts walks and reads): the literal
// every match contains is looked for in the raw bytes first (byte_literal.ts), so a file without it is
// dropped undecoded; only the rest is decoded and searched whole: a NUL byte makes it binary (skipped,
// as rg skips a binary file it found), then the RegExp; lines are counted only around matches.
// Pure, no I/O: the caller reads the bytes.

import { compileRustRegex } from "./rust_regex.ts";
import type { ContentLine, FileFinding, GrepQuery } from "./grep_query.ts";

/** What a file search needs of the query. */
export type FileSearchSpec = Pick<
  GrepQuery,
  "pattern" | "ignoreCase" | "multiline" | "mode" | "onlyMatching" | "before" | "after"
>;

type Matcher = ReturnType<typeof compileRustRegex>;

/** Where each line starts in `text` (line n, 1-based, starts at starts[n - 1]). Computed lazily per file. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  if (starts.length > 1 && starts.at(-1) === text.length) starts.pop();
  return starts;
}

/** The 1-based line holding offset `at`. */
function lineOf(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function lineText(text: string, at: { starts: readonly number[]; line: number }): string {
  const { starts, line } = at;
  const from = starts[line - 1]!;
  const end = line < starts.length ? starts[line]! - 1 : text.length - (text.endsWith("\n") ? 1 : 0);
  const raw = text.slice(from, end);
  return raw.endsWith("\r") ? raw.slice(0, -1) : raw;
}

/** The matches of one file's text: matching line numbers, and the matched parts for `-o`. */
function matchesIn(
  text: string,
  m: Matcher,
  query: FileSearchSpec,
): { lines: number[]; parts: ContentLine[] } | null {
  if (m.prefilter !== undefined && !m.prefilter(text)) return null;
  m.regex.lastIndex = 0;
  let starts: number[] | undefined;
  const lines = new Set<number>();
  const parts: ContentLine[] = [];
  for (let found = m.regex.exec(text); found !== null; found = m.regex.exec(text)) {
    const at = found.index;
    const end = at + found[0].length;
    if (found[0].length === 0) m.regex.lastIndex++;
    starts ??= lineStarts(text);
    const first = lineOf(starts, at);
    // A match ending right after a newline does not take the next line (rg's multiline matches).
    const last = end > at ? lineOf(starts, end - 1) : first;
    for (let l = first; l <= last; l++) lines.add(l);
    if (query.onlyMatching && found[0].length > 0) {
      found[0].split("\n").forEach((part, k) => {
        const shown = part.endsWith("\r") ? part.slice(0, -1) : part;
        if (shown !== "" || k === 0) parts.push({ line: first + k, match: true, text: shown });
      });
    }
  }
  if (lines.size === 0) return null;
  return { lines: [...lines].sort((a, b) => a - b), parts };
}

/** The lines content mode shows for a file: its matching lines with their context. */
function contentLines(text: string, matched: readonly number[], query: FileSearchSpec): ContentLine[] {
  const starts = lineStarts(text);
  const hits = new Set(matched);
  const out: ContentLine[] = [];
  let shownUpTo = 0;
  for (const line of matched) {
    const from = Math.max(1, line - query.before, shownUpTo + 1);
    const to = Math.min(starts.length, line + query.after);
    for (let l = from; l <= to; l++) {
      out.push({ line: l, match: hits.has(l), text: lineText(text, { starts, line: l }) });
    }
    shownUpTo = Math.max(shownUpTo, to);
  }
  return out;
}

/** One file's finding, or null (no match, binary, too large, gone). */
function searchText(
  file: { path: string; text: string },
  o: { matcher: Matcher; query: FileSearchSpec; explicit: boolean },
): FileFinding | null {
  const { path, text } = file;
  const { matcher: m, query, explicit } = o;
  const nul = text.indexOf("\0");
  if (nul >= 0 && !explicit) return null; // rg quits a binary file it found
  // A file given by name is searched with its NUL bytes as line ends, and said to be binary.
  const searched = nul >= 0 ? text.replaceAll("\0", "\n") : text;
  const found = matchesIn(searched, m, query);
  if (found === null) return null;
  if (query.mode !== "content") return { path, count: found.lines.length };
  if (nul >= 0) return { path, count: found.lines.length, binaryOffset: nul };
  const lines = query.onlyMatching ? found.parts : contentLines(searched, found.lines, query);
  return { path, count: found.lines.length, lines };
}

/**
 * The search of one file's bytes for `spec`: its finding, or null (no match, or binary when found by
 * the walk). `explicit` is a file given by name: searched even when binary, its NUL bytes as line ends.
 * Throws GrepRefusal for a pattern rg refuses (when made, not per file).
 */
export function fileSearcher(
  spec: FileSearchSpec,
): (file: { path: string; bytes: Uint8Array }, explicit: boolean) => FileFinding | null {
  const matcher = compileRustRegex(spec.pattern, { ignoreCase: spec.ignoreCase, multiline: spec.multiline });
  const decoder = new TextDecoder();
  return ({ path, bytes }, explicit) => {
    // A file without the literal cannot match (binary or not); a file given by name is searched with
    // its NUL bytes as line ends, which could make a literal holding one.
    if (!explicit && matcher.bytePrefilter?.(bytes) === false) return null;
    return searchText({ path, text: decoder.decode(bytes) }, { matcher, query: spec, explicit });
  };
}
