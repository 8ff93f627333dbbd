// Grep's semantic conformance suite (docs/reference/search.md, "Grep"): one fixture tree, one list of
// cases, both engines. Each case's answer is the snapshot ripgrep gave (recorded through the rg engine,
// which runs rg as Claude Code does); the built-in search must give exactly the same text, and so must
// the rg engine whenever rg is installed (without it those cases are skipped, saying so). Cases cover
// the regex flavour, .gitignore/.ignore/.rgignore (nested, negated, a parent folder's), hidden files,
// version control folders, symlinks and FIFOs, binary files, the three output modes, context,
// head_limit/offset, -o, -i, multiline, type and glob filters, a file as the root, CRLF and long lines.
// Update the snapshots (from rg) with `deno task test -u tests/grep_conformance_test.ts`.

import assert from "node:assert/strict";
import { makeGrepTool } from "../lib/tools/grep.ts";
import type { GrepInput } from "../lib/tools/input_zod.ts";
import { runTool, sandbox } from "../lib/testing/tool_harness.ts";
import { findRipgrep } from "../lib/sys/ripgrep.ts";

const RG = findRipgrep();
const builtin = makeGrepTool({ ripgrep: () => undefined });
const ripgrep = makeGrepTool({ ripgrep: () => RG });

/** The fixture tree: `outer/.ignore` lies above the searched folder `outer/tree`, a git repository. */
const FILES: Record<string, string> = {
  "../.ignore": "parent_ignored.rs\n",
  ".git/HEAD": "ref: refs/heads/main\nfn op_in_git(\n",
  ".gitignore": "build/\n*.log\n!keep.log\n",
  ".ignore": "vendor/skip.rs\n",
  ".rgignore": "generated.rs\n",
  ".env": "SECRET_fn op_env(\n",
  ".hid/h.rs": "fn op_hidden(x) {}\n",
  "build/out.rs": "fn op_built(x) {}\n",
  "app.log": "fn op_logged\n",
  "keep.log": "fn op_kept\n",
  "parent_ignored.rs": "fn op_parent(\n",
  "generated.rs": "fn op_generated(\n",
  "vendor/skip.rs": "fn op_vendor(\n",
  "vendor/use.rs": "fn op_vendor_used(a: u8) -> u8 { a }\n",
  "deep/.gitignore": "keep.rs\n",
  "deep/keep.rs": "fn op_deep_ignored(\n",
  "deep/x/.gitignore": "!keep.rs\n",
  "deep/x/keep.rs": "fn op_deep_kept(\n",
  "src/main.rs":
    'use std::io;\n\nfn main() {\n    op_start();\n}\n\nfn op_start() {\n    println!("Hello, Wörld");\n}\n\nfn op_stop_now(a: i32) {}\nstruct Config {\n    name: String,\n    field: u32,\n}\n',
  "src/lib.ts": "export function opStart(): void {}\n// TODO: fn op_ts(\nconst x = 42; // Answer\n",
  "src/util.py": "def op_py():\n    return 1\n# todo later\n",
  "src/Mixed.rs": "FN OP_UPPER(\nfn Op_Mixed(\n",
  "docs/readme.md": "# Readme\nSee fn op_start( in main.\n\n\ntrailing\n",
  "docs/crlf.txt": "first op_crlf(\r\nsecond\r\nthird op_crlf(\r\n",
  "docs/unicode.txt": "naïve café 123\nＡＢＣ ４２ ü\n日本語 テキスト\n",
  "docs/long.txt": `short op_line(\n${"x".repeat(600)} op_long(\n`,
};

