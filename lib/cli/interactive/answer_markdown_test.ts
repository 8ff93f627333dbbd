import assert from "node:assert/strict";
import { makeTheme } from "./theme.ts";
import { AnswerMarkdown } from "./answer_markdown.ts";

const TEXT = [
  "# Title",
  "",
  "## Part",
  "",
  "### Detail `x`",
  "",
  "#### Deeper",
  "",
  "```ts",
  "const a = 1;",
  "```",
  "",
  "```",
  "plain",
  "```",
  "",
  "- item with ### inside",
].join("\n");

function rendered(color: boolean): string[] {
  const theme = makeTheme(color);
  return new AnswerMarkdown(TEXT, theme.markdown, { color }).render(60);
}

Deno.test("answer Markdown without colour: no # or fence markers; a rule under each heading marks it", () => {
  assert.deepEqual(rendered(false).map((l) => l.trimEnd()), [
    "Title",
    "═════",
    "",
    "Part",
    "────",
    "",
    "Detail x",
    "────────",
    "",
    "Deeper",
    "──────",
    "",
    "── ts",
    "  const a = 1;",
    "──",
    "",
    "──",
    "  plain",
    "──",
    "",
    "- item with ### inside",
  ]);
});

Deno.test("answer Markdown in colour: headings styled, never a # prefix; fences as dim rules", () => {
  // deno-lint-ignore no-control-regex
  const plain = rendered(true).map((l) => l.replace(/\x1b\[[0-9;]*m/g, "").trimEnd());
  assert.ok(!plain.some((l) => /^#+ /.test(l)), plain.join("\n"));
  assert.ok(plain.includes("Detail x") && plain.includes("Deeper"), plain.join("\n"));
  assert.ok(plain.includes("── ts") && !plain.some((l) => l.startsWith("```")), plain.join("\n"));
  const deeper = rendered(true).find((l) => l.includes("Deeper"))!;
  assert.ok(deeper.includes("\x1b[1m"), "a level-4 heading is bold");
});
