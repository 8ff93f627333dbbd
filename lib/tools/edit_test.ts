import assert from "node:assert/strict";
import { join } from "node:path";
import { editTool } from "./edit.ts";
import { runTool, sandbox } from "../testing/tool_harness.ts";

Deno.test("Edit replaces a unique match and shows the updated section", async () => {
  await using box = await sandbox();
  const path = join(box.workspace, "a.ts");
  await Deno.writeTextFile(path, "const a = 1;\nconst b = 2;\nconst c = 3;\n");
  const result = await runTool(
    editTool,
    { file_path: "a.ts", old_string: "b = 2", new_string: "b = $&20" },
    box.ctx(),
  );
  assert.deepEqual(result, {
    content: `Edited ${path}: replaced 1 occurrence. The updated section:\n` +
      "1\tconst a = 1;\n2\tconst b = $&20;\n3\tconst c = 3;",
    isError: false,
    metadata: { path, replacements: 1, created: false, modifiedFiles: [path] },
    response: {
      filePath: path,
      oldString: "b = 2",
      newString: "b = $&20",
      originalFile: "const a = 1;\nconst b = 2;\nconst c = 3;\n",
      structuredPatch: [{
        oldStart: 1,
        oldLines: 3,
        newStart: 1,
        newLines: 3,
        lines: [" const a = 1;", "-const b = 2;", "+const b = $&20;", " const c = 3;"],
      }],
      userModified: false,
      replaceAll: false,
    },
  });
  assert.equal(await Deno.readTextFile(path), "const a = 1;\nconst b = $&20;\nconst c = 3;\n");
});

Deno.test("Edit error texts: not found, not unique, identical, missing file", async () => {
  await using box = await sandbox();
  const path = join(box.workspace, "a.txt");
  await Deno.writeTextFile(path, "x x x\n");
  const ctx = box.ctx();
  const notFound = await runTool(editTool, { file_path: path, old_string: "y", new_string: "z" }, ctx);
  assert.equal(notFound.isError, true);
  assert.match(notFound.content, new RegExp(`^String to replace not found in ${path}\\.`));
  const many = await runTool(editTool, { file_path: path, old_string: "x", new_string: "z" }, ctx);
  assert.equal(many.isError, true);
  assert.match(many.content, /^Found 3 matches of the string to replace in .*, but replace_all is false\./);
  const same = await runTool(editTool, { file_path: path, old_string: "x", new_string: "x" }, ctx);
  assert.deepEqual([same.isError, same.content], [
    true,
    "old_string and new_string are identical, so there is nothing to change.",
  ]);
  const missing = await runTool(editTool, { file_path: "nope.txt", old_string: "a", new_string: "b" }, ctx);
  assert.deepEqual([missing.isError, missing.content], [
    true,
    `File does not exist: ${join(box.workspace, "nope.txt")}.`,
  ]);
  assert.equal(await Deno.readTextFile(path), "x x x\n");
});

Deno.test("Edit with replace_all replaces every match", async () => {
  await using box = await sandbox();
  const path = join(box.workspace, "a.txt");
  await Deno.writeTextFile(path, "foo bar foo\nfoo\n");
  const result = await runTool(editTool, {
    file_path: path,
    old_string: "foo",
    new_string: "qux",
    replace_all: true,
  }, box.ctx());
  assert.equal(result.isError, false);
  assert.equal(result.metadata?.["replacements"], 3);
  assert.match(result.content, /replaced 3 occurrences/);
  assert.equal(await Deno.readTextFile(path), "qux bar qux\nqux\n");
});

Deno.test("Edit matches across CRLF line ends and keeps them", async () => {
  await using box = await sandbox();
  const path = join(box.workspace, "win.txt");
  await Deno.writeTextFile(path, "a\r\nb\r\nc\r\n");
  const result = await runTool(
    editTool,
    { file_path: path, old_string: "a\nb", new_string: "A\nB" },
    box.ctx(),
  );
  assert.equal(result.isError, false);
  assert.equal(await Deno.readTextFile(path), "A\r\nB\r\nc\r\n");
});

Deno.test("Edit with an empty old_string creates a file but never clobbers content", async () => {
  await using box = await sandbox();
  const path = join(box.workspace, "new/file.txt");
  const created = await runTool(editTool, { file_path: path, old_string: "", new_string: "hi\n" }, box.ctx());
  assert.equal(created.isError, false);
  assert.equal(created.metadata?.["created"], true);
  assert.equal(await Deno.readTextFile(path), "hi\n");
  const refused = await runTool(editTool, { file_path: path, old_string: "", new_string: "x" }, box.ctx());
  assert.equal(refused.isError, true);
  assert.match(refused.content, /old_string is empty/);
});

Deno.test("Edit refuses escapes and untrusted workspaces", async () => {
  await using box = await sandbox();
  await Deno.writeTextFile(join(box.outside, "t.txt"), "target\n");
  await Deno.symlink(join(box.outside, "t.txt"), join(box.workspace, "t.txt"));
  await Deno.writeTextFile(join(box.workspace, "own.txt"), "mine\n");
  const escaped = await runTool(
    editTool,
    { file_path: "t.txt", old_string: "target", new_string: "pwned" },
    box.ctx(),
  );
  assert.equal(escaped.isError, true);
  assert.match(escaped.content, /resolves to .* is outside the workspace/);
  const untrusted = await runTool(
    editTool,
    { file_path: "own.txt", old_string: "mine", new_string: "yours" },
    box.ctx({ trusted: false }),
  );
  assert.equal(untrusted.isError, true);
  assert.match(untrusted.content, /not trusted.*`blade trust`/);
  assert.equal(await Deno.readTextFile(join(box.outside, "t.txt")), "target\n");
  assert.equal(await Deno.readTextFile(join(box.workspace, "own.txt")), "mine\n");
});

Deno.test("Edit refuses a FIFO without blocking on it", async () => {
  if (Deno.build.os === "windows") return;
  await using box = await sandbox();
  const fifo = join(box.workspace, "pipe");
  const made = await new Deno.Command("mkfifo", { args: [fifo], stderr: "null" }).output().catch(() => null);
  if (made?.success !== true) return;
  const result = await runTool(editTool, { file_path: "pipe", old_string: "a", new_string: "b" }, box.ctx());
  assert.deepEqual(result, {
    content: `Cannot edit ${fifo}: it is a FIFO (named pipe), not a regular file.`,
    isError: true,
  });
});
