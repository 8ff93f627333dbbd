// Owns Grep's built-in search, for when ripgrep cannot run (docs/reference/search.md, "Grep"): the same
// findings as rg_engine.ts from TypeScript. A walker lists folders several at a time (the Fs port's
// reads overlap) and skips what ignore_rules.ts says rg skips; it opens only regular files (a symlink,
// FIFO, socket or device met in the walk is passed over, as rg --no-follow does, and a file is opened
// without waiting, Fs.readUpTo), up to GREP_MAX_FILE_BYTES, into a reused buffer. The literal every
// match contains (rust_regex.ts) is looked for in the raw bytes first (byte_literal.ts): a file without
// it is dropped undecoded. Only the rest is decoded and searched whole: a NUL byte makes it binary
// (skipped, as rg skips a binary file it found), then the RegExp; lines are counted only around matches.
// Ignore files are read only where the folder's listing shows them. The deadline is checked between
// files. Memory is bounded by the files held at once and the findings kept.

import type { Fs } from "../../sys/fs.ts";
import { join } from "../../path.ts";
import { fsReason } from "../paths.ts";
import { isNotFound } from "../../sys/errors.ts";
import { compileRustRegex } from "./rust_regex.ts";
import { IgnoreRules } from "./ignore_rules.ts";
import {
  type ContentLine,
  type FileFinding,
  GREP_MAX_FILE_BYTES,
  type GrepFindings,
  type GrepQuery,
  VCS_DIRS,
} from "./grep_query.ts";

/** Folders listed and files read at once. */
const CONCURRENCY = 8;
/** Each read's reused buffer (files up to this size are read without allocating). */
const READ_BUFFER_BYTES = 256 * 1024;

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
  query: GrepQuery,
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
function contentLines(text: string, matched: readonly number[], query: GrepQuery): ContentLine[] {
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
  o: { matcher: Matcher; query: GrepQuery; explicit: boolean },
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

/** Runs `work` over items as they arrive, `CONCURRENCY` at a time, until the queue drains. */
class Pool {
  #queue: (() => Promise<void>)[] = [];
  #running = 0;
  #idle: (() => void) | undefined;
  #error: unknown;

  add(work: () => Promise<void>): void {
    this.#queue.push(work);
    this.#pump();
  }

  #pump(): void {
    while (this.#running < CONCURRENCY && this.#queue.length > 0) {
      const work = this.#queue.shift()!;
      this.#running++;
      work().catch((e) => (this.#error ??= e)).finally(() => {
        this.#running--;
        this.#pump();
      });
    }
    if (this.#running === 0 && this.#queue.length === 0) this.#idle?.();
  }

  drained(): Promise<void> {
    if (this.#running === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => (this.#idle = resolve)).then(() => {
      if (this.#error !== undefined) throw this.#error;
    });
  }
}

/** The built-in search of `query` over the Fs port. Throws GrepRefusal for a pattern or type rg refuses. */
export async function builtinGrep(fs: Fs, query: GrepQuery): Promise<GrepFindings> {
  const matcher = compileRustRegex(query.pattern, {
    ignoreCase: query.ignoreCase,
    multiline: query.multiline,
  });
  const findings: GrepFindings = { files: [], timedOut: false, unreadable: [] };
  const late = () => {
    if (query.signal.aborted || query.now() >= query.deadline) findings.timedOut = true;
    return findings.timedOut;
  };
  const failed = (path: string, e: unknown) => {
    if (!isNotFound(e)) findings.unreadable.push({ path, reason: fsReason(e) });
  };
  // Read buffers, one per read in flight, reused: most files are decoded from and dropped with them.
  const buffers: Uint8Array[] = [];
  const decoder = new TextDecoder();
  const read = async (path: string, explicit: boolean) => {
    if (late()) return;
    const into = buffers.pop() ?? new Uint8Array(READ_BUFFER_BYTES);
    try {
      const bytes = await fs.readUpTo(path, { maxBytes: GREP_MAX_FILE_BYTES, into });
      // A file without the literal cannot match (binary or not); a file given by name is searched with
      // its NUL bytes as line ends, which could make a literal holding one.
      if (bytes === null || !explicit && matcher.bytePrefilter?.(bytes) === false) return;
      const found = searchText({ path, text: decoder.decode(bytes) }, { matcher, query, explicit });
      if (found !== null) findings.files.push(found);
    } catch (e) {
      failed(path, e);
    } finally {
      buffers.push(into);
    }
  };
  if (query.rootIsFile) {
    await read(query.root, true);
    return findings;
  }
  const rules = await IgnoreRules.open(fs, query.root, query);
  const pool = new Pool();
  const visit = (dir: string) => async () => {
    if (late()) return;
    let entries;
    try {
      entries = await fs.readDir(dir);
    } catch (e) {
      failed(dir, e);
      return;
    }
    rules.listed(dir, entries.map((e) => e.name));
    for (const entry of entries) {
      // rg --no-follow: a symlink is passed over; so is a version control folder (or a worktree's file).
      if (entry.isSymlink || VCS_DIRS.includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        if (await rules.verdict(path, { dir, isDir: true }) === "keep") pool.add(visit(path));
      } else if (entry.isFile && await rules.verdict(path, { dir, isDir: false }) === "keep") {
        pool.add(() => read(path, false));
      }
    }
  };
  pool.add(visit(query.root));
  await pool.drained();
  return findings;
}
