import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MAX_FILE_LINES, MAX_FUNCTION_LINES, sizePlugin } from "./size_lint.ts";
import { SIZE_RULES, type SizeAllow } from "./size_rules.ts";

const ROOT = "/repo/";

function lint(path: string, source: string, allow: SizeAllow[] = []): string[] {
  return Deno.lint.runPlugin(sizePlugin(allow, ROOT), ROOT + path, source).map((d) => d.message);
}

/** A function declaration spanning exactly `lines` lines. */
function fn(name: string, lines: number): string {
  return `function ${name}() {\n${"  x();\n".repeat(lines - 2)}}\n`;
}
const body = (lines: number) => "  x();\n".repeat(lines - 2);

Deno.test("a function over the limit is named with its length; one at the limit passes", () => {
  const source = fn("atLimit", MAX_FUNCTION_LINES) + fn("over", MAX_FUNCTION_LINES + 1);
  assert.deepEqual(lint("lib/a.ts", source), [`function over is 81 lines (limit 80)`]);
});

Deno.test("methods, object members, nested functions and callbacks are named by where they sit", () => {
  const source = [
    `class View {\n  #apply() {\n${body(81)}  }\n}`,
    `const tool = {\n  run: async () => {\n${body(81)}  },\n};`,
    `export function outer() {\n  const inner = () => {\n${body(81)}  };\n  return inner;\n}`,
    `serve(async () => {\n${body(81)}});`,
  ].join("\n");
  assert.deepEqual(lint("lib/a.ts", source), [
    "function View.#apply is 81 lines (limit 80)",
    "function tool.run is 81 lines (limit 80)",
    "function outer is 84 lines (limit 80)",
    "function outer.inner is 81 lines (limit 80)",
    "function <anonymous> is 81 lines (limit 80)",
  ]);
});

Deno.test("an allowlisted function or file passes; an entry that matches nothing is reported as stale", () => {
  const allow: SizeAllow[] = [
    { path: "lib/a.ts", function: "long", reason: "r" },
    { path: "lib/a.ts", function: "short", reason: "r" },
    { path: "lib/b.ts", reason: "r" },
  ];
  assert.deepEqual(lint("lib/a.ts", fn("long", 90) + fn("short", 5), allow), [
    "stale size allowlist entry: function short in lib/a.ts is within its limit (or gone)",
  ]);
  assert.deepEqual(lint("lib/b.ts", "x();\n".repeat(MAX_FILE_LINES + 1), allow), []);
  assert.deepEqual(lint("lib/b.ts", "x();\n", allow), [
    "stale size allowlist entry: the file in lib/b.ts is within its limit (or gone)",
  ]);
});

Deno.test("a file over the limit is reported; one at the limit passes", () => {
  assert.deepEqual(lint("lib/a.ts", "x();\n".repeat(MAX_FILE_LINES)), []);
  assert.deepEqual(lint("scripts/s.ts", "x();\n".repeat(MAX_FILE_LINES + 1)), [
    "scripts/s.ts is 401 lines (limit 400)",
  ]);
});

Deno.test("test code is left alone: *_test.ts and tests/", () => {
  const source = "x();\n".repeat(MAX_FILE_LINES) + fn("long", 200);
  assert.deepEqual(lint("lib/a_test.ts", source), []);
  assert.deepEqual(lint("tests/e2e_test.ts", source), []);
  assert.deepEqual(lint("tests/support/blade.ts", source), []);
});

Deno.test("every entry of the real allowlist names an existing file and gives a reason", () => {
  const root = fileURLToPath(new URL("../", import.meta.url));
  for (const entry of SIZE_RULES) {
    assert.ok(existsSync(root + entry.path), `${entry.path} does not exist`);
    assert.ok(entry.reason.trim().length > 10, `${entry.path} ${entry.function ?? ""}: give a reason`);
  }
});

Deno.test("only lines of code count: comments and blank lines are free", () => {
  const documented = `/**\n${" * Why.\n".repeat(MAX_FUNCTION_LINES)} */\n` +
    `function documented() {\n${"  // a note\n\n  x(); /* and a block */\n".repeat(20)}}\n`;
  assert.deepEqual(lint("lib/a.ts", documented), []);
  const file = "// The module's story.\n".repeat(MAX_FILE_LINES) + "x();\n".repeat(MAX_FILE_LINES - 1) +
    "x(); // the last line of code\n";
  assert.deepEqual(lint("lib/a.ts", file), []);
  assert.deepEqual(lint("lib/a.ts", file + "/* a comment */ x();\n"), ["lib/a.ts is 401 lines (limit 400)"]);
});
