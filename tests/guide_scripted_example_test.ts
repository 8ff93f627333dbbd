// The scripted-provider guide's delegation example (docs/guides/scripted-provider.md), run for real:
// the real CLI, the real Task and Grep tools, a workspace with a config loader. It must print what the
// guide says it prints (the file that loads the configuration), not a placeholder left empty.

import assert from "node:assert/strict";
import { bladeSandbox, parseJsonResult } from "./support/blade.ts";

Deno.test("guide: the scripted-provider Explore example names the file that loads the configuration", async () => {
  const guide = await Deno.readTextFile(new URL("../docs/guides/scripted-provider.md", import.meta.url));
  const block = [...guide.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) =>
    b.includes("Explore:")
  );
  assert.ok(block !== undefined, "the guide has an Explore example");
  await using sandbox = await bladeSandbox();
  await sandbox.write("guide.yaml", block);
  await sandbox.write("README.md", "# demo\n");
  await sandbox.write(
    "src/config/load.ts",
    "// reads blade.json\nexport function loadConfig() {\n  return {};\n}\n",
  );
  const run = await sandbox.run([
    "-p",
    "Where is the configuration loaded?",
    "--provider",
    "scripted",
    "--script",
    "guide.yaml",
    "--output-format",
    "json",
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = String(parseJsonResult(run).result);
  assert.match(result, /^The explorer reports: /);
  // Grep's content lines carry the path relative to the workspace, as Claude Code's do.
  assert.ok(result.includes("Configuration is loaded in src/config/load.ts."), result);
});
