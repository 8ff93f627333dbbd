// Owns what an approval question shows of a file change (docs/guides/interactive.md): for Write, the
// new file's first lines or, when it replaces one, a unified diff against it; for Edit, the diff of the
// edit applied to the file as it is now (the exact replacement when the old text is not found). Diffs
// come from the maintained `diff` package. Every line is file- or model-controlled text, made safe
// (summary.ts clean) before it is styled, and the preview is bounded. Pure apart from the text given.

import { structuredPatch } from "diff";
import { clean } from "./summary.ts";
import type { Theme } from "./theme.ts";

/** At most this many lines of a preview; the rest is counted. */
export const PREVIEW_MAX_LINES = 40;

export interface ChangeRequest {
  tool: string;
  input: Record<string, unknown> | undefined;
  /** The file's text now; undefined when it does not exist, or when it is too large or unreadable. */
  current: string | undefined;
  /** Whether the file exists (a large or unreadable one has no `current`). */
  exists?: boolean;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The change's preview lines (styled), or [] when the tool changes no file text Blade can show. */
export function changePreview(request: ChangeRequest, theme: Theme): string[] {
  const input = request.input ?? {};
  if (request.tool === "Write") {
    const content = text(input["content"]);
    if (content === undefined) return [];
    if (request.current === undefined) return newFile(content, { theme, replaces: request.exists === true });
    return diffLines(request.current, content, theme);
  }
  if (request.tool === "Edit") {
    const from = text(input["old_string"]);
    const to = text(input["new_string"]);
    if (from === undefined || to === undefined) return [];
    const current = request.current;
    if (current === undefined || from === "" || !current.includes(from)) return replacement(from, to, theme);
    const next = input["replace_all"] === true
      ? current.split(from).join(to)
      : current.replace(from, () => to);
    return diffLines(current, next, theme);
  }
  return [];
}

function bounded(lines: string[], theme: Theme): string[] {
  if (lines.length <= PREVIEW_MAX_LINES) return lines;
  const more = lines.length - PREVIEW_MAX_LINES;
  return [...lines.slice(0, PREVIEW_MAX_LINES), theme.dim(`… ${more} more line${more === 1 ? "" : "s"}`)];
}

function shown(line: string): string {
  return clean(line);
}

function newFile(content: string, o: { theme: Theme; replaces: boolean }): string[] {
  const { theme, replaces } = o;
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const count = `${lines.length} line${lines.length === 1 ? "" : "s"}`;
  const head = theme.dim(
    replaces ? `replaces the whole file (too large to compare) with ${count}:` : `new file, ${count}:`,
  );
  return [head, ...bounded(lines.map((l) => theme.ok(`+ ${shown(l)}`)), theme)];
}

function replacement(from: string, to: string, theme: Theme): string[] {
  return bounded([
    ...from.split("\n").map((l) => theme.error(`- ${shown(l)}`)),
    ...to.split("\n").map((l) => theme.ok(`+ ${shown(l)}`)),
  ], theme);
}

function diffLines(before: string, after: string, theme: Theme): string[] {
  const patch = structuredPatch("a", "b", before, after, "", "", { context: 3 });
  if (patch.hunks.length === 0) return [theme.dim("no change to the file's text")];
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(theme.dim(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`));
    for (const line of hunk.lines) {
      const body = shown(line.slice(1));
      if (line.startsWith("+")) lines.push(theme.ok(`+ ${body}`));
      else if (line.startsWith("-")) lines.push(theme.error(`- ${body}`));
      else if (line.startsWith("\\")) lines.push(theme.dim(body));
      else lines.push(`  ${body}`);
    }
  }
  return bounded(lines, theme);
}
