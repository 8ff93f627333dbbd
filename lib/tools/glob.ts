// Owns the Glob tool: files matching a glob pattern, newest first, capped, within a time limit. It never
// opens a file: the walk lists folders and stats what matches (a FIFO or device is never a match). Matching lives in
// protocol/glob_pattern.ts and the walk in walk.ts; reads may search outside the workspace.

import { isAbsolute, join } from "../path.ts";
import { describeError } from "../errors.ts";
import { compileGlob, hasMagic } from "../protocol/glob_pattern.ts";
import { resolveReadPath, statOrRefusal } from "./paths.ts";
import { fail, ok, type Tool } from "./tool.ts";
import { globResponse } from "./hook_response.ts";
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
import type { GlobInput } from "./input_zod.ts";

export type { GlobInput };

export const GLOB_MAX_RESULTS = 1000;
/** A Glob stops here and answers with what it found, saying so. */
export const GLOB_TIME_LIMIT_MS = 20_000;

const DESCRIPTION = `Fast file pattern matching that works with any codebase size.

Usage:
- Supports glob patterns like "**/*.js", "src/**/*.ts", "*.{json,yaml}", "test_?.py" or "[A-Z]*.md". "**" matches any number of folders; "*" and "?" never cross "/".
- The pattern is matched against paths relative to path (default: the workspace root).
- Returns absolute file paths sorted by modification time, newest first, at most ${GLOB_MAX_RESULTS}.
- .git and node_modules are skipped unless the pattern names them.
- Use this tool to find files by name. For searching file contents use Grep. For open-ended searches that need several rounds, delegate to an agent with the Agent tool.`;

/** An absolute pattern becomes (literal folder prefix, relative rest). */
function splitAbsolute(pattern: string): { base: string; rest: string } {
  const parts = pattern.split("/");
  const firstMagic = parts.findIndex(hasMagic);
  if (firstMagic < 0) return { base: parts.slice(0, -1).join("/") || "/", rest: parts.at(-1) ?? "" };
  return { base: parts.slice(0, firstMagic).join("/") || "/", rest: parts.slice(firstMagic).join("/") };
}

export const globTool: Tool<GlobInput> = {
  name: "Glob",
  description: DESCRIPTION,
  kind: "read",
  ...builtInInput<GlobInput>("Glob"),
  async run(input, ctx) {
    let base = input.path === undefined || input.path === ""
      ? ctx.workspaceRoot
      : await resolveReadPath(ctx, input.path);
    let pattern = input.pattern.replace(/^(\.\/)+/, "");
    if (isAbsolute(pattern)) {
      const split = splitAbsolute(pattern);
      base = split.base;
      pattern = split.rest;
    }
    const { fs } = ctx.ports;
    const stat = await statOrRefusal(fs, base);
    if ("refused" in stat) return fail(stat.refused);
    const info = stat.info;
    if (info === null) return fail(`Directory does not exist: ${base}.`);
    if (!info.isDirectory) return fail(`${base} is not a directory; Glob's path must be a folder.`);

    const matcher = compileGlob(pattern);
    // Glob over `/` must end: at the time limit it answers with what it found, saying so.
    const started = ctx.ports.clock.now();
    const deadline = started + GLOB_TIME_LIMIT_MS;
    let timedOut = false;
    const stop = () => (timedOut ||= ctx.ports.clock.now() >= deadline);
    const found: { path: string; mtime: number }[] = [];
    const skips: WalkSkip[] = [];
    try {
      const walk = walkFiles(fs, base, {
        skipDirs: skippedNoiseDirs(pattern),
        enterDir: (rel) => matcher.mayContain(rel),
        signal: ctx.signal,
        stop,
        ...searchBounds(ctx, "Glob", (s) => {
          // Only what the pattern would have listed is worth a note.
          if (s.kind !== "link" || matcher.matches(s.rel)) skips.push(s);
        }),
      });
      for await (const file of walk) {
        if (!matcher.matches(file.rel)) continue;
        let mtime = 0;
        try {
          mtime = (await fs.stat(file.real))?.mtimeMs ?? 0; // null: removed since listed, still shown
        } catch (e) {
          const skipped = unreadable(file.real, e);
          if (skipped !== undefined) skips.push(skipped);
        }
        found.push({ path: join(base, file.rel), mtime });
      }
    } catch (e) {
      return fail(`Glob failed in ${base}: ${describeError(e)}`);
    }
    if (ctx.signal.aborted) return fail("Glob was interrupted.");
    const rootFailure = unreadableRoot(skips, base);
    if (rootFailure !== undefined) return fail(rootFailure);
    const skipped = skippedNote(skips);
    const late = timedOut
      ? `The search stopped at its time limit (${
        GLOB_TIME_LIMIT_MS / 1000
      } s) before it finished, so these ` +
        "results are incomplete: more files may match. Search a more specific path or pattern.\n\n"
      : "";
    const durationMs = ctx.ports.clock.now() - started;
    if (found.length === 0) {
      return {
        ...ok(`${late}No files found${skipped}`, { count: 0, ...(timedOut ? { timedOut } : {}) }),
        response: globResponse([], { durationMs, truncated: false, timedOut }),
      };
    }

    found.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const shown = found.slice(0, GLOB_MAX_RESULTS).map((f) => f.path);
    const note = found.length > GLOB_MAX_RESULTS
      ? `\n(Results are truncated: showing the ${GLOB_MAX_RESULTS} newest of ${found.length} files. ` +
        `Use a more specific path or pattern.)`
      : "";
    const result = ok(late + shown.join("\n") + note + skipped, {
      count: found.length,
      truncated: note !== "",
      ...(timedOut ? { timedOut } : {}),
    });
    return { ...result, response: globResponse(shown, { durationMs, truncated: note !== "", timedOut }) };
  },
};
