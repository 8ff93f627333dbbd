import assert from "node:assert/strict";
import { compileGlob, expandBraces } from "./glob_pattern.ts";

function matches(pattern: string, path: string): boolean {
  return compileGlob(pattern).matches(path);
}

Deno.test("expandBraces expands nested alternatives and leaves single braces", () => {
  assert.deepEqual(expandBraces("a{b,c{d,e}}f"), ["abf", "acdf", "acef"]);
  assert.deepEqual(expandBraces("x{y}z"), ["x{y}z"]);
  assert.deepEqual(expandBraces("{src,lib}/**/*.ts"), ["src/**/*.ts", "lib/**/*.ts"]);
});

Deno.test("* and ? stay inside one segment, ** crosses folders", () => {
  assert.equal(matches("*.ts", "a.ts"), true);
  assert.equal(matches("*.ts", "src/a.ts"), false);
  assert.equal(matches("**/*.ts", "a.ts"), true);
  assert.equal(matches("**/*.ts", "src/deep/a.ts"), true);
  assert.equal(matches("src/**/x.ts", "src/x.ts"), true);
  assert.equal(matches("src/**/x.ts", "lib/x.ts"), false);
  assert.equal(matches("test_?.py", "test_1.py"), true);
  assert.equal(matches("test_?.py", "test_12.py"), false);
  assert.equal(matches("*", ".env"), true);
});

Deno.test("character classes, negation and braces", () => {
  assert.equal(matches("[A-Z]*.md", "README.md"), true);
  assert.equal(matches("[A-Z]*.md", "notes.md"), false);
  assert.equal(matches("[!a]*", "abc"), false);
  assert.equal(matches("[!a]*", "bcd"), true);
  assert.equal(matches("*.{ts,tsx}", "a.tsx"), true);
  assert.equal(matches("*.{ts,tsx}", "a.js"), false);
  assert.equal(matches("a+b(c).txt", "a+b(c).txt"), true);
  assert.equal(matches("[z-a]", "[z-a]"), true);
});

Deno.test("mayContain prunes folders that cannot hold a match", () => {
  const g = compileGlob("src/**/*.ts");
  assert.equal(g.mayContain("src"), true);
  assert.equal(g.mayContain("src/a/b"), true);
  assert.equal(g.mayContain("lib"), false);
  assert.equal(compileGlob("*.ts").mayContain("src"), false);
  assert.equal(compileGlob("*/x.ts").mayContain("src"), true);
});
