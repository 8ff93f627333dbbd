// The Grep tool around its engines (the engines' answers: tests/grep_conformance_test.ts): refusals,
// what it never opens, deny rules, its time limit and output cap, and Claude Code's text.

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { GREP_MAX_OUTPUT_CHARS, grepTool, makeGrepTool } from "./grep.ts";
import { runTool, sandbox } from "../testing/tool_harness.ts";
import { runRules } from "../permissions/run_rules.ts";
import { searchRefusal } from "../permissions/gate.ts";
import { GREP_TIME_LIMIT_MS } from "./search/grep_query.ts";
import { findRipgrep } from "../sys/ripgrep.ts";
import type { Clock } from "../sys/clock.ts";

const ENGINES = [
  ["built-in", makeGrepTool({ ripgrep: () => undefined })],
  ...(findRipgrep() === undefined ? [] : [["rg", makeGrepTool({ ripgrep: findRipgrep })] as const]),
] as const;

async function put(root: string, rel: string, text: string, mtimeSeconds = 1_000): Promise<string> {
  const path = join(root, rel);
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
  await Deno.utime(path, mtimeSeconds, mtimeSeconds);
  return path;
}

Deno.test("Grep: paths relative to the workspace, newest first, head_limit 250 by default, pagination said", async () => {
  await using box = await sandbox();
  for (let i = 0; i < 260; i++) {
    await put(box.workspace, `f/${String(i).padStart(3, "0")}.txt`, "needle\n", 1_000 + i);
  }
  for (const [name, tool] of ENGINES) {
    const all = await runTool(tool, { pattern: "needle" }, box.ctx());
    const lines = all.content.split("\n");
    assert.equal(lines[0], "Found 250 files limit: 250", name);
    assert.deepEqual(lines.slice(1, 3), ["f/259.txt", "f/258.txt"], name);
    const page = await runTool(tool, { pattern: "needle", head_limit: 2, offset: 3 }, box.ctx());
    assert.equal(page.content, "Found 2 files limit: 2, offset: 3\nf/256.txt\nf/255.txt", name);
    const every = await runTool(tool, { pattern: "needle", head_limit: 0 }, box.ctx());
    assert.equal(every.content.split("\n")[0], "Found 260 files", name);
  }
});

Deno.test("Grep's tool_response for hooks: the page the text shows, as the Agent SDK's GrepOutput", async () => {
  await using box = await sandbox();
  await put(box.workspace, "a.txt", "alpha\nbeta\n", 1_000);
  await put(box.workspace, "b.txt", "gamma\n", 2_000);
  for (const [name, tool] of ENGINES) {
    const files = await runTool(tool, { pattern: "a" }, box.ctx());
    assert.deepEqual(files.response, {
      mode: "files_with_matches",
      filenames: ["b.txt", "a.txt"],
      numFiles: 2,
    }, name);
    const content = await runTool(tool, { pattern: "a", output_mode: "content", head_limit: 2 }, box.ctx());
    assert.deepEqual(content.response, {
      mode: "content",
      numFiles: 0,
      filenames: [],
      content: "a.txt:1:alpha\na.txt:2:beta",
      numLines: 2,
      appliedLimit: 2,
    }, name);
    const count = await runTool(tool, { pattern: "a", output_mode: "count" }, box.ctx());
    assert.deepEqual(count.response, {
      mode: "count",
      numFiles: 2,
      filenames: [],
      content: "a.txt:2\nb.txt:1",
      numMatches: 3,
    }, name);
  }
});

Deno.test("Grep opens only regular files: a FIFO or a device given as the path is refused, never read", async () => {
  await using box = await sandbox();
  const fifo = join(box.workspace, "pipe");
  await new Deno.Command("mkfifo", { args: [fifo] }).output();
  await Deno.symlink("/dev/zero", join(box.workspace, "zero"));
  for (const [name, tool] of ENGINES) {
    const pipe = await runTool(tool, { pattern: "x", path: "pipe" }, box.ctx());
    assert.deepEqual([pipe.isError, pipe.content], [
      true,
      `${fifo} is not a regular file or a folder; Grep searches only those.`,
    ], name);
    const zero = await runTool(tool, { pattern: "x", path: "zero" }, box.ctx());
    assert.deepEqual([zero.isError, zero.content], [
      true,
      "/dev/zero is not a regular file or a folder; Grep searches only those.",
    ], name);
    // In a folder, both are passed over (and a symlink is never followed).
    await put(box.workspace, "a.txt", "x\n");
    const folder = await runTool(tool, { pattern: "x" }, box.ctx());
    assert.equal(folder.content, "Found 1 file\na.txt", name);
  }
});

