// docs/reference/tools.md stays true to the tools: every built-in tool has its row in the tool list
// and a section naming each property of its input schema (lib/tools/input_schemas.gen.ts), and the
// read-only command list it shows is the one Bash uses (lib/permissions/read_only_commands.ts).

import assert from "node:assert/strict";
import { INPUT_SCHEMAS } from "../lib/tools/input_schemas.gen.ts";
import { readOnlyCommandList } from "../lib/permissions/read_only_commands.ts";
import { BLADE_TOOL_NAMES, TOOL_ALIASES } from "../lib/protocol/tool_names.ts";

const PAGE = decodeURIComponent(new URL("../docs/reference/tools.md", import.meta.url).pathname);

Deno.test("tools.md: every tool's row, every input property in its section, the read-only list", async () => {
  const text = await Deno.readTextFile(PAGE);
  const sections = text.split(/\n## /);
  for (const tool of [...BLADE_TOOL_NAMES, ...Object.keys(TOOL_ALIASES)]) {
    assert.ok(text.includes(`| ${tool}`) || text.includes(`older name \`${tool}\``), `${tool} has no row`);
  }
  for (const [tool, schema] of Object.entries(INPUT_SCHEMAS)) {
    const section = sections.find((s) => s.split("\n")[0]!.split(/[ ,(]/).includes(tool));
    assert.ok(section !== undefined, `no section for ${tool}`);
    for (const property of Object.keys((schema.properties ?? {}) as object)) {
      assert.ok(section.includes(`\`${property}\``), `${tool}.${property} is not in its section`);
    }
  }
  for (const command of readOnlyCommandList()) {
    assert.ok(text.includes(`\`${command}\``), `read-only command ${command} is not listed`);
  }
});
