// Owns the Grep tool (docs/reference/search.md, "Grep"): Claude Code's Grep — ripgrep's regular
// expressions, .gitignore/.ignore, hidden files searched, binary files skipped, the three output modes,
// head_limit/offset, multiline, type and glob filters. It runs ripgrep when one is found
// (lib/sys/ripgrep.ts; search/rg_engine.ts), else its built-in search (search/builtin_engine.ts), which
// answers the same (tests/grep_conformance_test.ts checks both against rg). Either stops at
// GREP_TIME_LIMIT_MS with what it found, opens only regular files, and is checked against the session's
// read rules (a refused path is left out and said). Reads may search outside the workspace.

import { describeError } from "../errors.ts";
import { findRipgrep } from "../sys/ripgrep.ts";
import { resolveReadPath, statOrRefusal } from "./paths.ts";
import { capHead } from "./text.ts";
import { fail, ok, type Tool, type ToolContext } from "./tool.ts";
import { skippedNote, type WalkSkip } from "./walk.ts";
import { builtInInput } from "./input_check.ts";
import type { GrepInput } from "./input_zod.ts";
import {
  type FileFinding,
  GREP_TIME_LIMIT_MS,
  type GrepFindings,
  type GrepQuery,
  GrepRefusal,
  splitGlobs,
} from "./search/grep_query.ts";
import { grepResponse, grepText } from "./search/grep_format.ts";

export type { GrepInput };

export const GREP_MAX_OUTPUT_CHARS = 30_000;

const DESCRIPTION = `A powerful search tool built on ripgrep.

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke \`grep\` or \`rg\` as a Bash command.
- Supports full regex syntax (e.g., "log.*Error", "function\\s+\\w+"); the syntax is ripgrep's (not grep's): literal braces need escaping (use \`interface\\{\\}\` to find \`interface{}\` in Go code).
- Filter files with glob (e.g., "*.js", "**/*.tsx") or type (e.g., "js", "py", "rust"). Files ignored by .gitignore or .ignore are skipped; hidden files are searched; binary files are skipped.
- Output modes: "content" shows matching lines as path:line:text (-n, default on; context with -A, -B, -C), "files_with_matches" shows only file paths, newest first (default), "count" shows match counts per file.
- head_limit keeps the first N lines or entries (default 250; 0 for all), after offset.
- Patterns match within single lines by default. For patterns that span lines, like \`struct \\{[\\s\\S]*?field\`, use multiline: true.
- Use the Task tool for open-ended searches that need several rounds.`;

const TIME_NOTE = `The search stopped at its time limit (${
  GREP_TIME_LIMIT_MS / 1000
} s) before it finished, so these results are incomplete: more matches may exist. Search a more specific path or pattern.`;

export interface GrepEngineOptions {
  /** The ripgrep to run (lib/sys/ripgrep.ts), or undefined for the built-in search. */
  ripgrep: () => string | undefined;
}

/** The findings of `query` from ripgrep when it can run here, else from the built-in search. */
async function findings(
  ctx: ToolContext,
  query: GrepQuery,
  engine: { rg: string | undefined },
): Promise<GrepFindings> {
  if (engine.rg !== undefined) {
    const { ripgrepGrep } = await import("./search/rg_engine.ts");
    try {
      return await ripgrepGrep(ctx.ports.process, engine.rg, query);
    } catch (e) {
      if (e instanceof GrepRefusal) throw e;
      engine.rg = undefined; // it cannot be started here (a Worker without a run grant): built-in from now on
    }
  }
  const { builtinGrep } = await import("./search/builtin_engine.ts");
  return await builtinGrep(ctx.ports.fs, query);
}

