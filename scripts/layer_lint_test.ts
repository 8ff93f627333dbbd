// Tests of the per-file layer rules (layer_lint.ts) over Deno's parse: the fixture trees of
// tests/fixtures/layers/ (the findings the lexical checker made before), one example of each bypass of
// "only lib/sys/ touches the outside world", and the repository itself (clean, empty allowlist).

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { layerPlugin } from "./layer_lint.ts";
import { type LayerRules, parseLayerOrder } from "./check_layers.ts";
import { LAYER_RULES } from "./layer_rules.ts";

const FIXTURES = fileURLToPath(new URL("../tests/fixtures/layers/", import.meta.url));
const RULES: LayerRules = {
  denoExceptions: [
    { path: "main.ts", reason: "entry point" },
    { path: "lib/testing/", reason: "test support" },
  ],
  allow: [],
};
const ORDER = parseLayerOrder("```layers\nmain.ts\ncli\ntesting\ndomain\nsys\n```\n");

/** The findings of one module as `line: message`. */
function lint(path: string, source: string, o: { rules?: LayerRules; order?: string[][] } = {}): string[] {
  const plugin = layerPlugin({ order: o.order ?? ORDER, rules: o.rules ?? RULES, root: "/repo/" });
  return Deno.lint.runPlugin(plugin, `/repo/${path}`, source).map((d) =>
    `${source.slice(0, d.range[0]).split("\n").length}: ${d.message}`
  );
}

/** The findings of every module of a fixture tree (lib/, then main.ts), each as `line: message`. */
async function lintFixture(name: string, rules = RULES): Promise<string[]> {
  const root = `${FIXTURES}${name}/`;
  const order = parseLayerOrder(await Deno.readTextFile(`${root}ARCHITECTURE.md`));
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = [];
    for await (const e of Deno.readDir(`${root}${dir}`)) entries.push(e);
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = dir === "" ? e.name : `${dir}/${e.name}`;
      if (e.isDirectory) await walk(rel);
      else if (rel.endsWith(".ts")) {
        out.push(...lint(rel, await Deno.readTextFile(`${root}${rel}`), { rules, order }));
      }
    }
  };
  await walk("lib");
  const main = await Deno.readTextFile(`${root}main.ts`).catch(() => undefined);
  if (main !== undefined) out.push(...lint("main.ts", main, { rules, order }));
  return out;
}

Deno.test("a clean tree passes: type-only Deno uses, Deno in sys/, tests and testing/, console in cli/", async () => {
  assert.deepEqual(await lintFixture("clean"), []);
});

Deno.test("Deno.* outside sys/ is reported per use with its line; comments and strings do not count", async () => {
  assert.deepEqual(await lintFixture("deno_outside_sys"), [
    "4: io: lib/domain/read.ts uses Deno.readTextFile: only lib/sys/ touches Deno.*, files, processes, time, timers and randomness",
    "6: io: lib/domain/read.ts uses Deno.errors.NotFound: only lib/sys/ touches Deno.*, files, processes, time, timers and randomness",
    "10: io: lib/domain/read.ts uses Deno.build: only lib/sys/ touches Deno.*, files, processes, time, timers and randomness",
  ]);
});

Deno.test("console outside cli/ is reported", async () => {
  assert.deepEqual(await lintFixture("console_outside_cli"), [
    "2: console: lib/domain/log.ts uses console: only lib/cli/ prints",
  ]);
});

Deno.test("an upward import, a peer import and a folder missing from the layer order are reported", async () => {
  assert.deepEqual(await lintFixture("layer_upward"), [
    "1: layer: extra is not in the layer order",
    "1: layer: lib/sys/clock.ts imports lib/domain/answer.ts, but domain is above sys in the layer order",
  ]);
  assert.deepEqual(await lintFixture("folder_cycle"), [
    "1: layer: lib/left/x.ts imports lib/right/y.ts, but right is a peer of left in the layer order",
    "1: layer: lib/right/y.ts imports lib/left/z.ts, but left is a peer of right in the layer order",
  ]);
});

