import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { GLOB_MAX_RESULTS, GLOB_TIME_LIMIT_MS, globTool } from "./glob.ts";
import { runTool, sandbox } from "../testing/tool_harness.ts";
import { runRules } from "../permissions/run_rules.ts";
import { searchRefusal } from "../permissions/gate.ts";

async function touch(root: string, rel: string, mtimeSeconds = 1_000_000): Promise<void> {
  const path = join(root, rel);
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, rel);
  await Deno.utime(path, mtimeSeconds, mtimeSeconds);
}

Deno.test("Glob returns absolute paths newest first, ties by path", async () => {
  await using box = await sandbox();
  await touch(box.workspace, "src/old.ts", 1_000);
  await touch(box.workspace, "src/new.ts", 3_000);
  await touch(box.workspace, "src/deep/mid.ts", 2_000);
  await touch(box.workspace, "src/deep/tie.ts", 2_000);
  await touch(box.workspace, "src/readme.md", 4_000);
  const { response, ...result } = await runTool(globTool, { pattern: "**/*.ts" }, box.ctx());
  const listed = ["src/new.ts", "src/deep/mid.ts", "src/deep/tie.ts", "src/old.ts"].map((p) =>
    join(box.workspace, p)
  );
  assert.deepEqual(result, {
    content: listed.join("\n"),
    isError: false,
    metadata: { count: 4, truncated: false },
  });
  // What PostToolUse hooks read (the Agent SDK's GlobOutput): the same list, its time measured.
  assert.equal(typeof response?.durationMs, "number");
  assert.deepEqual({ ...response, durationMs: 0 }, {
    filenames: listed,
    durationMs: 0,
    numFiles: 4,
    truncated: false,
  });
});

Deno.test("Glob supports path, braces, classes and absolute patterns", async () => {
  await using box = await sandbox();
  for (const f of ["a.ts", "b.tsx", "c.js", "Doc.md", "sub/x.ts"]) await touch(box.workspace, f);
  const names = async (input: Record<string, unknown>) =>
    (await runTool(globTool, input, box.ctx())).content.split("\n").sort();
  assert.deepEqual(await names({ pattern: "*.{ts,tsx}" }), [
    join(box.workspace, "a.ts"),
    join(box.workspace, "b.tsx"),
  ]);
  assert.deepEqual(await names({ pattern: "[A-Z]*" }), [join(box.workspace, "Doc.md")]);
  assert.deepEqual(await names({ pattern: "*.ts", path: "sub" }), [join(box.workspace, "sub/x.ts")]);
  assert.deepEqual(await names({ pattern: `${box.workspace}/sub/*.ts` }), [join(box.workspace, "sub/x.ts")]);
  assert.equal((await runTool(globTool, { pattern: "*.py" }, box.ctx())).content, "No files found");
});

Deno.test("Glob skips .git and node_modules unless the pattern names them", async () => {
  await using box = await sandbox();
  await touch(box.workspace, "index.js");
  await touch(box.workspace, "node_modules/pkg/index.js");
  await touch(box.workspace, ".git/hooks/x.js");
  const plain = await runTool(globTool, { pattern: "**/*.js" }, box.ctx());
  assert.equal(plain.content, join(box.workspace, "index.js"));
  const named = await runTool(globTool, { pattern: "node_modules/**/*.js" }, box.ctx());
  assert.equal(named.content, join(box.workspace, "node_modules/pkg/index.js"));
  const git = await runTool(globTool, { pattern: ".git/**" }, box.ctx());
  assert.equal(git.content, join(box.workspace, ".git/hooks/x.js"));
});

Deno.test("Glob caps results with a note", async () => {
  await using box = await sandbox();
  for (let i = 0; i < GLOB_MAX_RESULTS + 5; i++) {
    await Deno.writeTextFile(join(box.workspace, `f${i}.txt`), "");
  }
  const result = await runTool(globTool, { pattern: "*.txt" }, box.ctx());
  const lines = result.content.split("\n");
  assert.equal(lines.filter((l) => l.startsWith("/")).length, GLOB_MAX_RESULTS);
  assert.match(lines.at(-1)!, /Results are truncated: showing the 1000 newest of 1005 files/);
  assert.deepEqual(result.metadata, { count: GLOB_MAX_RESULTS + 5, truncated: true });
  assert.equal(result.response?.numFiles, GLOB_MAX_RESULTS);
  assert.equal(result.response?.truncated, true);
});

Deno.test("Glob errors on a missing or non-folder path", async () => {
  await using box = await sandbox();
  await touch(box.workspace, "file.txt");
  const missing = await runTool(globTool, { pattern: "*", path: "nope" }, box.ctx());
  assert.deepEqual([missing.isError, missing.content], [
    true,
    `Directory does not exist: ${join(box.workspace, "nope")}.`,
  ]);
  const file = await runTool(globTool, { pattern: "*", path: "file.txt" }, box.ctx());
  assert.equal(file.isError, true);
  assert.match(file.content, /is not a directory/);
});