/** The query of a call: the root resolved and checked, the rest from the input with Claude Code's defaults. */
async function queryOf(ctx: ToolContext, input: GrepInput): Promise<GrepQuery | { refused: string }> {
  const root = input.path === undefined || input.path === ""
    ? ctx.workspaceRoot
    : await resolveReadPath(ctx, input.path);
  const stat = await statOrRefusal(ctx.ports.fs, root);
  if ("refused" in stat) return stat;
  if (stat.info === null) return { refused: `Path does not exist: ${root}.` };
  if (!stat.info.isFile && !stat.info.isDirectory) {
    return { refused: `${root} is not a regular file or a folder; Grep searches only those.` };
  }
  const content = input.output_mode === "content";
  const context = input.context ?? input["-C"];
  const clock = ctx.ports.clock;
  return {
    pattern: input.pattern,
    root,
    rootIsFile: stat.info.isFile,
    mode: input.output_mode ?? "files_with_matches",
    ignoreCase: input["-i"] === true,
    multiline: input.multiline === true,
    onlyMatching: content && input["-o"] === true,
    before: content ? (context ?? input["-B"] ?? 0) : 0,
    after: content ? (context ?? input["-A"] ?? 0) : 0,
    globs: splitGlobs(input.glob),
    ...(input.type === undefined || input.type === "" ? {} : { type: input.type }),
    deadline: clock.now() + GREP_TIME_LIMIT_MS,
    now: () => clock.now(),
    signal: ctx.signal,
  };
}

/** The findings the session's read rules allow, and a skip for each unreadable path and each they refuse. */
function allowed(ctx: ToolContext, found: GrepFindings): { files: FileFinding[]; skips: WalkSkip[] } {
  const skips: WalkSkip[] = found.unreadable.map((u) => ({ kind: "unreadable", ...u }));
  const refusal = ctx.pathRefusal;
  if (refusal === undefined) return { files: found.files, skips };
  const files = found.files.filter((f) => {
    const reason = refusal("Grep", f.path);
    if (reason !== undefined) skips.push({ kind: "refused", reason });
    return reason === undefined;
  });
  return { files, skips };
}

/** The Grep tool searching with `options.ripgrep`'s rg, or its built-in search when there is none. */
export function makeGrepTool(options: GrepEngineOptions): Tool<GrepInput> {
  let engine: { rg: string | undefined } | undefined;
  return {
    name: "Grep",
    description: DESCRIPTION,
    kind: "read",
    /** Claude Code's: a longer result is saved to a file (executor/result_persistence.ts). */
    maxResultChars: 20_000,
    ...builtInInput<GrepInput>("Grep"),
    run: async (input, ctx) => await runGrep(input, ctx, engine ??= { rg: options.ripgrep() }),
  };
}

export const grepTool: Tool<GrepInput> = makeGrepTool({ ripgrep: findRipgrep });

async function runGrep(input: GrepInput, ctx: ToolContext, engine: { rg: string | undefined }) {
  const query = await queryOf(ctx, input);
  if ("refused" in query) return fail(query.refused);
  let found: GrepFindings;
  try {
    found = await findings(ctx, query, engine);
  } catch (e) {
    if (e instanceof GrepRefusal) return fail(`Invalid search: ${e.message}`);
    return fail(`Grep failed in ${query.root}: ${describeError(e)}`);
  }
  if (ctx.signal.aborted) return fail("Grep was interrupted.");
  const rootFailure = found.unreadable.find((u) => u.path === query.root);
  if (rootFailure !== undefined) return fail(`Cannot read ${query.root}: ${rootFailure.reason}.`);
  const { files, skips } = allowed(ctx, found);
  if (query.mode === "files_with_matches") {
    for (const f of files as (FileFinding & { mtime?: number })[]) {
      f.mtime = (await ctx.ports.fs.stat(f.path).catch(() => null))?.mtimeMs ?? 0;
    }
  }
  const format = {
    mode: query.mode,
    base: ctx.workspaceRoot,
    rootIsFile: query.rootIsFile,
    lineNumbers: input["-n"] ?? true,
    contextBreaks: query.before > 0 || query.after > 0,
    ...(input.head_limit === undefined ? {} : { headLimit: input.head_limit }),
    ...(input.offset === undefined ? {} : { offset: input.offset }),
  };
  const text = grepText(files, format);
  const capped = capHead(
    text,
    GREP_MAX_OUTPUT_CHARS,
    `(Output truncated at ${GREP_MAX_OUTPUT_CHARS} characters. Narrow the search with path, glob, type or head_limit.)`,
  );
  const matches = files.reduce((n, f) => n + f.count, 0);
  const result = ok((found.timedOut ? `${TIME_NOTE}\n\n` : "") + capped.text + skippedNote(skips), {
    files: files.length,
    matches,
    truncated: capped.truncated,
    ...(found.timedOut ? { timedOut: true } : {}),
  });
  const response = grepResponse(files, format);
  if (found.timedOut) response.timedOut = true;
  return { ...result, response };
}
