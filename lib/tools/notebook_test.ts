// Tests of the notebook format (notebook.ts): parsing, Read's rendering with outputs, and each change
// NotebookEdit makes, over literal notebooks.

import assert from "node:assert/strict";
import {
  applyNotebookChange,
  findCell,
  type Notebook,
  NOTEBOOK_OUTPUT_CHARS,
  NOTEBOOK_READ_CHARS,
  notebookForRead,
  parseNotebook,
  renderNotebook,
  serializeNotebook,
} from "./notebook.ts";

const nb = (cells: Notebook["cells"], minor = 5): Notebook => ({
  cells,
  metadata: {},
  nbformat: 4,
  nbformat_minor: minor,
});

const SAMPLE = nb([
  { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "Some text"] },
  {
    cell_type: "code",
    id: "c1",
    metadata: {},
    execution_count: 1,
    source: "print(1/0)",
    outputs: [
      { output_type: "stream", name: "stdout", text: ["before\n"] },
      {
        output_type: "error",
        ename: "ZeroDivisionError",
        evalue: "division by zero",
        traceback: ["\x1b[0;31mZeroDivisionError\x1b[0m", "line 1"],
      },
      { output_type: "display_data", data: { "image/png": "iVBORw0KGgo=" }, metadata: {} },
    ],
  },
  { cell_type: "raw", metadata: {}, source: "raw text" },
]);

Deno.test("renderNotebook: cells tagged with their ids, outputs after their cell, colours stripped", () => {
  assert.equal(
    renderNotebook(SAMPLE),
    '<cell id="intro"><cell_type>markdown</cell_type># Title\nSome text</cell id="intro">\n' +
      '<cell id="c1">print(1/0)</cell id="c1">\n\nbefore\n\n\nZeroDivisionError: division by zero\n' +
      "ZeroDivisionError\nline 1\n\n[image/png output, 12 characters of base64]\n" +
      '<cell id="cell-2"><cell_type>raw</cell_type>raw text</cell id="cell-2">',
  );
});

Deno.test("notebookForRead: long outputs and notebooks are cut with a note; not a notebook is undefined", () => {
  const long = nb([{
    cell_type: "code",
    id: "a",
    source: "x",
    outputs: [{ output_type: "stream", text: "y".repeat(NOTEBOOK_OUTPUT_CHARS + 5) }],
  }]);
  assert.match(notebookForRead(JSON.stringify(long))!, /\[output cut: 10005 characters in all\]$/);
  const many = nb(
    Array.from({ length: 30 }, (_, i) => ({ cell_type: "code", id: `c${i}`, source: "z".repeat(5000) })),
  );
  const shown = notebookForRead(JSON.stringify(many))!;
  assert.ok(shown.length < NOTEBOOK_READ_CHARS + 200);
  assert.match(shown, /\[notebook cut at 100000 of \d+ characters; read parts of it with Bash/);
  assert.equal(notebookForRead(JSON.stringify(nb([]))), "(The notebook has no cells.)");
  assert.equal(notebookForRead("{not json"), undefined);
  assert.equal(notebookForRead('{"cells": 3}'), undefined);
});

Deno.test("parseNotebook says why a file is not a notebook", () => {
  assert.match((parseNotebook("[]") as { error: string }).error, /not a JSON object/);
  assert.match((parseNotebook('{"cells":[{}]}') as { error: string }).error, /cell 0 has no cell_type/);
  assert.ok("notebook" in parseNotebook(JSON.stringify(SAMPLE)));
});

Deno.test("findCell: by id, else cell-<index>", () => {
  assert.equal(findCell(SAMPLE, "c1"), 1);
  assert.equal(findCell(SAMPLE, "cell-0"), 0);
  assert.equal(findCell(SAMPLE, "cell-2"), 2);
  assert.equal(findCell(SAMPLE, "cell-3"), -1);
  assert.equal(findCell(SAMPLE, "nope"), -1);
});

Deno.test("applyNotebookChange: replace clears a code cell's outputs; a type change is kept", () => {
  const r = applyNotebookChange(SAMPLE, {
    editMode: "replace",
    cellId: "c1",
    newSource: "print(2)",
    newId: "x",
  });
  assert.ok("notebook" in r);
  assert.equal(r.message, "Updated cell c1 with print(2)");
  assert.deepEqual(r.notebook.cells[1], {
    cell_type: "code",
    id: "c1",
    metadata: {},
    source: "print(2)",
    execution_count: null,
    outputs: [],
  });
  const md = applyNotebookChange(SAMPLE, {
    editMode: "replace",
    cellId: "c1",
    newSource: "now text",
    cellType: "markdown",
    newId: "x",
  });
  assert.ok("notebook" in md);
  assert.deepEqual(md.notebook.cells[1], {
    cell_type: "markdown",
    id: "c1",
    metadata: {},
    source: "now text",
  });
  assert.equal(SAMPLE.cells[1]!.source, "print(1/0)", "the input notebook is not changed");
});

Deno.test("applyNotebookChange: insert after a cell or first, with a new id only from nbformat 4.5", () => {
  const after = applyNotebookChange(SAMPLE, {
    editMode: "insert",
    cellId: "intro",
    newSource: "x = 1",
    cellType: "code",
    newId: "ab12cd34",
  });
  assert.ok("notebook" in after);
  assert.equal(after.message, "Inserted cell ab12cd34 with x = 1");
  assert.deepEqual(after.notebook.cells.map((c) => c.id ?? "-"), ["intro", "ab12cd34", "c1", "-"]);
  assert.deepEqual(after.notebook.cells[1], {
    cell_type: "code",
    id: "ab12cd34",
    source: "x = 1",
    metadata: {},
    execution_count: null,
    outputs: [],
  });
  const old = nb([{ cell_type: "code", source: "a" }], 4);
  const first = applyNotebookChange(old, {
    editMode: "insert",
    newSource: "# hi",
    cellType: "markdown",
    newId: "zz",
  });
  assert.ok("notebook" in first);
  assert.equal(first.message, "Inserted cell cell-0 with # hi");
  assert.deepEqual(first.notebook.cells[0], { cell_type: "markdown", source: "# hi", metadata: {} });
  assert.deepEqual(applyNotebookChange(SAMPLE, { editMode: "insert", newSource: "x", newId: "q" }), {
    error: "cell_type is required when inserting a cell.",
  });
});

Deno.test("applyNotebookChange: delete; unknown and missing cell ids are errors", () => {
  const gone = applyNotebookChange(SAMPLE, {
    editMode: "delete",
    cellId: "cell-0",
    newSource: "",
    newId: "q",
  });
  assert.ok("notebook" in gone);
  assert.equal(gone.message, "Deleted cell cell-0");
  assert.deepEqual(gone.notebook.cells.map((c) => c.id ?? "-"), ["c1", "-"]);
  assert.deepEqual(
    applyNotebookChange(SAMPLE, { editMode: "replace", cellId: "nope", newSource: "x", newId: "q" }),
    {
      error: 'Cell with ID "nope" not found in notebook.',
    },
  );
  assert.deepEqual(applyNotebookChange(SAMPLE, { editMode: "delete", newSource: "", newId: "q" }), {
    error: "cell_id is required to delete a cell.",
  });
});

Deno.test("serializeNotebook: one-space indent and a final newline, as nbformat writes", () => {
  assert.equal(
    serializeNotebook(nb([])),
    '{\n "cells": [],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 5\n}\n',
  );
});
