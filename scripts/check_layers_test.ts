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

Deno.test("a clean tree passes", async () => {
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
  // Its two peer imports are layer findings of the lint plugin (layer_lint_test.ts).
  assert.deepEqual(keys(result.violations), ["folder-cycle left right"]);
});

Deno.test("main.ts reaching lib/testing/ (lazily) is reported", async () => {
  const result = await check("wrong_imports");
  // lib/ importing from tests/ is a finding of the lint plugin (layer_lint_test.ts).
  assert.deepEqual(keys(result.violations), ["testing lib/testing/fake.ts"]);
  assert.equal(
    result.violations[0]!.message,
    "main.ts reaches lib/testing/fake.ts (via main.ts → lib/cli/main.ts): lib/testing/ is for tests only",
  );
});

Deno.test("the allowlist silences a graph finding it names; an entry matching nothing is stale", async () => {
  const result = await check("file_cycle", {
    ...RULES,
    allow: [
      { rule: "file-cycle", key: "lib/domain/a.ts lib/domain/b.ts", reason: "TODO(#1)" },
      { rule: "folder-cycle", key: "domain sys", reason: "TODO(#1)" },
    ],
  });
  assert.deepEqual(result.violations, []);
  assert.deepEqual(result.stale.map((s) => s.key), ["domain sys"]);
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
