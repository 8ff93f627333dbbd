import assert from "node:assert/strict";
import { importsOf } from "./memory_imports.ts";

Deno.test("importsOf: paths after white space, outside code; once each, in order", () => {
  const cases: [string, string[]][] = [
    ["@a.md", ["a.md"]],
    ["see @docs/b.md inline, and @~/x.md.", ["docs/b.md", "~/x.md"]],
    ["- @./rel.md\n- @../up.md\n- @/abs/c.md", ["./rel.md", "../up.md", "/abs/c.md"]],
    ["mail me@example.com or @@x or @ alone", []],
    ["`@in-span.md` and ``@also `x` span`` but @out.md", ["out.md"]],
    ["```\n@in-fence.md\n```\n@after.md", ["after.md"]],
    ["~~~md\n@tilde-fence.md\n```\n@still-in.md\n~~~\n@out.md", ["out.md"]],
    ["@a.md @a.md\n@a.md", ["a.md"]],
    ["@with\\ space.md", ["with space.md"]],
    ["@~", []],
  ];
  for (const [text, want] of cases) assert.deepEqual(importsOf(text), want, text);
});