Deno.test("lib/ importing, or naming a module URL, from tests/ is reported (tests included)", async () => {
  assert.deepEqual(await lintFixture("wrong_imports"), [
    "1: tests-import: lib/domain/probe_test.ts imports tests/support/helper.ts: lib/ never imports from tests/",
    "1: tests-import: lib/domain/x_test.ts imports tests/support/helper.ts: lib/ never imports from tests/",
  ]);
});

Deno.test("the allowlist silences exactly the entries it names; an entry matching nothing is stale", async () => {
  const found = await lintFixture("deno_outside_sys", {
    ...RULES,
    allow: [
      { rule: "io", key: "lib/domain/read.ts: Deno.readTextFile", reason: "TODO(#1)" },
      { rule: "io", key: "lib/domain/read.ts: Deno.errors.NotFound", reason: "TODO(#1)" },
      { rule: "console", key: "lib/domain/read.ts: console", reason: "TODO(#1)" },
    ],
  });
  assert.deepEqual(found, [
    "10: io: lib/domain/read.ts uses Deno.build: only lib/sys/ touches Deno.*, files, processes, time, timers and randomness",
    // Reported on the module (its first statement, after the opening comment).
    '2: stale layer allowlist entry (console "lib/domain/read.ts: console"): it matches nothing',
  ]);
});

Deno.test("an exception names a file or a folder prefix", async () => {
  assert.deepEqual(
    await lintFixture("deno_outside_sys", {
      ...RULES,
      denoExceptions: [{ path: "lib/domain/", reason: "a boundary" }],
    }),
    [],
  );
});

Deno.test("every bypass of lib/sys/'s ports is an io finding outside lib/sys/ and lib/testing/", () => {
  const bypasses: [string, string][] = [
    ['import { readFile } from "node:fs/promises";', "node:fs/promises"],
    ['import { existsSync } from "node:fs";', "node:fs"],
    ['import { spawn } from "node:child_process";', "node:child_process"],
    ['export { spawn } from "node:child_process";', "node:child_process"],
    ['const fs = await import("node:fs");', "node:fs"],
    ["globalThis.Deno.exit(1);", "globalThis.Deno"],
    ['globalThis["Deno"].exit(1);', "globalThis.Deno"],
    ["const d = Deno;", "Deno"],
    ["Deno.exit(1);", "Deno.exit"],
    ["const t = Date.now();", "Date.now"],
    ["const t = globalThis.Date.now();", "Date.now"],
    ["const now = Date.now;", "Date.now"],
    ["setTimeout(() => {}, 10);", "setTimeout"],
    ["const id = setInterval(() => {}, 10);", "setInterval"],
    ["globalThis.setTimeout(() => {}, 10);", "globalThis.setTimeout"],
    ["const id = crypto.randomUUID();", "crypto.randomUUID"],
    ["const id = globalThis.crypto.randomUUID();", "crypto.randomUUID"],
  ];
  for (const [source, what] of bypasses) {
    assert.deepEqual(lint("lib/domain/x.ts", source), [
      `1: io: lib/domain/x.ts uses ${what}: only lib/sys/ touches Deno.*, files, processes, time, timers and randomness`,
    ], source);
    assert.deepEqual(lint("lib/sys/x.ts", source), [], `lib/sys/ may: ${source}`);
    assert.deepEqual(lint("lib/testing/x.ts", source), [], `lib/testing/ may: ${source}`);
    assert.deepEqual(lint("lib/domain/x_test.ts", source), [], `a test may: ${source}`);
  }
});

Deno.test("names in types, property keys and members are not uses", () => {
  const source = [
    "let child: Deno.ChildProcess | undefined;",
    "let timer: ReturnType<typeof setTimeout> | undefined;",
    "const os: typeof Deno.build.os = 'linux';",
    "const o = { setTimeout: 1, Deno: 2, now: 3 };",
    "const a = o.setTimeout + o.Deno;",
    "interface P { setInterval(): void; Deno: string }",
    "const when = new Date(0).getTime();",
  ].join("\n");
  assert.deepEqual(lint("lib/domain/x.ts", source), []);
});

Deno.test("the repository's allowlist is empty", () => {
  assert.deepEqual(LAYER_RULES.allow, []);
});
