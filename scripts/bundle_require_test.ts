import assert from "node:assert/strict";
import { isolateRequire } from "./bundle_require.ts";

const SHIM =
  'import{createRequire as __deno_internal_createRequire} from "node:module";var m=__deno_internal_createRequire(import.meta.url);';
const HELPERS = `var g=Object.create;${SHIM}var n=(a,b)=>()=>b,o=(a,b)=>a;export{m as a,n as b,o as c};\n`;
const OWN = 'import{createRequire as __blade_createRequire}from"node:module";';

function build(extra: Record<string, string> = {}): Map<string, string> {
  return new Map(Object.entries({
    "/b/chunk-H.js": HELPERS,
    "/b/main.js": 'import"./chunk-H.js";import{c as x}from"./chunk-H.js";x();',
    "/b/yaml.js": 'import{a as We,b as g}from"./chunk-H.js";var q=g(()=>We("node:process"));export{q as a};',
    "/b/lib/executor/child_worker.js": 'import{a as r}from"../../chunk-H.js";r("node:buffer");',
    ...extra,
  }));
}

Deno.test("isolateRequire: only the chunks that call require import node:module; the helpers chunk no longer does", () => {
  const files = build();
  const result = isolateRequire(files);
  assert.deepEqual(result, {
    helper: "/b/chunk-H.js",
    users: ["/b/lib/executor/child_worker.js", "/b/yaml.js"],
  });
  assert.equal(
    files.get("/b/chunk-H.js"),
    "var g=Object.create;var n=(a,b)=>()=>b,o=(a,b)=>a;export{n as b,o as c};",
  );
  assert.equal(files.get("/b/main.js"), 'import"./chunk-H.js";import{c as x}from"./chunk-H.js";x();');
  assert.equal(
    files.get("/b/yaml.js"),
    `${OWN}var We=__blade_createRequire(import.meta.url);import{b as g}from"./chunk-H.js";var q=g(()=>We("node:process"));export{q as a};`,
  );
  assert.equal(
    files.get("/b/lib/executor/child_worker.js"),
    `${OWN}var r=__blade_createRequire(import.meta.url);import{}from"../../chunk-H.js";r("node:buffer");`,
  );
  for (const [file, text] of files) {
    if (!result.users.includes(file)) assert.ok(!text.includes("node:module"), file);
  }
});

Deno.test("isolateRequire: an unexpected shape changes nothing", () => {
  const cases: Record<string, Map<string, string>> = {
    "the helpers chunk uses the shim itself": build({
      "/b/chunk-H.js": HELPERS.replace("var n=", 'm("x");var n='),
    }),
    "a namespace import of the helpers chunk": build({
      "/b/ns.js": 'import*as h from"./chunk-H.js";h.a("x");',
    }),
    "a re-export of the helpers chunk": build({ "/b/re.js": 'export{a}from"./chunk-H.js";' }),
    "two shims": build({ "/b/other.js": `${SHIM}export{m as z};` }),
    "no shim": new Map([["/b/main.js", "export const x=1;"]]),
  };
  for (const [name, files] of Object.entries(cases)) {
    const before = new Map(files);
    assert.deepEqual(isolateRequire(files), { helper: "", users: [] }, name);
    assert.deepEqual(files, before, name);
  }
});
