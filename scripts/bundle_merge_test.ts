// Tests of scripts/bundle_merge.ts: the export clauses it understands (a table), the import rewrites,
// and a real merge of a small flat build by `deno bundle`, run afterwards: one module instance per
// chunk whichever way it is reached, lazy chunks still lazy.

import assert from "node:assert/strict";
import { exportsOf, mergeStartGroups, pointAtGroups } from "./bundle_merge.ts";
import { runDenoBundle } from "./bundle_split.ts";

const EXPORTS: [string, [string, string][] | undefined][] = [
  ["var a=1;export{a as x,b};", [["x", "a"], ["b", "b"]]],
  ["var a=1;", []],
  ["var a=1;export{a as x};\n", [["x", "a"]]],
  ['export{a}from"./b.js";', undefined],
  ["export default 1;", undefined],
  ["export const a=1;", undefined],
  ['export*from"./b.js";', undefined],
  ["export{a};var b=2;export{b};", undefined],
];

for (const [text, want] of EXPORTS) {
  Deno.test(`exportsOf ${JSON.stringify(text)}`, () => {
    const got = exportsOf(text);
    assert.deepEqual(got === undefined ? undefined : [...got], want);
  });
}

Deno.test("pointAtGroups points named and bare imports of merged chunks at the group's file", () => {
  const placed = new Map([
    ["chunk-A.js", { entry: "main.js", names: new Map([["a", "__m0_1_a"], ["b", "__m0_1_b"]]) }],
    ["main.js", { entry: "main.js", names: new Map([["main", "main"]]) }],
  ]);
  assert.equal(
    pointAtGroups(
      'import{a as x,b}from"./chunk-A.js";import"./chunk-A.js";import"./other.js";',
      "./",
      placed,
    ),
    'import{__m0_1_a as x,__m0_1_b as b}from"./main.js";import"./main.js";import"./other.js";',
  );
  // A name the group does not have, a namespace import: left to the stub.
  const kept = 'import{c as y}from"./chunk-A.js";import*as n from"./chunk-A.js";';
  assert.equal(pointAtGroups(kept, "./", placed), kept);
});

Deno.test("mergeStartGroups: a group is one module, its chunks stubs of it, lazy chunks still lazy", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-merge-test-" });
  try {
    const files: Record<string, string> = {
      "main.js": 'import{a as s}from"./chunk-S.js";import"./chunk-T.js";' +
        'var m=()=>s.n++,l=()=>import(new URL("./lazy.js",import.meta.url).href);export{m as main,l as lazy};',
      "chunk-S.js": "var a={n:0};export{a};",
      "chunk-T.js": "globalThis.__mergeOrder=(globalThis.__mergeOrder??[]).concat('T');",
      "lazy.js": 'import{a as s}from"./chunk-S.js";import*as ns from"./chunk-S.js";' +
        "var t=s,v=ns.a;export{t as state,v as viaNamespace};",
    };
    for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(`${dir}/${name}`, text);
    const merged = await mergeStartGroups(dir, ["main.js"], runDenoBundle);
    assert.deepEqual(merged, [{ entry: "main.js", merged: ["chunk-S.js", "chunk-T.js"] }]);
    assert.match(await Deno.readTextFile(`${dir}/chunk-S.js`), /^export\{\S+ as a\}from"\.\/main\.js";/);
    assert.doesNotMatch(await Deno.readTextFile(`${dir}/main.js`), /chunk-[ST]\.js/);
    assert.match(await Deno.readTextFile(`${dir}/lazy.js`), /from"\.\/main\.js"/);
    const main = await import(`file://${dir}/main.js`);
    assert.equal(main.main(), 0);
    assert.deepEqual((globalThis as { __mergeOrder?: string[] }).__mergeOrder, ["T"]);
    const lazy = await main.lazy();
    assert.equal(lazy.state.n, 1, "the lazy chunk sees the group's instance");
    assert.equal(lazy.viaNamespace, lazy.state, "so does an import through the stub");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
