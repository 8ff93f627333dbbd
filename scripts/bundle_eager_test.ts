// Tests of scripts/bundle_eager.ts: rewritten modules give the same results as the originals (a table
// of the constructs it rewrites and those it leaves), what it rewrites, the import cycles it keeps
// declarations in, and that V8 really compiles the rewritten functions with their module (its function
// events, in a fresh DENO_DIR: none compiled lazily once the code cache exists).

import assert from "node:assert/strict";
import { chunksInCycles, eagerDir, eagerFunctions, staticImportsOf } from "./bundle_eager.ts";

/** Each module exports `result`: the rewrite must not change it. */
const CASES: Record<string, string> = {
  "declarations run before their place, recursive, renamed, reassigned": `
    const early = [a(2), typeof later, a.name, fact(5)];
    function a(x) { return x * k(); }
    function k() { return 3; }
    function fact(n) { return n <= 1 ? 1 : n * fact(n - 1); }
    function swap() { swap = () => "swapped"; return "first"; }
    function later() {}
    export const result = [...early, swap(), swap()];`,
  "declarations in function bodies, blocks, static blocks; directives; defaults": `
    function outer(p = "default") {
      return [p, inner(), typeof blockFn];
      function inner() { return "inner"; }
    }
    function directive(x) {
      "use strict";
      return [x, helper()];
      function helper() { return "after the directive"; }
    }
    let seen;
    { seen = blockFn(); function blockFn() { return "block"; } }
    class S { static v; static { S.v = helper(); function helper() { return "static"; } } }
    function shadow(f) { function f() { return "declared"; } return f(); }
    export const result = [outer(), directive(1), seen, typeof blockFn, S.v, shadow(() => "param")];`,
  "generators, async functions, async generators": `
    function* gen(n) { for (let i = 0; i < n; i++) yield i; }
    async function af(x) { return x + 1; }
    async function* ag() { yield 1; yield 2; }
    const collected = [];
    for await (const v of ag()) collected.push(v);
    export const result = [[...gen(3)], await af(1), collected, gen.name, af.name, ag.name,
      Object.getPrototypeOf(af).constructor.name];`,
  "arrows: closures, object bodies, nesting, async with and without this/arguments": `
    const fns = [];
    for (let i = 0; i < 3; i++) fns.push(() => i);
    const obj = () => ({ a: 1 });
    const add = (x) => (y) => x + y;
    const seq = async () => (1, 2);
    const block = async (x, { y = 2 } = {}, ...rest) => { return x + y + rest.length; };
    const holder = { v: 7, get() { const f = async () => this.v; return f(); } };
    function args() { const f = async () => arguments.length; return f(); }
    const t = \`\${[1, 2].map((n) => n * 2)}\`;
    export const result = [fns.map((f) => f()), obj(), add(1)(2), await seq(), await block(1, {}, 9, 9),
      await holder.get(), await args(1, 2, 3), t, obj.name, block.name, block.length];`,
  "object methods: computed, async, generator, super and __proto__ kept, accessors": `
    const base = { h() { return "base"; } };
    const o = {
      __proto__: base,
      m(a) { return a + 1; }, async am() { return 2; }, *g() { yield 3; }, async *ag() { yield 4; },
      [Symbol.for("k")]() { return 5; }, "str"(x) { return x; }, 7() { return 7; },
      [[1, 2].map((n) => n * 2).join("-")](x) { return [1].map((y) => y + x); },
      get gg() { return 8; }, set ss(v) { this._s = v; },
      h() { return "sub:" + super.h(); },
    };
    const weird = { __proto__() { return "a method"; } };
    o.ss = 9;
    export const result = [o.m(1), await o.am(), o.g().next().value, (await o.ag().next()).value,
      o[Symbol.for("k")](), o.str("s"), o[7](), o["2-4"](1), o.gg, o._s, o.h(), o.m.name, o.am.name,
      Object.keys(o).join(), typeof weird.__proto__, Object.getPrototypeOf(weird) === Object.prototype];`,
  "classes, exports, switch declarations, IIFEs, labels, using": `
    class C { static s() { return 5; } #p = () => 6; run() { return this.#p(); } }
    export function ex() { return 9; }
    export default (x) => x * 2;
    function sw(k) { switch (k) { case 1: function inCase() { return "case"; } return inCase(); } return "none"; }
    const iife = (function () { return "iife"; })();
    const ctor = new function () { this.v = "new"; }();
    let n = 0;
    outer: for (const i of [1, 2]) { for (const j of [1, 2]) { if (j === 2) continue outer; n += i; } }
    let disposed = false;
    { using r = { [Symbol.dispose]() { disposed = true; } }; }
    export const result = [C.s(), new C().run(), ex(), sw(1), sw(2), iife, ctor.v, n, disposed];`,
};

async function resultOf(dir: string, name: string, text: string): Promise<unknown> {
  const path = `${dir}/${name}.js`;
  await Deno.writeTextFile(path, text);
  return (await import(`file://${path}`)).result;
}

