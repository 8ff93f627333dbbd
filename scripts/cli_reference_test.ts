import assert from "node:assert/strict";
import { COMMANDS, helpOf, MARKER, PAGE, renderPage } from "./cli_reference.ts";
import { MAIN_HELP } from "../lib/cli/main.ts";

Deno.test("docs/reference/cli.md shows the CLI's own --help of every command (regenerate with scripts/cli_reference.ts)", async () => {
  const current = await Deno.readTextFile(PAGE);
  assert.ok(current.includes(MARKER), "the page has its generated section");
  assert.equal(
    await renderPage(current),
    current,
    "stale: deno run -A scripts/cli_reference.ts",
  );
});

Deno.test("cli_reference: the main help is MAIN_HELP, and every command the main help names has its section", async () => {
  assert.equal(await helpOf([]), MAIN_HELP.trimEnd());
  const named = [...MAIN_HELP.matchAll(/^ {2}blade (run|agents|tasks|trust|mcp|demo)\b/gm)].map((m) => m[1]);
  for (const name of new Set(named)) {
    assert.ok(COMMANDS.some((c) => c[0] === name), `blade ${name} has no section`);
  }
});
