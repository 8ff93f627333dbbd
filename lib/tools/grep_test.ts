import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { GREP_MAX_OUTPUT_CHARS, grepTool } from "./grep.ts";
import { runTool, sandbox } from "../testing/tool_harness.ts";
import { runRules } from "../permissions/run_rules.ts";
import { searchRefusal } from "../permissions/gate.ts";

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

Deno.test("Grep does not follow a symlinked file out of the workspace, and says so", async () => {
  await using box = await sandbox();
  await put(box.outside, "secret.txt", "TOKEN outside\n");
  const inside = await put(box.workspace, "real.txt", "TOKEN inside\n");
  await Deno.symlink(join(box.outside, "secret.txt"), join(box.workspace, "leak.txt"));
  await Deno.symlink(inside, join(box.workspace, "alias.txt"));
  const result = await runTool(grepTool, { pattern: "TOKEN", output_mode: "content" }, box.ctx());
  assert.equal(result.isError, false);
  assert.ok(!result.content.includes("TOKEN outside"), result.content);
  // A link that stays inside is searched, shown by the link's own path.
  assert.ok(result.content.includes(`${join(box.workspace, "alias.txt")}:1:TOKEN inside`), result.content);
  assert.ok(
    result.content.endsWith(
      `(Not followed: 1 symbolic link leading outside the workspace (leak.txt -> ${
        join(box.outside, "secret.txt")
      }).)`,
    ),
    result.content,
  );
});

Deno.test("Grep over a folder skips the files a Read deny rule names, without naming them", async () => {
  await using box = await sandbox();
  await put(box.workspace, "secrets/api.key", "TOKEN=abc\n");
  await put(box.workspace, "secrets/deep/more.key", "TOKEN=def\n");
  const open = await put(box.workspace, "src/app.ts", "const TOKEN = env();\n");
  const { rules } = runRules({ disallowedTools: ["Read(./secrets/**)"] });
  const pathRefusal = (tool: string, path: string) =>
    searchRefusal(rules, tool, path, { workspaceRoot: box.workspace });
  for (const mode of ["content", "files_with_matches", "count"] as const) {
    const result = await runTool(grepTool, { pattern: "TOKEN", output_mode: mode }, box.ctx({ pathRefusal }));
    assert.equal(result.isError, false);
    assert.ok(!result.content.includes(join(box.workspace, "secrets")), result.content);
    assert.ok(!result.content.includes("abc") && !result.content.includes("def"), result.content);
    assert.ok(result.content.includes(open), result.content);
    assert.match(result.content, /Not searched: 1 path refused by the deny rule Read\(\.\/secrets\/\*\*\)/);
  }
});

Deno.test("Grep on a path it cannot resolve (a symlink loop) says why, not 'does not exist'", async () => {
  await using box = await sandbox();
  await Deno.writeTextFile(join(box.workspace, "a.txt"), "needle\n");
  const loop = join(box.workspace, "loop.txt");
  await Deno.symlink(loop, loop);
  const self = await runTool(grepTool, { pattern: "needle", path: "loop.txt" }, box.ctx());
  assert.deepEqual([self.isError, self.content], [
    true,
    `Cannot read ${loop}: Too many levels of symbolic links (ELOOP).`,
  ]);
  const all = await runTool(grepTool, { pattern: "needle" }, box.ctx());
  assert.equal(all.isError, false, all.content);
  assert.equal(
    all.content,
    `Found 1 file\n${join(box.workspace, "a.txt")}\n` +
      `(Could not read 1 path: ${loop}: Too many levels of symbolic links (ELOOP).)`,
  );
});
