// Owns Jupyter notebooks (.ipynb, nbformat 4) as Blade's tools see them (docs/reference/tools.md):
// parsing a notebook's JSON, rendering its cells with their outputs for Read the way Claude Code does
// (`<cell id="…">source</cell id="…">`, each output after its cell), and one NotebookEdit change
// (replace, insert or delete a cell) with its result line. Pure: no I/O. Reading the file and writing
// it back is Read's and NotebookEdit's.

export interface NotebookCell {
  cell_type: string;
  id?: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  outputs?: Record<string, unknown>[];
  execution_count?: number | null;
  [key: string]: unknown;
}

export interface Notebook {
  cells: NotebookCell[];
  nbformat?: number;
  nbformat_minor?: number;
  [key: string]: unknown;
}

/** Characters of one cell output shown by Read; the rest is cut with a note. */
export const NOTEBOOK_OUTPUT_CHARS = 10_000;

/** Characters of a whole notebook shown by Read; the rest is cut with a note. */
export const NOTEBOOK_READ_CHARS = 100_000;

/** Whether a path names a notebook (by its extension, as Claude Code decides). */
export function isNotebookPath(path: string): boolean {
  return path.toLowerCase().endsWith(".ipynb");
}

/** The notebook in `text`, or why it is not one. */
export function parseNotebook(text: string): { notebook: Notebook } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { error: `it is not valid JSON (${(e as Error).message})` };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { error: "it is not a JSON object" };
  }
  const cells = (json as { cells?: unknown }).cells;
  if (!Array.isArray(cells)) return { error: 'it has no "cells" list' };
  for (const [i, cell] of cells.entries()) {
    if (typeof cell !== "object" || cell === null || typeof (cell as NotebookCell).cell_type !== "string") {
      return { error: `cell ${i} has no cell_type` };
    }
  }
  return { notebook: json as Notebook };
}

/** A cell's source as one string (nbformat allows a list of lines). */
export function sourceOf(cell: NotebookCell): string {
  return Array.isArray(cell.source) ? cell.source.join("") : String(cell.source ?? "");
}

/** The id a cell is addressed by: its own, else `cell-<index>` (notebooks before nbformat 4.5). */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return typeof cell.id === "string" && cell.id !== "" ? cell.id : `cell-${index}`;
}

/** The index of the cell `id` names: its own id first, then `cell-<index>`; -1 when none. */
export function findCell(notebook: Notebook, id: string): number {
  const own = notebook.cells.findIndex((c) => c.id === id);
  if (own >= 0) return own;
  const m = /^cell-(\d+)$/.exec(id);
  const index = m === null ? -1 : Number(m[1]);
  return index >= 0 && index < notebook.cells.length ? index : -1;
}

/** What Read shows of a notebook file's text; undefined when it is not a notebook (Read shows its lines). */
export function notebookForRead(text: string): string | undefined {
  const parsed = parseNotebook(text);
  if ("error" in parsed) return undefined;
  const shown = renderNotebook(parsed.notebook);
  if (parsed.notebook.cells.length === 0) return "(The notebook has no cells.)";
  return shown.length <= NOTEBOOK_READ_CHARS ? shown : `${shown.slice(0, NOTEBOOK_READ_CHARS)}\n` +
    `[notebook cut at ${NOTEBOOK_READ_CHARS} of ${shown.length} characters; read parts of it with Bash, e.g. jq '.cells[10:20]']`;
}

/** Read's rendering: each cell tagged with its id (markdown and raw cells say their type), then its outputs. */
export function renderNotebook(notebook: Notebook): string {
  return notebook.cells.map((cell, i) => {
    const id = cellIdOf(cell, i);
    const type = cell.cell_type === "code" ? "" : `<cell_type>${cell.cell_type}</cell_type>`;
    const outputs = (cell.outputs ?? []).map(renderOutput).filter((o) => o !== "");
    return `<cell id="${id}">${type}${sourceOf(cell)}</cell id="${id}">` +
      outputs.map((o) => `\n\n${o}`).join("");
  }).join("\n");
}

