// Tests of the NotebookEdit tool and Read of a notebook over real files in a temp workspace: Read
// renders the cells, an edit needs a Read first (and a new one after the file changed on disk), each
// edit mode writes the notebook, and writes outside the workspace are refused as for Write.

import assert from "node:assert/strict";
import { join } from "node:path";
import { readTool } from "./read.ts";
import { notebookEditTool } from "./notebook_edit.ts";
import { runTool, sandbox } from "../testing/tool_harness.ts";

const NOTEBOOK = {
  cells: [
    { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "Some text"] },
    {
      cell_type: "code",
      id: "c1",
      metadata: {},
      execution_count: 1,
      source: ['print("hello")\n', "42"],
      outputs: [{ output_type: "stream", name: "stdout", text: ["hello\n"] }],
    },
  ],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
};

Deno.test("NotebookEdit: only after a Read; replace, insert and delete write the notebook", async () => {
  await using box = await sandbox();
  const path = join(box.workspace, "nb.ipynb");
  await Deno.writeTextFile(path, JSON.stringify(NOTEBOOK));
  const ctx = box.ctx({ readFiles: new Map() });
  const edit = (input: Record<string, unknown>) =>
    runTool(notebookEditTool, { notebook_path: "nb.ipynb", ...input }, ctx);

  const before = await edit({ cell_id: "c1", new_source: "print('bye')" });
  assert.deepEqual(before, {
    content: "File has not been read yet. Read it first before writing to it.",
    isError: true,
  });
  const read = await runTool(readTool, { file_path: "nb.ipynb" }, ctx);
  assert.equal(
    read.content,
    '<cell id="intro"><cell_type>markdown</cell_type># Title\nSome text</cell id="intro">\n' +
      '<cell id="c1">print("hello")\n42</cell id="c1">\n\nhello\n',
  );
  assert.deepEqual(await edit({ cell_id: "c1", new_source: "print('bye')" }), {
    content: "Updated cell c1 with print('bye')",
    isError: false,
    metadata: { path, modifiedFiles: [path] },
  });
  // Its own write does not need a new Read.
  const inserted = await edit({ new_source: "first", cell_type: "markdown", edit_mode: "insert" });
  assert.match(inserted.content, /^Inserted cell [0-9a-f]{8} with first$/);
  assert.equal(
    (await edit({ cell_id: "intro", new_source: "", edit_mode: "delete" })).content,
    "Deleted cell intro",
  );
  const saved = JSON.parse(await Deno.readTextFile(path));
  assert.deepEqual(saved.cells.map((c: { source: unknown }) => c.source), ["first", "print('bye')"]);
  assert.deepEqual(saved.cells[1].outputs, []);
  assert.equal(saved.cells[1].execution_count, null);
  assert.equal((await Deno.readTextFile(path)).endsWith("}\n"), true);

  // Changed on disk since: read it again first.
  await Deno.writeTextFile(path, JSON.stringify(NOTEBOOK));
  await Deno.utime(path, 1_000, 1_000);
  const stale = await edit({ cell_id: "c1", new_source: "x" });
  assert.equal(stale.isError, true);
  assert.match(stale.content, /has changed on disk since it was last read\. Read it again/);
});

Deno.test("NotebookEdit: not a notebook, a missing cell, a broken file and a path outside the workspace", async () => {
  await using box = await sandbox();
  const ctx = box.ctx({ readFiles: new Map() });
  await Deno.writeTextFile(join(box.workspace, "a.txt"), "text");
  const notNb = await runTool(notebookEditTool, { notebook_path: "a.txt", new_source: "x" }, ctx);
  assert.match(notNb.content, /is not a Jupyter notebook \(\.ipynb file\)\. Use Edit/);
  await Deno.writeTextFile(join(box.workspace, "nb.ipynb"), JSON.stringify(NOTEBOOK));
  await runTool(readTool, { file_path: "nb.ipynb" }, ctx);
  const missing = await runTool(notebookEditTool, {
    notebook_path: "nb.ipynb",
    cell_id: "zz",
    new_source: "x",
  }, ctx);
  assert.deepEqual(missing, { content: 'Cell with ID "zz" not found in notebook.', isError: true });
  await Deno.writeTextFile(join(box.workspace, "bad.ipynb"), "{oops");
  const shownAsText = await runTool(readTool, { file_path: "bad.ipynb" }, ctx);
  assert.equal(shownAsText.content, "1\t{oops", "a file that is not a notebook is shown as text");
  const broken = await runTool(notebookEditTool, {
    notebook_path: "bad.ipynb",
    cell_id: "a",
    new_source: "x",
  }, ctx);
  assert.match(broken.content, /^Cannot edit .*bad\.ipynb: it is not valid JSON/);
  const outside = join(box.outside, "o.ipynb");
  await Deno.writeTextFile(outside, JSON.stringify(NOTEBOOK));
  await runTool(readTool, { file_path: outside }, ctx);
  const refused = await runTool(
    notebookEditTool,
    { notebook_path: outside, cell_id: "c1", new_source: "x" },
    ctx,
  );
  assert.equal(refused.denied, true);
  assert.equal(JSON.parse(await Deno.readTextFile(outside)).cells[1].execution_count, 1, "nothing written");
});