Deno.test("Grep stops at its time limit and says its answer is incomplete", async () => {
  await using box = await sandbox();
  for (let i = 0; i < 50; i++) await put(box.workspace, `d${i}/f.txt`, "needle\n");
  // A clock that has jumped past the limit by the time the search looks at it again.
  let reads = 0;
  const late: Clock = {
    ...box.ctx().ports.clock,
    now: () => 1_000_000 + (reads++ === 0 ? 0 : GREP_TIME_LIMIT_MS + 1),
  };
  for (const [name, tool] of ENGINES) {
    reads = 0;
    const ctx = box.ctx();
    const result = await runTool(tool, { pattern: "needle" }, {
      ...ctx,
      ports: { ...ctx.ports, clock: late },
    });
    assert.equal(result.isError, false, name);
    assert.match(result.content, /^The search stopped at its time limit \(20 s\) before it finished/, name);
    assert.equal(result.metadata?.["timedOut"], true, name);
  }
  assert.equal(GREP_TIME_LIMIT_MS, 20_000);
});

Deno.test("Grep refuses a pattern ripgrep refuses and a missing path, saying why", async () => {
  await using box = await sandbox();
  await put(box.workspace, "a.txt", "x\n");
  for (const [name, tool] of ENGINES) {
    const bad = await runTool(tool, { pattern: "(" }, box.ctx());
    assert.equal(bad.isError, true, name);
    assert.match(bad.content, /^Invalid search: regex parse error: /, name);
    const missing = await runTool(tool, { pattern: "x", path: "nope" }, box.ctx());
    assert.deepEqual([missing.isError, missing.content], [
      true,
      `Path does not exist: ${join(box.workspace, "nope")}.`,
    ]);
  }
});

Deno.test("Grep caps its output", async () => {
  await using box = await sandbox();
  await put(box.workspace, "big.txt", Array.from({ length: 5000 }, (_, i) => `match line ${i}`).join("\n"));
  const result = await runTool(
    grepTool,
    { pattern: "match", output_mode: "content", head_limit: 0 },
    box.ctx(),
  );
  assert.ok(result.content.length < GREP_MAX_OUTPUT_CHARS + 200);
  assert.match(result.content, /\(Output truncated at 30000 characters\. Narrow the search/);
  assert.equal(result.metadata?.["truncated"], true);
});

Deno.test("Grep over a folder leaves out the files a Read deny rule names, without naming them", async () => {
  await using box = await sandbox();
  await put(box.workspace, "secrets/api.key", "TOKEN=abc\n");
  await put(box.workspace, "secrets/deep/more.key", "TOKEN=def\n");
  await put(box.workspace, "src/app.ts", "const TOKEN = env();\n");
  const { rules } = runRules({ disallowedTools: ["Read(./secrets/**)"] });
  const pathRefusal = (tool: string, path: string) =>
    searchRefusal(rules, tool, path, { workspaceRoot: box.workspace });
  for (const [name, tool] of ENGINES) {
    for (const mode of ["content", "files_with_matches", "count"] as const) {
      const result = await runTool(tool, { pattern: "TOKEN", output_mode: mode }, box.ctx({ pathRefusal }));
      assert.equal(result.isError, false);
      assert.ok(!/secrets\/(api|deep)/.test(result.content), `${name}: ${result.content}`);
      assert.ok(!result.content.includes("abc") && !result.content.includes("def"), result.content);
      assert.ok(result.content.includes("src/app.ts"), result.content);
      assert.match(
        result.content,
        /Not searched: 2 paths refused by the deny rule Read\(\.\/secrets\/\*\*\)/,
      );
    }
  }
});

Deno.test("Grep on a path it cannot resolve (a symlink loop) says why, not 'does not exist'", async () => {
  await using box = await sandbox();
  await Deno.writeTextFile(join(box.workspace, "a.txt"), "needle\n");
  const loop = join(box.workspace, "loop.txt");
  await Deno.symlink(loop, loop);
  for (const [name, tool] of ENGINES) {
    const self = await runTool(tool, { pattern: "needle", path: "loop.txt" }, box.ctx());
    assert.deepEqual([self.isError, self.content], [
      true,
      `Cannot read ${loop}: Too many levels of symbolic links (ELOOP).`,
    ], name);
    const all = await runTool(tool, { pattern: "needle" }, box.ctx());
    assert.equal(all.content, "Found 1 file\na.txt", name);
  }
});
