import assert from "node:assert/strict";
import { join } from "node:path";
import { runTool, sandbox } from "../testing/tool_harness.ts";
import { writeTool } from "./write.ts";

Deno.test("Write creates parent folders and reports bytes and lines", async () => {
  await using box = await sandbox();
  const path = join(box.workspace, "a/b/c.txt");
  const result = await runTool(writeTool, { file_path: "a/b/c.txt", content: "héllo\nworld\n" }, box.ctx());
  assert.deepEqual(result, {
    content: `Created ${path} (13 bytes, 2 lines).`,
    isError: false,
    metadata: { path, bytes: 13, lines: 2, created: true, modifiedFiles: [path] },
    response: {
      type: "create",
      filePath: path,
      content: "héllo\nworld\n",
      structuredPatch: [],
      originalFile: null,
      userModified: false,
    },
  });
  assert.equal(await Deno.readTextFile(path), "héllo\nworld\n");
});

Deno.test("Write overwrites an existing file and keeps its mode", async () => {
  await using box = await sandbox();
  const path = join(box.workspace, "run.sh");
  await Deno.writeTextFile(path, "old contents\n", { mode: 0o755 });
  await Deno.chmod(path, 0o755);
  const result = await runTool(writeTool, { file_path: path, content: "new" }, box.ctx());
  assert.equal(result.content, `Overwrote ${path} (3 bytes, 1 line).`);
  assert.equal(result.response?.type, "update");
  assert.equal(result.response?.originalFile, "old contents\n");
  assert.equal(await Deno.readTextFile(path), "new");
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o755);
});

Deno.test("Write refuses a directory target", async () => {
  await using box = await sandbox();
  const result = await runTool(writeTool, { file_path: ".", content: "x" }, box.ctx());
  assert.deepEqual([result.isError, result.content], [
    true,
    `Cannot write ${box.workspace}: it is a directory.`,
  ]);
});

Deno.test("Write denies escapes: symlink out, .., sibling prefix", async () => {
  await using box = await sandbox();
  await Deno.symlink(box.outside, join(box.workspace, "link"));
  const sibling = `${box.workspace}-evil`;
  for (const file_path of ["link/pwned.txt", "../outside/pwned.txt", join(sibling, "pwned.txt")]) {
    const result = await runTool(writeTool, { file_path, content: "x" }, box.ctx());
    assert.equal(result.isError, true, file_path);
    assert.match(result.content, /^Cannot write .* is outside the workspace/);
  }
  assert.deepEqual([...Deno.readDirSync(box.outside)], []);
  assert.equal(await Deno.stat(sibling).catch(() => null), null);
});

Deno.test("Write in an untrusted workspace only reaches the storage root", async () => {
  await using box = await sandbox();
  const ctx = box.ctx({ trusted: false });
  const refused = await runTool(writeTool, { file_path: "a.txt", content: "x" }, ctx);
  assert.equal(refused.isError, true);
  assert.match(refused.content, /not trusted.*`blade trust`/);
  const stored = join(box.storage, "plans/plan.md");
  const allowed = await runTool(writeTool, { file_path: stored, content: "plan" }, ctx);
  assert.equal(allowed.isError, false);
  assert.equal((await Deno.stat(stored)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(join(box.storage, "plans"))).mode! & 0o777, 0o700);
});
