import assert from "node:assert/strict";
import { join } from "node:path";
import { readTool } from "./read.ts";
import { runTool, sandbox } from "../testing/tool_harness.ts";

// Claude Code 2.1.332's Read (tests/fixtures/claude/tools/read_format.json; tests/claude_tools_golden_test.ts
// compares Blade with it): `N\t` before each line, no padding; a final newline ends in one more, empty
// line; a CRLF file's `\r` dropped.
Deno.test("Read numbers lines as Claude Code does and resolves relative paths", async () => {
  await using box = await sandbox();
  await Deno.writeTextFile(join(box.workspace, "a.txt"), "one\ntwo\r\nthree\n");
  const result = await runTool(readTool, { file_path: "a.txt" }, box.ctx());
  assert.deepEqual(result, {
    content: "1\tone\n2\ttwo\n3\tthree\n4\t",
    isError: false,
    metadata: { path: join(box.workspace, "a.txt"), totalLines: 4, startLine: 1, endLine: 4 },
    // What PostToolUse hooks read: Claude Code's object (tests/fixtures/claude/hooks_tool_response).
    response: {
      type: "text",
      file: {
        filePath: join(box.workspace, "a.txt"),
        content: "one\ntwo\nthree\n",
        numLines: 4,
        startLine: 1,
        totalLines: 4,
      },
    },
  });
});

Deno.test("Read honours offset and limit, shows that part as it is, and warns past the end", async () => {
  await using box = await sandbox();
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n");
  await Deno.writeTextFile(join(box.workspace, "ten.txt"), lines);
  const result = await runTool(readTool, { file_path: "ten.txt", offset: 4, limit: 2 }, box.ctx());
  assert.equal(result.content, "4\tline 4\n5\tline 5");
  const past = await runTool(readTool, { file_path: "ten.txt", offset: 11 }, box.ctx());
  assert.deepEqual([past.isError, past.content], [
    false,
    "<system-reminder>Warning: the file exists but is shorter than the provided offset (11). The file has 10 lines.</system-reminder>",
  ]);
});

Deno.test("Read stops at 2000 lines by default and cuts long lines at 2000 chars", async () => {
  await using box = await sandbox();
  const body = [`${"x".repeat(2500)}`, ...Array.from({ length: 2100 }, (_, i) => `l${i + 2}`)].join("\n");
  await Deno.writeTextFile(join(box.workspace, "big.txt"), body);
  const result = await runTool(readTool, { file_path: "big.txt" }, box.ctx());
  const out = result.content.split("\n");
  assert.equal(out[0], `1\t${"x".repeat(2000)}… [line truncated, 2500 chars]`);
  assert.equal(out[1999], "2000\tl2000");
  assert.match(result.content, /Showing lines 1-2000 of 2101\./);
});

Deno.test("Read refuses directories, binary files and missing files; notes empty files", async () => {
  await using box = await sandbox();
  await Deno.mkdir(join(box.workspace, "dir"));
  await Deno.writeFile(join(box.workspace, "bin.dat"), new Uint8Array([0x89, 0x50, 0, 1, 2]));
  await Deno.writeTextFile(join(box.workspace, "empty.txt"), "");
  const ctx = box.ctx();
  const dir = await runTool(readTool, { file_path: "dir" }, ctx);
  assert.equal(dir.isError, true);
  assert.match(dir.content, /is a directory, not a file\. Use Glob/);
  const bin = await runTool(readTool, { file_path: "bin.dat" }, ctx);
  assert.equal(bin.isError, true);
  assert.match(bin.content, /is a binary file \(5 bytes\)/);
  const missing = await runTool(readTool, { file_path: "nope.txt" }, ctx);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /^File does not exist: .*nope\.txt\. The workspace root is /);
  const empty = await runTool(readTool, { file_path: "empty.txt" }, ctx);
  assert.deepEqual([empty.isError, empty.content], [
    false,
    "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
  ]);
});

Deno.test("Read may read outside the workspace, also through a symlink", async () => {
  await using box = await sandbox();
  await Deno.writeTextFile(join(box.outside, "secret.txt"), "outside\n");
  await Deno.symlink(box.outside, join(box.workspace, "link"));
  const direct = await runTool(readTool, { file_path: join(box.outside, "secret.txt") }, box.ctx());
  assert.equal(direct.content, "1\toutside\n2\t");
  const viaLink = await runTool(readTool, { file_path: "link/secret.txt" }, box.ctx({ trusted: false }));
  assert.equal(viaLink.content, "1\toutside\n2\t");
});

async function mkfifo(path: string): Promise<boolean> {
  const out = await new Deno.Command("mkfifo", { args: [path], stderr: "null" }).output().catch(() => null);
  return out?.success === true;
}

Deno.test("Read refuses a symlink to /dev/zero and a FIFO at once, without reading or blocking", async (t) => {
  if (Deno.build.os === "windows") return;
  await using box = await sandbox();
  await Deno.symlink("/dev/zero", join(box.workspace, "zero.txt"));
  const zero = await runTool(readTool, { file_path: "zero.txt" }, box.ctx());
  assert.deepEqual(zero, {
    content: "/dev/zero is a character device, not a regular file; Read only reads regular files.",
    isError: true,
  });
  if (!(await mkfifo(join(box.workspace, "pipe")))) return void t.step("mkfifo unavailable", () => {});
  await Deno.symlink(join(box.workspace, "pipe"), join(box.workspace, "pipe-link"));
  for (const name of ["pipe", "pipe-link"]) {
    const fifo = await runTool(readTool, { file_path: name }, box.ctx());
    assert.equal(fifo.isError, true);
    assert.equal(
      fifo.content,
      `${
        join(box.workspace, "pipe")
      } is a FIFO (named pipe), not a regular file; Read only reads regular files.`,
    );
  }
});

Deno.test("Read reads at most 16 MiB of a file (a literal: the documented cap)", async () => {
  const { READ_MAX_BYTES } = await import("./read.ts");
  assert.equal(READ_MAX_BYTES, 16 * 1024 * 1024);
});
