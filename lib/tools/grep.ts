// Owns the Grep tool: a regular-expression search over file contents, in TypeScript (JS RegExp)
// so Blade never depends on ripgrep being installed. Skips binary files, .git and node_modules;
// caps its output. Reads may search outside the workspace.

import { basename } from "../path.ts";
import { describeError } from "../errors.ts";
import { compileGlob } from "../protocol/glob_pattern.ts";
import { resolveReadPath, statOrRefusal } from "./paths.ts";
import { capHead, cutLine, decodeText, looksBinary, plural, splitLines } from "./text.ts";
import { fail, ok, type Tool, type ToolContext } from "./tool.ts";
import {
  searchBounds,
  skippedNoiseDirs,
  skippedNote,
  unreadable,
  unreadableRoot,
  walkFiles,
  type WalkSkip,
} from "./walk.ts";
import { builtInInput } from "./input_check.ts";
import type { GrepInput } from "./input_zod.ts";

export type { GrepInput };

export const GREP_MAX_OUTPUT_CHARS = 30_000;
/** Files larger than this are skipped (generated data, logs). */
export const GREP_MAX_FILE_BYTES = 20 * 1024 * 1024;
const MAX_LINE_CHARS = 500;

const DESCRIPTION = `A powerful content search tool built on JavaScript regular expressions.

Usage:
- ALWAYS use Grep for content search. Never run \`grep\` or \`rg\` through Bash.
- pattern is a JavaScript regular expression (e.g. "log.*Error", "function\\s+\\w+"). Escape literal braces and parentheses (use "interface\\{\\}" to find "interface{}").
- path is a file or folder to search (default: the workspace root). Filter files with glob (e.g. "*.js", "**/*.{ts,tsx}"); a glob without "/" matches file names at any depth.
- output_mode: "files_with_matches" (default) lists matching files, newest first; "content" shows matching lines as path:line:text (-n, default on) with optional context (-A, -B, -C); "count" shows matching lines per file.
- head_limit keeps only the first N lines or entries. Binary files, .git and node_modules are skipped (name them in glob or path to search them). Output is capped at ${GREP_MAX_OUTPUT_CHARS} characters.
- Patterns match one line at a time.`;

interface FileHits {
  path: string;
  lines: string[];
  /** 0-based indexes of matching lines. */
  hits: number[];
  /** When the file last changed (files_with_matches lists newest first). */
  mtime: number;
}

/**
 * The files to search, as (shown path, real path to read): one explicit file, or a walk of a folder
 * filtered by `glob`; what the walk skipped goes to `skips`.
 */
async function* candidates(
  ctx: ToolContext,
  root: string,
  input: GrepInput,
  skips: WalkSkip[],
): AsyncGenerator<{ path: string; real: string }> {
  const info = await ctx.ports.fs.stat(root);
  if (info?.isFile) {
    yield { path: root, real: root };
    return;
  }
  const filter = input.glob === undefined ? undefined : compileGlob(input.glob);
  const byName = input.glob !== undefined && !input.glob.includes("/");
  const wanted = (rel: string) => filter === undefined || filter.matches(byName ? basename(rel) : rel);
  const walk = walkFiles(ctx.ports.fs, root, {
    skipDirs: skippedNoiseDirs(input.glob),
    signal: ctx.signal,
    ...searchBounds(ctx, "Grep", (s) => {
      if (s.kind !== "link" || wanted(s.rel)) skips.push(s);
    }),
  });
  for await (const file of walk) {
    if (wanted(file.rel)) yield file;
  }
}

/** One file's hits, or null (no hits, not a text file, gone); a file it cannot read goes to `skips`. */
async function search(
  ctx: ToolContext,
  { path, real }: { path: string; real: string },
  regex: RegExp,
  skips: WalkSkip[],
): Promise<FileHits | null> {
  let info;
  let bytes;
  try {
    info = await ctx.ports.fs.stat(real);
    if (info === null || !info.isFile || info.size > GREP_MAX_FILE_BYTES) return null;
    bytes = await ctx.ports.fs.readBytes(real);
  } catch (e) {
    const skipped = unreadable(real, e); // a file removed since the walk listed it is just gone
    if (skipped !== undefined) skips.push(skipped);
    return null;
  }
  if (looksBinary(bytes)) return null;
  const lines = splitLines(decodeText(bytes));
  const hits: number[] = [];
  for (let i = 0; i < lines.length; i++) if (regex.test(lines[i]!)) hits.push(i);
  return hits.length === 0 ? null : { path, lines, hits, mtime: info.mtimeMs ?? 0 };
}

