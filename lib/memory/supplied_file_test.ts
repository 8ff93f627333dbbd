// lib/memory/supplied_file.ts on real files: the limit pinned; a regular file is read; a FIFO, a
// device and a file over the limit are refused without being read (nothing blocks); with `project`,
// a link that leads outside it is refused, naming where it leads, and one inside is read; without
// (the user's own files), a link is followed wherever it goes.

import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { MAX_SUPPLIED_FILE_BYTES, readSuppliedFile } from "./supplied_file.ts";

Deno.test("a supplied file larger than 256 KiB is not read (the documented limit)", () => {
  assert.equal(MAX_SUPPLIED_FILE_BYTES, 262_144);
});

Deno.test("readSuppliedFile: regular files only, within the limit; a project's only inside it", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "supplied-" }));
  try {
    const ws = `${root}/ws`;
    await Deno.mkdir(`${ws}/.claude/commands`, { recursive: true });
    await Deno.writeTextFile(`${root}/secret.txt`, "TOP-SECRET\n");
    await Deno.writeTextFile(`${ws}/notes.md`, "NOTES\n");
    await Deno.writeTextFile(`${ws}/.claude/commands/plain.md`, "PLAIN\n");
    await Deno.symlink(`${root}/secret.txt`, `${ws}/.claude/commands/leak.md`);
    await Deno.symlink("../../notes.md", `${ws}/.claude/commands/inside.md`);
    await Deno.symlink("/dev/zero", `${ws}/.claude/commands/zero.md`);
    await new Deno.Command("mkfifo", { args: [`${ws}/.claude/commands/fifo.md`] }).output();
    await Deno.writeTextFile(`${ws}/.claude/commands/big.md`, "x".repeat(MAX_SUPPLIED_FILE_BYTES + 1));
    await Deno.writeTextFile(`${ws}/.claude/commands/limit.md`, "x".repeat(MAX_SUPPLIED_FILE_BYTES));
    const fs = realFs();
    const read = (name: string, o: { project?: string } = { project: ws }) =>
      readSuppliedFile(fs, `${ws}/.claude/commands/${name}`, o);
    assert.deepEqual(await read("plain.md"), { text: "PLAIN\n" });
    assert.deepEqual(await read("inside.md"), { text: "NOTES\n" });
    assert.deepEqual(await read("leak.md"), {
      refused: `it leads outside the project (to ${root}/secret.txt)`,
    });
    assert.deepEqual(await read("leak.md", {}), { text: "TOP-SECRET\n" }, "the user's own: followed");
    assert.deepEqual(await read("zero.md", {}), { refused: "it is a character device, not a file" });
    assert.deepEqual(await read("fifo.md"), { refused: "it is a FIFO (named pipe), not a file" });
    assert.deepEqual(await read("big.md"), { refused: `it is larger than ${MAX_SUPPLIED_FILE_BYTES} bytes` });
    assert.equal((await read("limit.md") as { text: string }).text.length, MAX_SUPPLIED_FILE_BYTES);
    assert.equal(await read("missing.md"), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
