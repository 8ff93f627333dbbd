// Owns Claude Code's per-tool `tool_response` objects: what PostToolUse hooks read on stdin for a
// built-in tool's call (docs/guides/hooks.md), built from the tool's own result data and never sent to
// the model. The shapes of Bash, Read, Write and Edit were recorded from Claude Code 2.1.332
// (tests/fixtures/claude/hooks_tool_response); Glob and Grep follow the Agent SDK's published output
// types (GlobOutput, GrepOutput), as Claude Code 2.1.332 offers neither tool to record.

import { importNpm } from "../npm_module.ts";

/** One hunk of a unified diff, as Claude Code's `structuredPatch` lists it (3 lines of context). */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** The hunks turning `before` into `after` (the `diff` package, loaded only when a hook needs it). */
export async function patchHunks(before: string, after: string): Promise<PatchHunk[]> {
  const { structuredPatch } = await importNpm("diff", () => import("diff"), { exports: ["structuredPatch"] });
  return structuredPatch("", "", before, after, "", "", { context: 3 }).hunks.map((h) => ({
    oldStart: h.oldStart,
    oldLines: h.oldLines,
    newStart: h.newStart,
    newLines: h.newLines,
    lines: h.lines,
  }));
}

/** Commands Claude Code 2.1.332 expects to print nothing when they succeed (`noOutputExpected`). */
const SILENT_COMMANDS: ReadonlySet<string> = new Set([
  "mv",
  "cp",
  "rm",
  "mkdir",
  "rmdir",
  "chmod",
  "chown",
  "chgrp",
  "touch",
  "ln",
  "cd",
  "export",
  "unset",
  "wait",
]);

/**
 * Whether `command` is expected to print nothing: each of its commands (split at `&&`, `||`, `;`, `|`
 * and line ends) starts with a silent one, and it has one. A split inside quotes only makes it false.
 */
export function silentCommand(command: string): boolean {
  const words = command.split(/&&|\|\||;|\||\n/).map((part) => part.trim().split(/\s+/, 1)[0] ?? "")
    .filter((w) => w !== "");
  return words.length > 0 && words.every((w) => SILENT_COMMANDS.has(w));
}

/**
 * Bash: the output (both streams, as the model sees them, in `stdout`), whether it was interrupted,
 * whether the command is one expected to print nothing.
 */
export function bashResponse(
  output: string,
  o: { command: string; interrupted: boolean },
): Record<string, unknown> {
  return {
    stdout: output,
    stderr: "",
    interrupted: o.interrupted,
    isImage: false,
    noOutputExpected: silentCommand(o.command),
  };
}

/**
 * Read of a text file: the lines from `startLine` (1-based), at most `limit`, unnumbered; lines are
 * counted as Claude Code counts them (a final newline ends an empty last line).
 */
export function readResponse(
  path: string,
  text: string,
  o: { startLine: number; limit: number },
): Record<string, unknown> {
  const all = text.split(/\r?\n/);
  const lines = all.slice(o.startLine - 1, o.startLine - 1 + o.limit);
  return {
    type: "text",
    file: {
      filePath: path,
      content: lines.join("\n"),
      numLines: lines.length,
      startLine: o.startLine,
      totalLines: all.length,
    },
  };
}

/**
 * Write: `create` (no file before) or `update`, with the diff from what the file held (`original`;
 * null when it was new, or too large or not text to show).
 */
export async function writeResponse(
  path: string,
  content: string,
  o: { created: boolean; original: string | null },
): Promise<Record<string, unknown>> {
  return {
    type: o.created ? "create" : "update",
    filePath: path,
    content,
    structuredPatch: o.original === null ? [] : await patchHunks(o.original, content),
    originalFile: o.original,
    userModified: false,
  };
}

/** Edit: the strings as the model gave them, the file before and the diff to after. */
export async function editResponse(
  path: string,
  o: { oldString: string; newString: string; original: string; updated: string; replaceAll: boolean },
): Promise<Record<string, unknown>> {
  return {
    filePath: path,
    oldString: o.oldString,
    newString: o.newString,
    originalFile: o.original,
    structuredPatch: await patchHunks(o.original, o.updated),
    userModified: false,
    replaceAll: o.replaceAll,
  };
}

/** Glob: the files listed (as the model sees them), how long the search took, whether some were left out. */
export function globResponse(
  filenames: string[],
  o: { durationMs: number; truncated: boolean; timedOut?: boolean },
): Record<string, unknown> {
  const response: Record<string, unknown> = {
    filenames,
    durationMs: o.durationMs,
    numFiles: filenames.length,
    truncated: o.truncated,
  };
  if (o.timedOut === true) response.timedOut = true;
  return response;
}
