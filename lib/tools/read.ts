// Owns the Read tool: a text file's lines, numbered as Claude Code numbers them (`12\tline`,
// tests/fixtures/claude/tools/read_format.json). Reads may go outside the
// workspace when the permission gate lets them (permissions/read_scope.ts, as in Claude Code); directories, binary files and anything but a regular file (a FIFO, a
// device, a socket: followed symlinks included) are refused with a hint, and at most READ_MAX_BYTES are read.

import { describeError } from "../errors.ts";
import { notAccessible, resolveReadPath } from "./paths.ts";
import { cutLine, decodeText, fileLines, looksBinary, numberLine } from "./text.ts";
import { fail, ok, type Tool } from "./tool.ts";
import { readResponse } from "./hook_response.ts";
import { builtInInput } from "./input_check.ts";
import { isNotebookPath, notebookForRead } from "./notebook.ts";
import { READ_DEFAULT_LIMIT } from "./input_limits.ts";
import type { ReadInput } from "./input_zod.ts";

export type { ReadInput };
export { READ_DEFAULT_LIMIT };
export const READ_MAX_LINE_CHARS = 2000;
/** Read reads at most this many bytes of a file (16 MiB). */
export const READ_MAX_BYTES = 16 * 1024 * 1024;

const DESCRIPTION = `Reads a file from the local filesystem.

Usage:
- file_path may be absolute or relative to the workspace root. Files outside the workspace need the user's approval (or an allow rule).
- By default it reads up to ${READ_DEFAULT_LIMIT} lines from the start of the file. For long files, pass offset (the line number to start from) and limit (how many lines) to read a part.
- Lines longer than ${READ_MAX_LINE_CHARS} characters are truncated.
- Each line of the output is prefixed by its line number and a tab (\`12\\tconst x = 1;\`). The prefix is not part of the file: never include it in Edit's old_string.
- Jupyter notebooks (.ipynb) are shown as their cells with their outputs, each cell as <cell id="…">…</cell id="…">.
- Only regular text files can be read, up to the first ${
  READ_MAX_BYTES / 1024 / 1024
} MiB; binary files, devices and pipes are refused. Directories are refused: use Glob to list files, or Bash \`ls\`.
- It is fine to read several files at once by making several Read calls in one response.`;

export const readTool: Tool<ReadInput> = {
  name: "Read",
  description: DESCRIPTION,
  kind: "read",
  // Never saved to a file (the model would Read the file again): Read bounds itself (READ_MAX_BYTES).
  maxResultChars: Infinity,
  ...builtInInput<ReadInput>("Read"),
  async run(input, ctx) {
    const path = await resolveReadPath(ctx, input.file_path);
    const { fs } = ctx.ports;
    let info;
    try {
      info = await fs.stat(path);
    } catch (e) {
      return fail(notAccessible(e, path) ?? `Cannot read ${path}: ${describeError(e)}`);
    }
    if (info === null) {
      return fail(`File does not exist: ${path}. The workspace root is ${ctx.workspaceRoot}.`);
    }
    if (info.isDirectory) {
      return fail(
        `${path} is a directory, not a file. Use Glob (e.g. pattern "*" with path "${path}") to list its files.`,
      );
    }
    let read;
    try {
      // Only a regular file, never more than READ_MAX_BYTES of it: a FIFO would block, a device never end.
      read = await fs.readRegularFile(path, { maxBytes: READ_MAX_BYTES });
    } catch (e) {
      return fail(notAccessible(e, path) ?? `Cannot read ${path}: ${describeError(e)}`);
    }
    if (read.kind === "not_regular") {
      return fail(`${path} is ${read.what}, not a regular file; Read only reads regular files.`);
    }
    const bytes = read.bytes;
    if (looksBinary(bytes)) {
      return fail(`${path} is a binary file (${bytes.length} bytes); Read only shows text files.`);
    }
    // NotebookEdit changes only what the session has read (notebook_edit.ts).
    ctx.readFiles?.set(path, info.mtimeMs);
    const notebook = isNotebookPath(path) ? notebookForRead(decodeText(bytes)) : undefined;
    if (notebook !== undefined) return ok(notebook, { path, notebook: true });
    const text = decodeText(bytes).replace(/^\uFEFF/, "");
    const lines = fileLines(text);
    if (read.truncated) {
      // The last line may be cut: it is not shown as if it were whole.
      lines.pop();
      lines.push(
        `(Read stops after the first ${READ_MAX_BYTES} bytes of ${path}. Use Grep, or Bash (tail, sed -n), for the rest.)`,
      );
    }
    const meta = { path, totalLines: lines.length };
    // An empty file and an offset past the end: Claude Code's warnings, word for word.
    if (lines.length === 0) {
      return ok(
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
        meta,
      );
    }
    const start = Math.max(1, input.offset ?? 1);
    if (start > lines.length) {
      return ok(
        `<system-reminder>Warning: the file exists but is shorter than the provided offset (${start}). ` +
          `The file has ${lines.length} lines.</system-reminder>`,
        meta,
      );
    }
    const limit = input.limit ?? READ_DEFAULT_LIMIT;
    const end = Math.min(lines.length, start + limit - 1);
    const body = lines.slice(start - 1, end).map((line, i) =>
      numberLine(start + i, cutLine(line, READ_MAX_LINE_CHARS))
    );
    // A part the model asked for (offset, limit) is shown as it is, as Claude Code shows it; a part cut
    // by the default limit says so (Claude Code has no line limit: it refuses a file over 256 KB).
    if (input.limit === undefined && end < lines.length) {
      body.push(
        `\n(Showing lines ${start}-${end} of ${lines.length}. Use offset and limit to read other parts.)`,
      );
    }
    return {
      ...ok(body.join("\n"), { ...meta, startLine: start, endLine: end }),
      response: readResponse(path, text, { startLine: start, limit }),
    };
  },
};