async function buildTree(root: string): Promise<string> {
  const tree = `${root}/outer/tree`;
  let t = 1_000;
  for (const [rel, text] of Object.entries(FILES)) {
    const path = `${tree}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
    await Deno.utime(path, t, t);
    t += 100;
  }
  await Deno.writeFile(`${tree}/src/blob.bin`, new Uint8Array([102, 110, 32, 111, 112, 95, 98, 40, 0, 1, 2]));
  await Deno.utime(`${tree}/src/blob.bin`, t, t);
  await Deno.symlink(`${tree}/src/main.rs`, `${tree}/link.rs`);
  await new Deno.Command("mkfifo", { args: [`${tree}/pipe.rs`] }).output();
  return tree;
}

const CASES: [string, Omit<GrepInput, "path"> & { at?: string }][] = [
  ["files: ignore files, hidden, vcs, binary, symlink, fifo", { pattern: "fn op_" }],
  ["files: regex class and escaped paren", { pattern: "fn op_[a-z_]+\\(" }],
  ["files: -i", { pattern: "fn op_", "-i": true }],
  ["files: inline (?i)", { pattern: "(?i)op_upper" }],
  ["count", { pattern: "op_", output_mode: "count" }],
  ["content: line numbers", { pattern: "op_start", output_mode: "content" }],
  ["content: no line numbers", { pattern: "op_start", output_mode: "content", "-n": false }],
  ["content: context -C 1", { pattern: "op_st", output_mode: "content", "-C": 1 }],
  ["content: -A 1 -B 2", { pattern: "println", output_mode: "content", "-A": 1, "-B": 2 }],
  ["content: -o", { pattern: "op_[a-z]+", output_mode: "content", "-o": true, glob: "*.rs" }],
  ["content: head_limit and offset", { pattern: "op_", output_mode: "content", head_limit: 3, offset: 2 }],
  ["files: head_limit", { pattern: "op_", head_limit: 2 }],
  ["files: head_limit 0 = all", { pattern: "op_", head_limit: 0 }],
  ["count: head_limit", { pattern: "op_", output_mode: "count", head_limit: 1 }],
  ["files: offset past the end", { pattern: "op_", offset: 100 }],
  ["type rust", { pattern: "op_", type: "rust" }],
  ["type py, content", { pattern: "op_py|todo", type: "py", output_mode: "content" }],
  ["glob *.rs", { pattern: "op_", glob: "*.rs" }],
  ["glob with braces", { pattern: "op_|opStart", glob: "*.{ts,py}" }],
  ["glob list and exclusion", { pattern: "op_", glob: "*.rs,*.md !src/**" }],
  ["glob whitelists an ignored file", { pattern: "op_", glob: "*.log" }],
  ["glob with a slash", { pattern: "op_", glob: "src/*.rs" }],
  ["multiline", { pattern: "struct Config \\{.*?field", multiline: true, output_mode: "content" }],
  ["newline outside multiline refused", { pattern: "a\\nb" }],
  ["look-around refused", { pattern: "op_(?=start)" }],
  ["unknown type refused", { pattern: "x", type: "nosuchtype" }],
  ["anchors", { pattern: "^fn op_[a-z]+\\($", output_mode: "content" }],
  ["crlf end anchor", { pattern: "op_crlf\\($", output_mode: "content" }],
  ["unicode word and digit classes", { pattern: "\\w+é|\\d{2}", output_mode: "content", glob: "*.txt" }],
  ["\\s does not cross lines", { pattern: "\\(\\s+\\w", output_mode: "content", glob: "*.rs" }],
  ["posix class and hex escape", { pattern: "[[:upper:]]\\x{4f}", output_mode: "content" }],
  ["long line omitted", { pattern: "op_", output_mode: "content", glob: "long.txt" }],
  ["a file as root", { pattern: "op_", output_mode: "content", at: "src/main.rs" }],
  ["a binary file as root", { pattern: "op_", output_mode: "content", at: "src/blob.bin" }],
  ["a binary file as root, count", { pattern: "op_", output_mode: "count", at: "src/blob.bin" }],
  ["a subfolder: parent ignore files apply", { pattern: "op_", at: "deep" }],
  ["no match", { pattern: "zzz_nothing" }],
  ["no match, content", { pattern: "zzz_nothing", output_mode: "content" }],
];

Deno.test("Grep conformance: the built-in search and ripgrep give the same answers", async (t) => {
  if (RG === undefined) {
    // deno-lint-ignore no-console
    console.log(
      "grep conformance: rg not installed; the rg engine's cases are skipped (the built-in is still checked)",
    );
  }
  await using box = await sandbox();
  const tree = await buildTree(box.outside);
  const ctx = { ...box.ctx(), workspaceRoot: tree };
  const differ: string[] = [];
  const answers = [];
  for (const [name, { at, ...input }] of CASES) {
    const call = at === undefined ? input : { ...input, path: at };
    const mine = await runTool(builtin, call, ctx);
    const answer = { case: name, isError: mine.isError, content: mine.content };
    if (RG !== undefined) {
      const theirs = await runTool(ripgrep, call, ctx);
      const rg = { case: name, isError: theirs.isError, content: theirs.content };
      if (JSON.stringify(rg) !== JSON.stringify(answer)) {
        differ.push(`${name}:\n--- ripgrep\n${rg.content}\n--- built-in\n${answer.content}`);
      }
      answers.push(rg);
    } else answers.push(answer);
  }
  assert.deepEqual(differ, [], `the built-in search differs from ripgrep in ${differ.length} cases`);
  await t.assertSnapshot(answers);
});
