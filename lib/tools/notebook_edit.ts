// Owns the NotebookEdit tool (Claude Code's): replace, insert or delete one cell of a Jupyter notebook
// (docs/reference/tools.md). Like Write, where it may write is decided by paths.ts (protected paths by
// the permission gate, an `Edit(…)` rule covers it); like Claude Code, it changes only a notebook the
// session has read since it last changed. The notebook format itself is notebook.ts.

import { describeError } from "../errors.ts";
import { notWritable, resolveWritePath } from "./paths.ts";
import { decodeText } from "./text.ts";
import { denied, fail, ok, type Tool, type ToolContext } from "./tool.ts";
import { writeChecked } from "./write.ts";
import { builtInInput } from "./input_check.ts";
import type { NotebookEditInput } from "./input_zod.ts";
import { applyNotebookChange, isNotebookPath, parseNotebook, serializeNotebook } from "./notebook.ts";

export type { NotebookEditInput };

const DESCRIPTION = `Replaces, inserts, or deletes a single cell in a Jupyter notebook (.ipynb file).

Usage:
- Read the notebook first in this conversation: this tool fails otherwise, and after the file changed on disk since.
- notebook_path may be absolute or relative to the workspace root; edits outside the workspace are refused.
- cell_id is the id Read shows in <cell id="…">; it is required for replace and delete.
- edit_mode defaults to replace. insert adds a new cell after cell_id (or first when cell_id is left out) and needs cell_type. delete removes the cell.
- Replacing a code cell clears its outputs and execution count.`;

/** Why the session may not change `path` now: not read, or changed on disk since it was read. */
async function unread(ctx: ToolContext, path: string): Promise<string | undefined> {
  const seen = ctx.readFiles?.get(path);
  if (seen === undefined) return "File has not been read yet. Read it first before writing to it.";
  const now = (await ctx.ports.fs.stat(path))?.mtimeMs ?? null;
  return seen !== null && now !== null && now !== seen
    ? `${path} has changed on disk since it was last read. Read it again before editing it.`
    : undefined;
}

export const notebookEditTool: Tool<NotebookEditInput> = {
  name: "NotebookEdit",
  description: DESCRIPTION,
  kind: "write",
  ...builtInInput<NotebookEditInput>("NotebookEdit"),
  async run(input, ctx) {
    const target = await resolveWritePath(ctx, input.notebook_path);
    if (!target.ok) return denied(target.message);
    const { path, area } = target;
    if (!isNotebookPath(path)) {
      return fail(`${path} is not a Jupyter notebook (.ipynb file). Use Edit for other files.`);
    }
    const { fs } = ctx.ports;
    try {
      const info = await fs.stat(path);
      if (info === null) return fail(`Notebook does not exist: ${path}.`);
      const refusal = await unread(ctx, path);
      if (refusal !== undefined) return fail(refusal);
      const parsed = parseNotebook(decodeText(await fs.readBytes(path)));
      if ("error" in parsed) return fail(`Cannot edit ${path}: ${parsed.error}.`);
      const changed = applyNotebookChange(parsed.notebook, {
        editMode: input.edit_mode ?? "replace",
        ...(input.cell_id === undefined ? {} : { cellId: input.cell_id }),
        newSource: input.new_source,
        ...(input.cell_type === undefined ? {} : { cellType: input.cell_type }),
        newId: newCellId(ctx),
      });
      if ("error" in changed) return fail(changed.error);
      await writeChecked(fs, path, { text: serializeNotebook(changed.notebook), area });
      // The session wrote it: the next edit needs no new Read.
      ctx.readFiles?.set(path, (await fs.stat(path))?.mtimeMs ?? null);
      return ok(changed.message, { path, modifiedFiles: [path] });
    } catch (e) {
      return fail(notWritable(e, path, ctx.workspaceRoot) ?? `Cannot edit ${path}: ${describeError(e)}`);
    }
  },
};

/** 8 lowercase hex characters, as Jupyter's own cell ids. */
function newCellId(ctx: ToolContext): string {
  return ctx.ports.ids.uuid().replaceAll("-", "").slice(0, 8);
}