Deno.test("Glob does not list a symlinked file whose target is outside the workspace, and says so", async () => {
  await using box = await sandbox();
  await touch(box.outside, "secret.env");
  await touch(box.workspace, "real.env");
  await Deno.symlink(join(box.outside, "secret.env"), join(box.workspace, "leak.env"));
  await Deno.symlink(join(box.workspace, "real.env"), join(box.workspace, "alias.env"));
  const result = await runTool(globTool, { pattern: "*.env" }, box.ctx());
  assert.equal(result.isError, false);
  const [list, note] = result.content.split("\n(");
  assert.deepEqual(list!.split("\n").sort(), [
    join(box.workspace, "alias.env"),
    join(box.workspace, "real.env"),
  ]);
  assert.equal(
    note,
    `Not followed: 1 symbolic link leading outside the workspace (leak.env -> ${
      join(box.outside, "secret.env")
    }).)`,
  );
});

Deno.test("Glob of a parent folder does not list what a Read deny rule names", async () => {
  await using box = await sandbox();
  await touch(box.workspace, "secrets/api.key");
  await touch(box.workspace, "secrets/deep/more.key");
  await touch(box.workspace, "keys/public.key");
  const { rules } = runRules({ disallowedTools: ["Read(./secrets/**)"] });
  const pathRefusal = (tool: string, path: string) =>
    searchRefusal(rules, tool, path, { workspaceRoot: box.workspace });
  const result = await runTool(globTool, { pattern: "**/*.key" }, box.ctx({ pathRefusal }));
  assert.equal(
    result.content,
    `${join(box.workspace, "keys/public.key")}\n` +
      "(Not searched: 1 path refused by the deny rule Read(./secrets/**).)",
  );
  const none = await runTool(globTool, { pattern: "secrets/**" }, box.ctx({ pathRefusal }));
  assert.equal(
    none.content,
    "No files found\n(Not searched: 1 path refused by the deny rule Read(./secrets/**).)",
  );
});

Deno.test("Glob names a link it cannot resolve (a symlink loop) instead of leaving it out silently", async () => {
  await using box = await sandbox();
  await touch(box.workspace, "a.txt");
  const loop = join(box.workspace, "loop.txt");
  await Deno.symlink(loop, loop);
  const result = await runTool(globTool, { pattern: "*.txt" }, box.ctx());
  assert.equal(result.isError, false, result.content);
  assert.equal(
    result.content,
    `${
      join(box.workspace, "a.txt")
    }\n(Could not read 1 path: ${loop}: Too many levels of symbolic links (ELOOP).)`,
  );
  // The folder asked for is a loop itself: a clear error, not "does not exist".
  const self = await runTool(globTool, { pattern: "*", path: "loop.txt" }, box.ctx());
  assert.deepEqual([self.isError, self.content], [
    true,
    `Cannot read ${loop}: Too many levels of symbolic links (ELOOP).`,
  ]);
});

Deno.test("Glob stops at its time limit and says its answer is incomplete", async () => {
  await using box = await sandbox();
  for (let i = 0; i < 20; i++) {
    await Deno.mkdir(join(box.workspace, `d${i}`));
    await Deno.writeTextFile(join(box.workspace, `d${i}`, "f.txt"), "x");
  }
  let reads = 0;
  const ctx = box.ctx();
  const late = { ...ctx.ports.clock, now: () => 1_000_000 + (reads++ < 3 ? 0 : GLOB_TIME_LIMIT_MS + 1) };
  const result = await runTool(globTool, { pattern: "**/*.txt" }, {
    ...ctx,
    ports: { ...ctx.ports, clock: late },
  });
  assert.match(result.content, /^The search stopped at its time limit \(20 s\) before it finished/);
  assert.equal(result.metadata?.["timedOut"], true);
  assert.ok((result.metadata?.["count"] as number) < 20);
  assert.equal(GLOB_TIME_LIMIT_MS, 20_000);
});

Deno.test("Glob never lists a FIFO, a socket or a device, nor a link to one", async () => {
  await using box = await sandbox();
  await new Deno.Command("mkfifo", { args: [join(box.workspace, "pipe.txt")] }).output();
  await Deno.symlink("/dev/zero", join(box.workspace, "zero.txt"));
  await Deno.writeTextFile(join(box.workspace, "real.txt"), "x");
  const result = await runTool(globTool, { pattern: "*.txt" }, box.ctx());
  assert.equal(result.content.split("\n")[0], join(box.workspace, "real.txt"));
  assert.ok(!result.content.includes("pipe.txt"), result.content);
  assert.equal(result.metadata?.["count"], 1);
});
