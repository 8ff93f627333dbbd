import assert from "node:assert/strict";
import { posix } from "node:path";
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from "./path.ts";

const SEGMENTS = ["", ".", "..", "...", "a", "b", "ab", ".a", "a.", "a..b", " ", "é", "a b"];

/** Every path of up to `depth` segments from SEGMENTS, each relative and absolute, with and without a trailing slash. */
function paths(depth: number, segments = SEGMENTS): string[] {
  let level = [""];
  const all = new Set<string>(["", "/", "//", "///", "./", "../"]);
  for (let d = 0; d < depth; d++) {
    level = level.flatMap((p) => segments.map((s) => (p === "" ? s : `${p}/${s}`)));
    for (const p of level) for (const v of [p, `/${p}`, `${p}/`, `//${p}`]) all.add(v);
  }
  return [...all];
}

const ONE = paths(3);
const PAIRS = paths(2, ["", ".", "..", "a", "ab", ".a", "a."]);

Deno.test("lib/path gives node:path's POSIX results (every path of up to 3 segments, pairs of up to 2)", () => {
  if (sep !== "/") return; // Windows uses node:path itself
  for (const p of ONE) {
    assert.equal(normalize(p), posix.normalize(p), `normalize(${JSON.stringify(p)})`);
    assert.equal(dirname(p), posix.dirname(p), `dirname(${JSON.stringify(p)})`);
    assert.equal(basename(p), posix.basename(p), `basename(${JSON.stringify(p)})`);
    assert.equal(isAbsolute(p), posix.isAbsolute(p), `isAbsolute(${JSON.stringify(p)})`);
    assert.equal(resolve(p), posix.resolve(p), `resolve(${JSON.stringify(p)})`);
    assert.equal(join(p), posix.join(p), `join(${JSON.stringify(p)})`);
  }
  for (const a of PAIRS) {
    for (const b of PAIRS) {
      const args = JSON.stringify([a, b]);
      assert.equal(join(a, b), posix.join(a, b), `join${args}`);
      assert.equal(resolve(a, b), posix.resolve(a, b), `resolve${args}`);
      assert.equal(relative(a, b), posix.relative(a, b), `relative${args}`);
    }
  }
  assert.equal(join(), posix.join());
  assert.equal(resolve(), posix.resolve());
  assert.equal(join("/a", "", "b", "../c"), posix.join("/a", "", "b", "../c"));
  assert.equal(resolve("a", "/b", "c", "", "../d"), posix.resolve("a", "/b", "c", "", "../d"));
});
