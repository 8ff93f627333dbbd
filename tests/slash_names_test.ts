// The slash names Blade keeps for itself (lib/commands/reserved.ts) cover every built-in of the
// interactive session, so a command file never shadows one there either (docs/guides/memory.md).

import assert from "node:assert/strict";
import { BUILT_IN_SLASH_NAMES } from "../lib/commands/reserved.ts";
import { SLASH_COMMANDS } from "../lib/cli/interactive/slash.ts";

Deno.test("every interactive built-in is a reserved slash name", () => {
  const missing = SLASH_COMMANDS.map((c) => c.name).filter((n) => !BUILT_IN_SLASH_NAMES.includes(n));
  assert.deepEqual(missing, []);
});