/** rg-style content lines: `path:12:text` for matches, `path-13-text` for context, `--` between groups. */
function contentLines(
  file: FileHits,
  options: { before: number; after: number; numbers: boolean },
): string[] {
  const out: string[] = [];
  let shownUpTo = -1;
  const hitSet = new Set(file.hits);
  for (const hit of file.hits) {
    const from = Math.max(0, hit - options.before, shownUpTo + 1);
    const to = Math.min(file.lines.length - 1, hit + options.after);
    if (from > to) continue;
    const withContext = options.before > 0 || options.after > 0;
    if (withContext && shownUpTo >= 0 && from > shownUpTo + 1) out.push("--");
    for (let i = from; i <= to; i++) {
      const sep = hitSet.has(i) ? ":" : "-";
      const number = options.numbers ? `${i + 1}${sep}` : "";
      out.push(`${file.path}${sep}${number}${cutLine(file.lines[i]!, MAX_LINE_CHARS)}`);
    }
    shownUpTo = to;
  }
  return out;
}

type GrepEntry = { text: string; path: string; mtime: number; count: number };

/** The result text for one output mode (files newest first; at most `limit` files for count and files). */
function grepText(mode: string, entries: GrepEntry[], limit: number, matches: number): string {
  if (mode === "content") return entries.map((e) => e.text).join("\n");
  if (mode === "count") {
    const shown = entries.slice(0, limit);
    return `${shown.map((e) => e.text).join("\n")}\n\nFound ${plural(matches, "matching line")} across ${
      plural(entries.length, "file")
    }.`;
  }
  entries.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const shown = entries.slice(0, limit);
  return `Found ${plural(entries.length, "file")}\n${shown.map((e) => e.text).join("\n")}`;
}

export const grepTool: Tool<GrepInput> = {
  name: "Grep",
  description: DESCRIPTION,
  kind: "read",
  ...builtInInput<GrepInput>("Grep"),
  async run(input, ctx) {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern, input["-i"] === true ? "i" : "");
    } catch (e) {
      return fail(`Invalid regular expression ${JSON.stringify(input.pattern)}: ${describeError(e)}`);
    }
    const root = input.path === undefined || input.path === ""
      ? ctx.workspaceRoot
      : await resolveReadPath(ctx, input.path);
    const stat = await statOrRefusal(ctx.ports.fs, root);
    if ("refused" in stat) return fail(stat.refused);
    if (stat.info === null) return fail(`Path does not exist: ${root}.`);

    const mode = input.output_mode ?? "files_with_matches";
    const limit = input.head_limit ?? Number.POSITIVE_INFINITY;
    const context = input["-C"] ?? 0;
    const shape = {
      before: input["-B"] ?? context,
      after: input["-A"] ?? context,
      numbers: input["-n"] ?? true,
    };
    const entries: GrepEntry[] = [];
    let lineBudget = limit;
    let chars = 0;
    const skips: WalkSkip[] = [];
    try {
      for await (const candidate of candidates(ctx, root, input, skips)) {
        const file = await search(ctx, candidate, regex, skips);
        if (file === null) continue;
        const path = candidate.path;
        if (mode === "content") {
          const lines = contentLines(file, shape).slice(0, lineBudget);
          lineBudget -= lines.length;
          const text = lines.join("\n");
          chars += text.length;
          entries.push({ text, path, mtime: 0, count: file.hits.length });
          // Stop early once the output is certainly full.
          if (lineBudget <= 0 || chars > GREP_MAX_OUTPUT_CHARS * 2) break;
        } else {
          const mtime = mode === "files_with_matches" ? file.mtime : 0;
          entries.push({
            text: mode === "count" ? `${path}:${file.hits.length}` : path,
            path,
            mtime,
            count: file.hits.length,
          });
        }
      }
    } catch (e) {
      return fail(`Grep failed in ${root}: ${describeError(e)}`);
    }
    if (ctx.signal.aborted) return fail("Grep was interrupted.");
    const rootFailure = unreadableRoot(skips, root);
    if (rootFailure !== undefined) return fail(rootFailure);
    const skipped = skippedNote(skips);
    if (entries.length === 0) {
      return ok((mode === "files_with_matches" ? "No files found" : "No matches found") + skipped, {
        files: 0,
        matches: 0,
      });
    }

    const matches = entries.reduce((n, e) => n + e.count, 0);
    const meta = { files: entries.length, matches };
    const capped = capHead(
      grepText(mode, entries, limit, matches),
      GREP_MAX_OUTPUT_CHARS,
      `(Output truncated at ${GREP_MAX_OUTPUT_CHARS} characters. Narrow the search with path, glob or head_limit.)`,
    );
    return ok(capped.text + skipped, { ...meta, truncated: capped.truncated });
  },
};
