import assert from "node:assert/strict";
import { npmImportPlugin } from "./npm_import_lint.ts";

const ROOT = "/repo/";

function lint(path: string, source: string): string[] {
  return Deno.lint.runPlugin(npmImportPlugin(ROOT), ROOT + path, source).map((d) => d.message);
}

Deno.test("a bare dynamic import of an npm package in product code is reported", () => {
  const source = [
    `const { parseDocument } = await import("yaml");`,
    `const m = await import("@modelcontextprotocol/sdk/client/stdio.js");`,
    `const z = await import("npm:zod@4");`,
  ].join("\n");
  assert.deepEqual(lint("lib/registry/parse.ts", source), [
    `import("yaml") of an npm package outside importNpm`,
    `import("@modelcontextprotocol/sdk/client/stdio.js") of an npm package outside importNpm`,
    `import("npm:zod@4") of an npm package outside importNpm`,
  ]);
  assert.equal(lint("main.ts", `await import("yaml");`).length, 1);
});

Deno.test("importNpm's loader, relative and node: imports pass; tests and test support are left alone", () => {
  const source = [
    `const { parseDocument } = await importNpm("yaml", () => import("yaml"), { exports: ["parseDocument"] });`,
    `const { run } = await import("./print_cmd.ts");`,
    `const path = await import("node:path");`,
  ].join("\n");
  assert.deepEqual(lint("lib/registry/parse.ts", source), []);
  for (const path of ["lib/registry/parse_test.ts", "tests/e2e_x_test.ts", "lib/testing/mcp_server.ts"]) {
    assert.deepEqual(lint(path, `await import("yaml");`), [], path);
  }
});

Deno.test("a loader that is not importNpm's second argument, or does more than import, is reported", () => {
  const source = [
    `await other("yaml", () => import("yaml"), []);`,
    `await importNpm("yaml", () => import("yaml").then((m) => m), { exports: [] });`,
    `await importNpm(() => import("yaml"), "yaml", { exports: [] });`,
  ].join("\n");
  assert.equal(lint("lib/a.ts", source).length, 3);
});
