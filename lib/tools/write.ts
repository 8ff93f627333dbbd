// Owns the Write tool: create or overwrite a whole file, creating missing parent folders. Where it
// may write is decided by paths.ts (workspace or storage root, symlinks resolved, trust checked).

import { dirname } from "../path.ts";
import { describeError } from "../errors.ts";
import type { Fs } from "../sys/fs.ts";
import { notWritable, resolveWritePath, type WriteArea } from "./paths.ts";
import { countLines, decodeText, plural } from "./text.ts";
import { READ_MAX_BYTES } from "./read.ts";
import { writeResponse } from "./hook_response.ts";
import { denied, fail, ok, type Tool } from "./tool.ts";
import { builtInInput } from "./input_check.ts";
import type { WriteInput } from "./input_zod.ts";

export type { WriteInput };

const DESCRIPTION = `Writes a file to the local filesystem, replacing it if it exists.

Usage:
- file_path may be absolute or relative to the workspace root; missing parent folders are created.
- Writes are only allowed inside the workspace (and Blade's storage root); paths that resolve elsewhere, including through symlinks, are refused.
- If the file already exists, Read it first. Prefer Edit for changing part of an existing file: it sends only the change.
- Do not create documentation or README files unless asked to.`;

/** Modes for what a write creates: Blade's storage is private (docs/reference/sessions.md), the workspace follows umask. */
function modes(area: WriteArea): { file?: number; dir: number } {
  return area === "storage" ? { file: 0o600, dir: 0o700 } : { dir: 0o755 };
}

/** Creates the file's missing parent folders (existing ones keep their modes). */
export async function ensureParent(fs: Fs, path: string, area: WriteArea): Promise<void> {
  const parent = dirname(path);
  if (await fs.stat(parent) === null) await fs.ensureDir(parent, modes(area).dir);
}

/** Writes `text` to an already checked path; new files in the storage root get mode 0600. */
export async function writeChecked(
  fs: Fs,
  path: string,
  options: { text: string; area: WriteArea },
): Promise<void> {
  const mode = modes(options.area).file;
  await fs.writeText(path, options.text, mode === undefined ? {} : { mode });
}

export const writeTool: Tool<WriteInput> = {
  name: "Write",
  description: DESCRIPTION,
  kind: "write",
  ...builtInInput<WriteInput>("Write"),
  async run(input, ctx) {
    const target = await resolveWritePath(ctx, input.file_path);
    if (!target.ok) return denied(target.message);
    const { fs } = ctx.ports;
    const { path, area } = target;
    try {
      const existing = await fs.stat(path);
      if (existing?.isDirectory) return fail(`Cannot write ${path}: it is a directory.`);
      // What the file held, for PostToolUse hooks (tool_response's originalFile and diff).
      const before = existing === null ? null : await fs.readRegularFile(path, { maxBytes: READ_MAX_BYTES });
      const original = before?.kind === "file" && !before.truncated ? decodeText(before.bytes) : null;
      await ensureParent(fs, path, area);
      await writeChecked(fs, path, { text: input.content, area });
      const bytes = new TextEncoder().encode(input.content).length;
      const lines = countLines(input.content);
      const verb = existing === null ? "Created" : "Overwrote";
      const result = ok(`${verb} ${path} (${plural(bytes, "byte")}, ${plural(lines, "line")}).`, {
        path,
        bytes,
        lines,
        created: existing === null,
        modifiedFiles: [path],
      });
      return {
        ...result,
        response: await writeResponse(path, input.content, { created: existing === null, original }),
      };
    } catch (e) {
      return fail(notWritable(e, path, ctx.workspaceRoot) ?? `Cannot write ${path}: ${describeError(e)}`);
    }
  },
};
