// The bundle's rewrites over the real sources and the real bundler (scripts/bundle_split.ts): one build,
// then a test per rewrite that fails when esbuild's output no longer has the shape the rewrite was written
// for — the build itself fails then too (BladeError bundle_failed), and these say which rewrite and what
// it expected. Each rewrite's own cases are in its unit test (bundle_test.ts, bundle_require_test.ts,
// bundle_eager_test.ts).

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  buildSplit,
  MAIN_DIR,
  type SplitBuild,
  START_GROUPS,
  staticClosure,
  WORKER_DIR,
} from "./bundle_split.ts";
import { readBuildFiles } from "./bundle_require.ts";
import { ROOT } from "./release_inputs.ts";

let built: Promise<{ dir: string; build: SplitBuild; files: Map<string, string> }> | undefined;

/** The one build these tests read (in a temp folder, removed when the process ends). */
function build() {
  return built ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-split-test-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    const result = await buildSplit(ROOT, dir);
    return { dir, build: result, files: await readBuildFiles(dir) };
  })();
}

const inBuild = (dir: string, which: string, files: Map<string, string>) =>
  [...files].filter(([path]) => path.startsWith(join(dir, which) + "/"));

Deno.test("bundle: lazy imports of both builds are computed URLs (the Worker's grant reads its build)", async () => {
  const { dir, build: b, files } = await build();
  assert.ok(b.deferred >= 10, `${b.deferred} lazy imports deferred`);
  // The Worker's tools, zod, the bash grammar and web-tree-sitter among them.
  assert.ok(b.workerDeferred >= 8, `${b.workerDeferred} of the Worker's lazy imports deferred`);
  for (const which of [MAIN_DIR, WORKER_DIR]) {
    for (const [path, text] of inBuild(dir, which, files)) {
      assert.doesNotMatch(text, /\bimport\(\s*"\.\.?\//, `${path} keeps a literal lazy import`);
    }
  }
  assert.equal(b.workerUrls, 1);
});

Deno.test("bundle: what every start loads does not load node:module; the chunks that call require do", async () => {
  const { dir, build: b, files } = await build();
  // The main thread's build has CommonJS packages (the MCP SDK's process spawning); the Worker's has none.
  assert.ok(b.requireUsers.main >= 1, JSON.stringify(b.requireUsers));
  for (const [path, text] of files) {
    assert.ok(!text.includes("__deno_internal_createRequire"), `${path} keeps the bundler's shared shim`);
  }
  const own = [...files.values()].filter((text) =>
    text.startsWith('import{createRequire as __blade_createRequire}from"node:module";')
  );
  assert.equal(own.length, b.requireUsers.main + b.requireUsers.worker);
  for (const entry of [join(dir, MAIN_DIR, "main.js"), join(dir, WORKER_DIR, "child_worker.js")]) {
    const closure = staticClosure(files, entry);
    assert.ok(closure.length >= 1);
    for (const file of closure) assert.doesNotMatch(files.get(file)!, /from\s*"node:module"/, file);
  }
});

Deno.test("staticClosure: follows static imports and re-exports, not dynamic ones", () => {
  const files = new Map([
    ["/b/main.js", 'import{a as x}from"./chunk-A.js";import"./side.js";const l=()=>import("./lazy.js");'],
    ["/b/chunk-A.js", 'export{b as a}from"./sub/chunk-B.js";'],
    ["/b/sub/chunk-B.js", "export const b=1;"],
    ["/b/side.js", ""],
    ["/b/lazy.js", 'import"./never.js";'],
    ["/b/never.js", ""],
  ]);
  assert.deepEqual(staticClosure(files, "/b/main.js").sort(), [
    "/b/chunk-A.js",
    "/b/main.js",
    "/b/side.js",
    "/b/sub/chunk-B.js",
  ]);
});

Deno.test("bundle: the start-up chunks' functions are compiled with their module", async () => {
  const { dir, build: b, files } = await build();
  assert.ok(b.eager.main >= 1000 && b.eager.worker >= 500, JSON.stringify(b.eager));
  // esbuild writes next to no function expression in parentheses (3 in main.js and the print command's
  // chunk when this was written); the rewrite, hundreds.
  const parenthesized = (file: string) => (files.get(file)!.match(/\(function\b/g) ?? []).length;
  assert.equal(b.startUp.length, 1 + START_GROUPS.length);
  START_GROUPS.forEach((group, i) => assert.match(b.startUp[i + 1]!, group));
  const startUp = new Set(b.startUp.flatMap((file) => staticClosure(files, join(dir, MAIN_DIR, file))));
  const count = [...startUp].reduce((n, file) => n + parenthesized(file), 0);
  assert.ok(count >= 500, `${count} parenthesized functions in ${[...startUp].join(", ")}`);
  assert.ok(parenthesized(join(dir, WORKER_DIR, "child_worker.js")) >= 100);
});
