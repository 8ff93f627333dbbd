import assert from "node:assert/strict";
import { BladeError } from "./errors.ts";
import { importNpm } from "./npm_module.ts";

class LineCounter {}
const parseDocument = () => ({});
type Yaml = { LineCounter: typeof LineCounter; parseDocument: typeof parseDocument };

Deno.test("importNpm returns the named exports of an ES module namespace", async () => {
  const yaml = await importNpm("yaml", () => import("yaml"), { exports: ["LineCounter", "parseDocument"] });
  assert.equal(typeof new yaml.LineCounter().addNewLine, "function");
  assert.equal(yaml.parseDocument("a: 1").toJS().a, 1);
});

Deno.test("importNpm reads the named exports from a CommonJS default export when the namespace lacks them", async () => {
  // The shape esbuild's code-split output gives `import("yaml")`: `export default require_dist()`.
  // TypeScript, like the caller, believes the named exports are there.
  const namespace = { default: { LineCounter, parseDocument } } as unknown as Yaml;
  const found = await importNpm("yaml", () => Promise.resolve(namespace), {
    exports: ["LineCounter", "parseDocument"],
  });
  assert.equal(found.LineCounter, LineCounter);
  assert.equal(found.parseDocument, parseDocument);
});

Deno.test("importNpm fails with a BladeError naming the package and the missing exports", async () => {
  const cases: { load: () => Promise<unknown>; message: RegExp }[] = [
    {
      load: () => Promise.resolve({ default: { parseDocument } }),
      message:
        /^The npm package "yaml" was loaded without the exports Blade needs: LineCounter \(it exports default\)$/,
    },
    {
      load: () => Promise.resolve({ parseDocument, default: {} }),
      message: /without the exports Blade needs: LineCounter \(it exports parseDocument, default\)$/,
    },
    { load: () => Promise.resolve({}), message: /LineCounter, parseDocument \(it exports nothing\)$/ },
    {
      load: () => Promise.reject(new TypeError("Module not found")),
      message: /^The npm package "yaml" could not be loaded: Module not found$/,
    },
  ];
  for (const c of cases) {
    await assert.rejects(
      importNpm("yaml", c.load as () => Promise<Yaml>, { exports: ["LineCounter", "parseDocument"] }),
      (e: unknown) =>
        e instanceof BladeError && e.code === "npm_module_unusable" && e.exitCode === 1 &&
        c.message.test(e.message) && e.hint?.includes("deno task bundle --dev") === true,
    );
  }
});
