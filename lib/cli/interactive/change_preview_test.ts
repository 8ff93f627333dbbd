import assert from "node:assert/strict";
import { makeTheme } from "./theme.ts";
import { changePreview, PREVIEW_MAX_LINES } from "./change_preview.ts";

const plain = makeTheme(false);

Deno.test("changePreview: a new file's lines, a replaced file's diff, an edit's diff in its context", () => {
  assert.deepEqual(
    changePreview({ tool: "Write", input: { content: "one\ntwo\n" }, current: undefined }, plain),
    ["new file, 2 lines:", "+ one", "+ two"],
  );
  assert.deepEqual(
    changePreview({ tool: "Write", input: { content: "one\n2\n" }, current: "one\ntwo\n" }, plain),
    ["@@ -1,2 +1,2 @@", "  one", "- two", "+ 2"],
  );
  const file = "a\nb\nc\nd\ne\nf\ng\nh\n";
  assert.deepEqual(
    changePreview({ tool: "Edit", input: { old_string: "e", new_string: "E!" }, current: file }, plain),
    ["@@ -2,7 +2,7 @@", "  b", "  c", "  d", "- e", "+ E!", "  f", "  g", "  h"],
  );
  assert.deepEqual(
    changePreview({ tool: "Edit", input: { old_string: "x", new_string: "y" }, current: file }, plain),
    ["- x", "+ y"],
    "old text not found: the exact replacement",
  );
  assert.deepEqual(changePreview({ tool: "Bash", input: { command: "ls" }, current: undefined }, plain), []);
});

Deno.test("changePreview: bounded, and a file's escape sequences never reach the terminal raw", () => {
  const long = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
  const lines = changePreview({ tool: "Write", input: { content: long }, current: undefined }, plain);
  assert.equal(lines.length, 1 + PREVIEW_MAX_LINES + 1);
  assert.equal(lines.at(-1), "… 60 more lines");
  const hostile = changePreview({
    tool: "Write",
    input: { content: "ok\x1b]52;c;ZXZpbA==\x07\x1b[2J\n" },
    current: undefined,
  }, plain);
  assert.ok(!hostile.join("\n").includes("\x1b"), JSON.stringify(hostile));
});
