import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { GREP_MAX_OUTPUT_CHARS, grepTool } from "./grep.ts";
import { runTool, sandbox } from "../testing/tool_harness.ts";

async function put(root: string, rel: string, text: string, mtimeSeconds = 1_000): Promise<string> {
  const path = join(root, rel);
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
  await Deno.utime(path, mtimeSeconds, mtimeSeconds);
  return path;
}

async function fixture(root: string) {
  return {
    a: await put(root, "src/a.ts", "import x\nconst TODO = 1;\nother\nthird\ntodo again\n", 1_000),
    b: await put(root, "src/b.js", "// TODO: fix\n", 2_000),
    c: await put(root, "notes.md", "nothing here\n", 3_000),
    mod: await put(root, "node_modules/pkg/i.js", "TODO in dependency\n"),
    git: await put(root, ".git/config", "TODO in git\n"),
  };
}

Deno.test("Grep files_with_matches (default) lists files newest first and skips noise folders", async () => {
  await using box = await sandbox();
  const f = await fixture(box.workspace);
  await Deno.writeFile(join(box.workspace, "blob.bin"), new Uint8Array([84, 79, 68, 79, 0, 1]));
  const result = await runTool(grepTool, { pattern: "TODO" }, box.ctx());
  assert.deepEqual(result, {
    content: `Found 2 files\n${f.b}\n${f.a}`,
    isError: false,
    metadata: { files: 2, matches: 2, truncated: false },
  });
});

Deno.test("Grep content mode: line numbers, -i, context, glob, head_limit", async () => {
  await using box = await sandbox();
  const f = await fixture(box.workspace);
  const ctx = box.ctx();
  const content = await runTool(grepTool, {
    pattern: "todo",
    output_mode: "content",
    "-i": true,
    glob: "*.ts",
  }, ctx);
  assert.equal(content.content, `${f.a}:2:const TODO = 1;\n${f.a}:5:todo again`);
  const ctxLines = await runTool(grepTool, {
    pattern: "TODO",
    output_mode: "content",
    "-C": 1,
    path: "src/a.ts",
  }, ctx);
  assert.equal(
    ctxLines.content,
    [`${f.a}-1-import x`, `${f.a}:2:const TODO = 1;`, `${f.a}-3-other`].join("\n"),
  );
  const separated = await runTool(
    grepTool,
    { pattern: "import|todo", output_mode: "content", "-A": 0, "-n": false, path: f.a },
    ctx,
  );
  assert.equal(separated.content, `${f.a}:import x\n${f.a}:todo again`);
  const grouped = await runTool(grepTool, {
    pattern: "import|again",
    output_mode: "content",
    "-B": 1,
    path: f.a,
  }, ctx);
  assert.equal(
    grouped.content,
    [`${f.a}:1:import x`, "--", `${f.a}-4-third`, `${f.a}:5:todo again`].join("\n"),
  );
  const head = await runTool(
    grepTool,
    { pattern: "o", output_mode: "content", head_limit: 2, path: "src" },
    ctx,
  );
  assert.equal(head.content.split("\n").length, 2);
});

Deno.test("Grep count mode and searching named noise folders", async () => {
  await using box = await sandbox();
  const f = await fixture(box.workspace);
  const count = await runTool(grepTool, { pattern: "TODO|todo", output_mode: "count" }, box.ctx());
  assert.equal(count.content, `${f.a}:2\n${f.b}:1\n\nFound 3 matching lines across 2 files.`);
  const deps = await runTool(grepTool, { pattern: "TODO", glob: "node_modules/**" }, box.ctx());
  assert.equal(deps.content, `Found 1 file\n${f.mod}`);
});

Deno.test("Grep reports no matches, bad regexes and missing paths", async () => {
  await using box = await sandbox();
  await fixture(box.workspace);
  const none = await runTool(grepTool, { pattern: "zzz" }, box.ctx());
  assert.deepEqual([none.isError, none.content], [false, "No files found"]);
  const noneContent = await runTool(grepTool, { pattern: "zzz", output_mode: "content" }, box.ctx());
  assert.equal(noneContent.content, "No matches found");
  const bad = await runTool(grepTool, { pattern: "(" }, box.ctx());
  assert.equal(bad.isError, true);
  assert.match(bad.content, /^Invalid regular expression "\(":/);
  const missing = await runTool(grepTool, { pattern: "x", path: "nope" }, box.ctx());
  assert.deepEqual([missing.isError, missing.content], [
    true,
    `Path does not exist: ${join(box.workspace, "nope")}.`,
  ]);
});

Deno.test("Grep caps its output", async () => {
  await using box = await sandbox();
  await put(box.workspace, "big.txt", Array.from({ length: 5000 }, (_, i) => `match line ${i}`).join("\n"));
  const result = await runTool(grepTool, { pattern: "match", output_mode: "content" }, box.ctx());
  assert.ok(result.content.length < GREP_MAX_OUTPUT_CHARS + 200);
  assert.match(result.content, /\(Output truncated at 30000 characters\. Narrow the search/);
  assert.equal(result.metadata?.["truncated"], true);
});