Deno.test("eagerFunctions: the rewritten modules give the same results", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    let i = 0;
    for (const [name, src] of Object.entries(CASES)) {
      await t.step(name, async () => {
        const out = eagerFunctions(src);
        assert.deepEqual(await resultOf(dir, `eager${i}`, out.text), await resultOf(dir, `plain${i}`, src));
        i++;
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eagerFunctions: what it rewrites and what it leaves", () => {
  const src =
    `function f(a){return a}const g=x=>x,h=async()=>1,i=async()=>this,o={m(){},get n(){return 1}};` +
    `class K{m(){}}export function e(){}`;
  const out = eagerFunctions(src);
  assert.deepEqual([out.hoisted, out.wrapped, out.methods], [1, 3, 1]);
  assert.match(out.text, /^var f=\(function \(a\)\{return a\}\);/);
  assert.ok(out.text.includes("g=(x=>x)"));
  assert.ok(out.text.includes("h=(async function(){return 1})"));
  assert.ok(out.text.includes("i=(async()=>this)")); // an arrow that uses `this` stays an arrow
  assert.ok(out.text.includes("o={m:(function(){}),get n(){return 1}}"));
  assert.ok(out.text.includes("class K{m(){}}"));
  assert.ok(out.text.includes("export function e(){}"));
  // A module in an import cycle keeps its top-level declarations (nested ones still move).
  const kept = eagerFunctions(`function f(){function g(){}return g}`, { hoistTopLevel: false });
  assert.deepEqual(kept.text, `function f(){var g=(function (){});return g}`);
});

Deno.test("eagerFunctions: a chunk that does not parse is an error, not a silent pass", () => {
  let error: unknown;
  try {
    eagerFunctions("function (");
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof SyntaxError);
});

Deno.test("chunksInCycles and staticImportsOf: the chunks that import each other", () => {
  assert.deepEqual(
    staticImportsOf(
      `import{a}from"./x.js";import"./y.js";export*from"./z.js";export{b}from"./w.js";` +
        `import("./lazy.js");import q from"node:fs";`,
    ),
    ["x.js", "y.js", "z.js", "w.js"],
  );
  const graph = new Map([
    ["main.js", ["a.js", "c.js"]],
    ["a.js", ["b.js"]],
    ["b.js", ["a.js"]],
    ["c.js", []],
    ["d.js", ["d.js"]],
  ]);
  assert.deepEqual([...chunksInCycles(graph)].sort(), ["a.js", "b.js", "d.js"]);
});

Deno.test("eagerDir: only the start-up chunks; two in a cycle still load each other's functions", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // b.js is evaluated first (a.js imports it) and calls a.js's `twice` before a.js's body ran.
    await Deno.writeTextFile(
      `${dir}/a.js`,
      `import{b}from"./b.js";function twice(x){return x*2}export{twice};` +
        `export const result=b;`,
    );
    await Deno.writeTextFile(`${dir}/b.js`, `import{twice}from"./a.js";const b=twice(21);export{b};`);
    await Deno.writeTextFile(
      `${dir}/main.js`,
      `import{result}from"./a.js";const r=(()=>result)();export{r};`,
    );
    await Deno.writeTextFile(`${dir}/lazy.js`, `function notAtStart(){}export{notAtStart};`);
    const totals = await eagerDir(dir, ["main.js"]);
    assert.deepEqual(totals.files, ["a.js", "b.js", "main.js"]);
    assert.equal(await Deno.readTextFile(`${dir}/lazy.js`), `function notAtStart(){}export{notAtStart};`);
    assert.ok((await Deno.readTextFile(`${dir}/a.js`)).includes("function twice(x)"));
    assert.deepEqual((await import(`file://${dir}/main.js`)).r, 42);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eagerFunctions: V8 compiles the rewritten functions with the module, so the code cache has them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const body = (i: number) => `let s=0;for(let j=0;j<3;j++)s+=j*${i};return s`;
    const src = Array.from({ length: 50 }, (_, i) =>
      `function f${i}(){${body(i)}}const g${i}=()=>{${body(i)}};`)
      .join("") + `let t=0;${
      Array.from({ length: 50 }, (_, i) => `t+=f${i}()+g${i}();`).join("")
    }console.log(t);`;
    const lazyCompiles = async (text: string, name: string) => {
      const path = `${dir}/${name}.js`;
      await Deno.writeTextFile(path, text);
      const log = `${dir}/${name}.log`;
      const run = () =>
        new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--quiet",
            `--v8-flags=--log-function-events,--logfile=${log},--no-logfile-per-isolate`,
            path,
          ],
          env: { DENO_DIR: `${dir}/deno-dir` },
          stdout: "null",
          stderr: "null",
        }).output();
      await run(); // compiles the module and writes its code cache
      await run(); // reads it
      const lines = (await Deno.readTextFile(log)).split("\n");
      const script = lines.find((l) => l.startsWith("script-details,") && l.includes(`${name}.js`))?.split(
        ",",
      )[1];
      return lines.filter((l) => l.startsWith(`function,interpreter,${script},`)).length;
    };
    assert.ok(
      await lazyCompiles(src, "plain") >= 100,
      "the plain module's functions compile at their first call",
    );
    assert.deepEqual(await lazyCompiles(eagerFunctions(src).text, "eager"), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
