// Owns the Edit tool: exact string replacement in one file (Claude Code semantics: the match must be
// unique unless replace_all). Where it may write is decided by paths.ts.

import { describeError } from "../errors.ts";
import { notWritable, resolveWritePath } from "./paths.ts";
import { cutLine, decodeText, looksBinary, numberLine, plural, splitLines } from "./text.ts";
import { denied, fail, ok, type Tool } from "./tool.ts";
import { editResponse } from "./hook_response.ts";
import { ensureParent, writeChecked } from "./write.ts";
import { builtInInput } from "./input_check.ts";
import type { EditInput } from "./input_zod.ts";
import { READ_MAX_BYTES } from "./read.ts";

export type { EditInput };

const DESCRIPTION = `Performs exact string replacements in a file.

Usage:
- Read the file first. old_string must match the file exactly, including whitespace and indentation. Never include the line-number prefix that Read shows (number + tab): match only the text after the tab.
- The edit fails if old_string is not found, or if it occurs more than once and replace_all is not set: add surrounding lines to old_string to make it unique, or set replace_all to replace every occurrence (useful for renaming a variable).
- An empty old_string creates a new file (or fills an empty one) with new_string.
- file_path may be absolute or relative to the workspace root; edits outside the workspace are refused.
- Prefer editing existing files over writing new ones.`;

/** Lines shown around the first change in the result. */
const SNIPPET_CONTEXT = 3;
const SNIPPET_MAX_LINES = 40;

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) count++;
  return count;
}

/** The updated lines around the first replacement, numbered like Read. */
function snippet(updated: string, at: number, inserted: string): string {
  const lines = splitLines(updated);
  const first = updated.slice(0, at).split("\n").length;
  const last = first + inserted.split("\n").length - 1;
  const from = Math.max(1, first - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, last + SNIPPET_CONTEXT, from + SNIPPET_MAX_LINES - 1);
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(numberLine(n, cutLine(lines[n - 1] ?? "", 500)));
  return out.join("\n");
}

export const editTool: Tool<EditInput> = {
  name: "Edit",
  description: DESCRIPTION,
  kind: "write",
  ...builtInInput<EditInput>("Edit"),
  async run(input, ctx) {
    if (input.old_string === input.new_string) {
      return fail("old_string and new_string are identical, so there is nothing to change.");
    }
    const target = await resolveWritePath(ctx, input.file_path);
    if (!target.ok) return denied(target.message);
    const { fs } = ctx.ports;
    const { path, area } = target;
    try {
      const info = await fs.stat(path);
      if (info?.isDirectory) return fail(`Cannot edit ${path}: it is a directory.`);
      if (info === null && input.old_string !== "") return fail(`File does not exist: ${path}.`);
      // Only a regular file (a FIFO would block the session, a device never end), and one Read can show.
      const read = info === null
        ? { kind: "file" as const, bytes: new Uint8Array(), truncated: false }
        : await fs.readRegularFile(path, { maxBytes: READ_MAX_BYTES });
      if (read.kind === "not_regular") {
        return fail(`Cannot edit ${path}: it is ${read.what}, not a regular file.`);
      }
      if (read.truncated) return fail(`Cannot edit ${path}: it is larger than ${READ_MAX_BYTES} bytes.`);
      const bytes = read.bytes;
      if (looksBinary(bytes)) return fail(`Cannot edit ${path}: it is a binary file.`);
      const text = decodeText(bytes);
      let oldString = input.old_string;
      let newString = input.new_string;
      if (oldString === "" && text !== "") {
        return fail(
          `Cannot edit ${path}: old_string is empty, which only creates a new file or fills an empty ` +
            `one, and this file has content. Give the text to replace.`,
        );
      }
      let count = oldString === "" ? 1 : countOccurrences(text, oldString);
      if (count === 0 && text.includes("\r\n") && oldString.includes("\n")) {
        // The file uses CRLF line ends, which Read does not show: match with them.
        const crlf = (s: string) => s.replace(/\r?\n/g, "\r\n");
        oldString = crlf(oldString);
        newString = crlf(newString);
        count = countOccurrences(text, oldString);
      }
      if (count === 0) {
        return fail(
          `String to replace not found in ${path}. old_string must match the file exactly, including ` +
            `whitespace and indentation, without Read's line-number prefixes. Read the file again to check.`,
        );
      }
      if (count > 1 && input.replace_all !== true) {
        return fail(
          `Found ${count} matches of the string to replace in ${path}, but replace_all is false. ` +
            `Add surrounding context to old_string to make it unique, or set replace_all to true to ` +
            `replace every match.`,
        );
      }
      const at = oldString === "" ? 0 : text.indexOf(oldString);
      const updated = oldString === ""
        ? newString
        : input.replace_all === true
        ? text.split(oldString).join(newString)
        : text.slice(0, at) + newString + text.slice(at + oldString.length);
      if (info === null) await ensureParent(fs, path, area);
      await writeChecked(fs, path, { text: updated, area });
      const result = ok(
        `Edited ${path}: replaced ${plural(count, "occurrence")}. The updated section:\n${
          snippet(updated, at, newString)
        }`,
        { path, replacements: count, created: info === null, modifiedFiles: [path] },
      );
      const response = await editResponse(path, {
        oldString: input.old_string,
        newString: input.new_string,
        original: text,
        updated,
        replaceAll: input.replace_all === true,
      });
      return { ...result, response };
    } catch (e) {
      return fail(notWritable(e, path, ctx.workspaceRoot) ?? `Cannot edit ${path}: ${describeError(e)}`);
    }
  },
};