function text(value: unknown): string {
  return Array.isArray(value) ? value.join("") : typeof value === "string" ? value : "";
}

/** One output as text: streams and text/plain results as they are, errors with their traceback, images named. */
function renderOutput(output: Record<string, unknown>): string {
  let shown: string;
  switch (output.output_type) {
    case "stream":
      shown = text(output.text);
      break;
    case "execute_result":
    case "display_data": {
      const data = (output.data ?? {}) as Record<string, unknown>;
      const image = Object.keys(data).find((k) => k.startsWith("image/"));
      shown = "text/plain" in data
        ? text(data["text/plain"])
        : image !== undefined
        ? `[${image} output, ${text(data[image]).length} characters of base64]`
        : "";
      break;
    }
    case "error": {
      const trace = Array.isArray(output.traceback) ? output.traceback.map(String).join("\n") : "";
      shown = `${String(output.ename ?? "Error")}: ${String(output.evalue ?? "")}${
        trace === "" ? "" : `\n${trace}`
      }`;
      break;
    }
    default:
      shown = "";
  }
  // Tracebacks carry terminal colours; the model reads plain text.
  // deno-lint-ignore no-control-regex
  shown = shown.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
  return shown.length <= NOTEBOOK_OUTPUT_CHARS
    ? shown
    : `${shown.slice(0, NOTEBOOK_OUTPUT_CHARS)}\n[output cut: ${shown.length} characters in all]`;
}

export interface NotebookChange {
  editMode: "replace" | "insert" | "delete";
  cellId?: string;
  newSource: string;
  cellType?: "code" | "markdown";
  /** The id a new cell gets (nbformat 4.5 and later; older notebooks have none). */
  newId: string;
}

/** The notebook after one change and the line NotebookEdit answers with, or why it cannot be made. */
export function applyNotebookChange(
  notebook: Notebook,
  change: NotebookChange,
): { notebook: Notebook; message: string } | { error: string } {
  const cells = [...notebook.cells];
  const at = change.cellId === undefined ? -1 : findCell(notebook, change.cellId);
  if (change.cellId !== undefined && at < 0) {
    return { error: `Cell with ID "${change.cellId}" not found in notebook.` };
  }
  if (change.editMode === "insert") {
    if (change.cellType === undefined) return { error: "cell_type is required when inserting a cell." };
    const withIds = (notebook.nbformat ?? 4) > 4 || (notebook.nbformat_minor ?? 0) >= 5;
    const cell: NotebookCell = {
      cell_type: change.cellType,
      ...(withIds ? { id: change.newId } : {}),
      source: change.newSource,
      metadata: {},
      ...(change.cellType === "code" ? { execution_count: null, outputs: [] } : {}),
    };
    cells.splice(at + 1, 0, cell);
    const id = cellIdOf(cell, at + 1);
    return { notebook: { ...notebook, cells }, message: `Inserted cell ${id} with ${change.newSource}` };
  }
  if (change.cellId === undefined) return { error: `cell_id is required to ${change.editMode} a cell.` };
  if (change.editMode === "delete") {
    cells.splice(at, 1);
    return { notebook: { ...notebook, cells }, message: `Deleted cell ${change.cellId}` };
  }
  const old = cells[at]!;
  const type = change.cellType ?? old.cell_type;
  const { outputs: _o, execution_count: _e, ...rest } = old;
  // A changed code cell's outputs are stale: cleared, as Jupyter does when the source changes.
  cells[at] = {
    ...rest,
    cell_type: type,
    source: change.newSource,
    ...(type === "code" ? { execution_count: null, outputs: [] } : {}),
  };
  return {
    notebook: { ...notebook, cells },
    message: `Updated cell ${change.cellId} with ${change.newSource}`,
  };
}

/** A notebook as nbformat writes it: one-space indent, a final newline. */
export function serializeNotebook(notebook: Notebook): string {
  return `${JSON.stringify(notebook, null, 1)}\n`;
}
