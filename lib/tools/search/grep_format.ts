// Owns Grep's result text from an engine's findings (docs/reference/search.md, "Grep"), as Claude Code
// writes it: paths relative to the workspace (absolute outside it); files newest first, counts and
// content by path; content lines `path:N:text` (matches) and `path-N-text` (context) with `--` between
// groups when context was asked for, lines over 500 characters omitted; `head_limit` (default 250, 0 =
// all) after `offset`, and the pagination it applied said. Pure: file times come in with the findings.

import { isAbsolute, relative } from "../../path.ts";
import { GREP_DEFAULT_HEAD_LIMIT } from "../input_limits.ts";
import type { FileFinding, GrepMode } from "./grep_query.ts";

/** A line longer than this is shown as omitted (rg --max-columns 500, as Claude Code runs it). */
export const GREP_MAX_LINE_CHARS = 500;

export interface FormatOptions {
  mode: GrepMode;
  /** The workspace root paths are shown relative to. */
  base: string;
  rootIsFile: boolean;
  lineNumbers: boolean;
  /** Context was asked for: groups are separated by `--`. */
  contextBreaks: boolean;
  headLimit?: number;
  offset?: number;
}

/** `path` as shown: relative to `base` when inside it. */
export function shownPath(base: string, path: string): string {
  const rel = relative(base, path);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** `items` after `offset`, at most `limit` (0 = all); the limit when it cut something. */
function paginate<T>(
  items: readonly T[],
  o: { limit?: number | undefined; offset?: number | undefined },
): { items: T[]; applied?: number } {
  const { limit } = o;
  const offset = o.offset ?? 0;
  if (limit === 0) return { items: items.slice(offset) };
  const n = limit ?? GREP_DEFAULT_HEAD_LIMIT;
  const out = items.slice(offset, offset + n);
  return items.length - offset > n ? { items: out, applied: n } : { items: out };
}

function pagination(applied: number | undefined, offset: number | undefined): string {
  const parts: string[] = [];
  if (applied !== undefined) parts.push(`limit: ${applied}`);
  if (offset !== undefined && offset > 0) parts.push(`offset: ${offset}`);
  return parts.join(", ");
}

const plural = (n: number, one: string) => (n === 1 ? one : `${one}s`);

/** The lines content mode shows for one file, with its path (or none when the root is that file). */
function fileLines(f: FileFinding, o: FormatOptions): string[] {
  const prefix = o.rootIsFile ? "" : shownPath(o.base, f.path);
  const lead = (sep: string) => (prefix === "" ? "" : `${prefix}${sep}`);
  if (f.binaryOffset !== undefined) {
    return [`${lead(":")}binary file matches (found "\\0" byte around offset ${f.binaryOffset})`];
  }
  const out: string[] = [];
  let last = -1;
  for (const l of f.lines ?? []) {
    if (o.contextBreaks && last >= 0 && l.line > last + 1) out.push("--");
    last = l.line;
    const sep = l.match ? ":" : "-";
    const text = l.text.length > GREP_MAX_LINE_CHARS
      ? `[Omitted long ${l.match ? "matching" : "context"} line]`
      : l.text;
    out.push(`${lead(sep)}${o.lineNumbers ? `${l.line}${sep}` : ""}${text}`);
  }
  return out;
}

/** Content mode's lines of every file, by path. */
function contentLines(files: FileFinding[], o: FormatOptions): string[] {
  const lines: string[] = [];
  for (const f of [...files].sort(byPath)) {
    const own = fileLines(f, o);
    if (own.length === 0) continue;
    if (o.contextBreaks && lines.length > 0) lines.push("--");
    lines.push(...own);
  }
  return lines;
}

/** Count mode's `path:count` entries, by path. */
function countEntries(files: FileFinding[], o: FormatOptions): string[] {
  return [...files].sort(byPath).map((f) => `${shownPath(o.base, f.path)}:${f.count}`);
}

function contentText(files: FileFinding[], o: FormatOptions): string {
  const lines = contentLines(files, o);
  const { items, applied } = paginate(lines, { limit: o.headLimit, offset: o.offset });
  const pag = pagination(applied, o.offset);
  const body = items.length > 0
    ? items.join("\n")
    : (o.offset ?? 0) > 0 && lines.length > 0
    ? "No entries at this offset"
    : "No matches found";
  return pag === "" ? body : `${body}\n\n[Showing results with pagination = ${pag}]`;
}

function countText(files: FileFinding[], o: FormatOptions): string {
  const entries = countEntries(files, o);
  const { items, applied } = paginate(entries, { limit: o.headLimit, offset: o.offset });
  const pag = pagination(applied, o.offset);
  const total = files.reduce((n, f) => n + f.count, 0);
  const body = items.length > 0
    ? items.join("\n")
    : total > 0
    ? "No entries at this offset"
    : "No matches found";
  return `${body}\n\nFound ${total} total ${plural(total, "occurrence")} across ${files.length} ${
    plural(files.length, "file")
  }.${pag === "" ? "" : ` with pagination = ${pag}`}`;
}

function filesText(files: (FileFinding & { mtime: number })[], o: FormatOptions): string {
  const sorted = [...files].sort((a, b) => b.mtime - a.mtime || byPath(a, b));
  const { items, applied } = paginate(sorted, { limit: o.headLimit, offset: o.offset });
  const pag = pagination(applied, o.offset);
  if (items.length === 0) {
    return (o.offset ?? 0) > 0 && files.length > 0
      ? `No entries at this offset. [Showing results with pagination = ${pag}]`
      : "No files found";
  }
  const head = `Found ${items.length} ${plural(items.length, "file")}${pag === "" ? "" : ` ${pag}`}`;
  return `${head}\n${items.map((f) => shownPath(o.base, f.path)).join("\n")}`;
}

/**
 * Claude Code's `tool_response` for a search (the Agent SDK's GrepOutput; tools/hook_response.ts):
 * the same page of findings the text shows, as data — the files listed (files_with_matches), or the
 * lines (content) or entries (count) with their number; the limit and offset it applied.
 */
export function grepResponse(
  files: (FileFinding & { mtime?: number })[],
  o: FormatOptions,
): Record<string, unknown> {
  const page = { limit: o.headLimit, offset: o.offset };
  let response: Record<string, unknown>;
  let applied: number | undefined;
  if (o.mode === "content") {
    const p = paginate(contentLines(files, o), page);
    applied = p.applied;
    response = {
      mode: o.mode,
      numFiles: 0,
      filenames: [],
      content: p.items.join("\n"),
      numLines: p.items.length,
    };
  } else if (o.mode === "count") {
    const p = paginate(countEntries(files, o), page);
    applied = p.applied;
    const numMatches = files.reduce((n, f) => n + f.count, 0);
    response = {
      mode: o.mode,
      numFiles: files.length,
      filenames: [],
      content: p.items.join("\n"),
      numMatches,
    };
  } else {
    const sorted = [...files].sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || byPath(a, b));
    const p = paginate(sorted, page);
    applied = p.applied;
    const filenames = p.items.map((f) => shownPath(o.base, f.path));
    response = { mode: o.mode, filenames, numFiles: filenames.length };
  }
  if (applied !== undefined) response.appliedLimit = applied;
  if (o.offset !== undefined && o.offset > 0) response.appliedOffset = o.offset;
  return response;
}

/** The result text of a search's findings (`mtime` of each file for files_with_matches). */
export function grepText(files: (FileFinding & { mtime?: number })[], o: FormatOptions): string {
  if (o.mode === "content") return contentText(files, o);
  if (o.mode === "count") return countText(files, o);
  return filesText(files.map((f) => ({ ...f, mtime: f.mtime ?? 0 })), o);
}
