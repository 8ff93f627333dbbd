import assert from "node:assert/strict";
import { GENERATED_MODULE, generatedText } from "../../scripts/embed_bash_grammar.ts";

Deno.test("bash_grammar.gen.ts holds the WebAssembly of the packages deno.json pins", async () => {
  const current = await Deno.readTextFile(GENERATED_MODULE);
  const strip = (text: string) => text.replace(/\s+/g, "");
  assert.ok(
    strip(current) === strip(await generatedText()),
    "lib/shell/bash_grammar.gen.ts is stale: run `deno install && deno run -A scripts/embed_bash_grammar.ts`",
  );
});
