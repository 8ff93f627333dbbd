import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { checkLayers, type LayerRules, maskSource, scanModule, type Violation } from "./check_layers.ts";

const FIXTURES = fileURLToPath(new URL("../tests/fixtures/layers/", import.meta.url));
const RULES: LayerRules = {
  denoExceptions: [
    { path: "main.ts", reason: "entry point" },
    { path: "lib/testing/", reason: "test support" },
  ],
  allow: [],
};

async function check(fixture: string, rules = RULES) {
  return await checkLayers(FIXTURES + fixture, rules);
}
const keys = (vs: Violation[]) => vs.map((v) => `${v.rule} ${v.key}`);

Deno.test("a clean tree passes: type-only Deno uses, Deno in sys/, tests and testing/, console in cli/", async () => {
  const result = await check("clean");
  assert.deepEqual(result.violations, []);
  assert.deepEqual(result.stale, []);
  assert.equal(result.modules, 7);
});

Deno.test("an import cycle between files is one finding naming every member (type-only imports count)", async () => {
  const result = await check("file_cycle");
  assert.deepEqual(result.violations, [{
    rule: "file-cycle",
    key: "lib/domain/a.ts lib/domain/b.ts",
    message: "import cycle between files: lib/domain/a.ts, lib/domain/b.ts",
  }]);
});

Deno.test("a cycle between folders is found even when no file cycle exists", async () => {
  const result = await check("folder_cycle");
  assert.deepEqual(keys(result.violations), [
    "layer lib/left/x.ts -> lib/right/y.ts",
    "layer lib/right/y.ts -> lib/left/z.ts",
    "folder-cycle left right",
  ]);
  assert.match(result.violations[0]!.message, /right is a peer of left in the layer order/);
});

Deno.test("an upward import and a folder missing from the layer order are reported", async () => {
  const result = await check("layer_upward");
  assert.deepEqual(keys(result.violations), [
    "layer lib/sys/clock.ts -> lib/domain/answer.ts",
    "layer unit extra",
  ]);
  assert.equal(
    result.violations[0]!.message,
    "lib/sys/clock.ts:1 imports lib/domain/answer.ts, but domain is above sys in the layer order (ARCHITECTURE.md)",
  );
});

Deno.test("Deno.* outside sys/ is reported per member with its line; comments and strings do not count", async () => {
  const result = await check("deno_outside_sys");
  assert.deepEqual(result.violations.map((v) => v.message), [
    "lib/domain/read.ts:4 uses Deno.readTextFile: only lib/sys/ touches Deno.* (add a port there)",
    "lib/domain/read.ts:6 uses Deno.errors.NotFound: only lib/sys/ touches Deno.* (add a port there)",
    "lib/domain/read.ts:10 uses Deno.build: only lib/sys/ touches Deno.* (add a port there)",
  ]);
});

Deno.test("console outside cli/ is reported", async () => {
  const result = await check("console_outside_cli");
  assert.deepEqual(result.violations, [{
    rule: "console",
    key: "lib/domain/log.ts: console",
    message: "lib/domain/log.ts:2 uses console: only lib/cli/ prints (return the text or emit an event)",
  }]);
});

Deno.test("lib/ importing (or naming a module URL) from tests/ and main.ts reaching lib/testing/ (lazily) are reported", async () => {
  const result = await check("wrong_imports");
  assert.deepEqual(keys(result.violations), [
    "tests-import lib/domain/probe_test.ts -> tests/support/helper.ts",
    "tests-import lib/domain/x_test.ts -> tests/support/helper.ts",
    "testing lib/testing/fake.ts",
  ]);
  assert.equal(
    result.violations[2]!.message,
    "main.ts reaches lib/testing/fake.ts (via main.ts → lib/cli/main.ts): lib/testing/ is for tests only",
  );
});

Deno.test("the allowlist silences exactly the entries it names; an entry matching nothing is stale", async () => {
  const result = await check("deno_outside_sys", {
    ...RULES,
    allow: [
      { rule: "deno", key: "lib/domain/read.ts: Deno.readTextFile", reason: "TODO(#1)" },
      { rule: "deno", key: "lib/domain/read.ts: Deno.errors.NotFound", reason: "TODO(#1)" },
      { rule: "console", key: "lib/domain/read.ts: console", reason: "TODO(#1)" },
    ],
  });
  assert.deepEqual(keys(result.violations), ["deno lib/domain/read.ts: Deno.build"]);
  assert.deepEqual(result.stale.map((s) => s.key), ["lib/domain/read.ts: console"]);
});

Deno.test("a Deno exception names a file or a folder prefix", async () => {
  const result = await check("deno_outside_sys", {
    ...RULES,
    denoExceptions: [{ path: "lib/domain/", reason: "a boundary" }],
  });
  assert.deepEqual(result.violations, []);
});

Deno.test("maskSource: comments blank out, strings become tokens, template expressions stay code", () => {
  const { code, strings } = maskSource('a /* Deno.x */ + "Deno.y" // z\n`t ${Deno.cwd()} ${`in ${b}`}` / 2');
  assert.ok(!code.includes("Deno.x") && !code.includes("Deno.y"));
  assert.ok(code.includes("Deno.cwd()") && code.includes("(b)"));
  assert.deepEqual(strings, ["Deno.y", "t ", " ", "in ", "", ""]);
});

Deno.test("scanModule: every import form, relative only, resolved against the module's folder", () => {
  const source = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b/b.ts";',
    'export * from "./c.ts";',
    'import "./side.ts";',
    'const lazy = await import("../../main.ts");',
    'import { z } from "zod";',
    "const list = Array.from(x);",
    'const worker = new URL("../w/entry.ts", import.meta.url);',
  ].join("\n");
  assert.deepEqual(scanModule("lib/x/m.ts", source).imports, [
    { target: "lib/x/a.ts", line: 1 },
    { target: "lib/b/b.ts", line: 2 },
    { target: "lib/x/c.ts", line: 3 },
    { target: "lib/x/side.ts", line: 4 },
    { target: "main.ts", line: 5 },
  ]);
  assert.deepEqual(scanModule("lib/x/m.ts", source).moduleUrls, [{ target: "lib/w/entry.ts", line: 8 }]);
});
