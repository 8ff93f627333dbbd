// Owns the lazy-npm-import rule (a `deno lint` plugin named in deno.json, so `deno lint`, `deno task ok`,
// CI and the editor all apply it): in product code (lib/, main.ts, launch.ts; not tests, not
// lib/testing/), a dynamic `import("<npm package>")` must be the loader of an importNpm call,
// `importNpm("yaml", () => import("yaml"), { exports: [...names] })` (lib/npm_module.ts), which checks the named
// exports and fails with a BladeError naming the package. A bare `await import("yaml")` is how the dev
// bundle crashed with "r is not a constructor" on ordinary agent files: esbuild's code-split output
// hands a CommonJS package back with only a default export. Relative and `node:` imports are left alone.

import { isTestPath, repoPath } from "./size_lint.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** The helper every lazy npm import goes through, and the argument its loader is. */
export const HELPER = "importNpm";

/** Whether the rule applies to the file at `path` (relative to the repository root). */
export function isProductPath(path: string): boolean {
  if (isTestPath(path) || path.startsWith("lib/testing/")) return false;
  return path.startsWith("lib/") || path === "main.ts" || path === "launch.ts";
}

/** A specifier that names a package: not relative, not absolute, not a Node built-in or a URL. */
export function isPackageSpecifier(specifier: string): boolean {
  return !/^(\.{1,2}\/|\/|node:|file:|https?:|data:)/.test(specifier);
}

/** Whether `node` (an ImportExpression) is `() => import("…")`, the loader argument of importNpm. */
function isHelperLoader(node: Deno.lint.ImportExpression): boolean {
  const arrow = node.parent;
  if (arrow.type !== "ArrowFunctionExpression" || arrow.body !== node) return false;
  const call = arrow.parent;
  return call.type === "CallExpression" && call.callee.type === "Identifier" && call.callee.name === HELPER &&
    call.arguments[1] === arrow;
}

export function npmImportPlugin(root = ROOT): Deno.lint.Plugin {
  return {
    name: "blade-npm",
    rules: {
      "lazy-import": {
        create(ctx) {
          if (!isProductPath(repoPath(ctx.filename, root))) return {};
          return {
            ImportExpression(node) {
              const source = node.source;
              if (source.type !== "Literal" || typeof source.value !== "string") return;
              if (!isPackageSpecifier(source.value) || isHelperLoader(node)) return;
              ctx.report({
                node,
                message: `import("${source.value}") of an npm package outside ${HELPER}`,
                hint: `write \`await ${HELPER}("${source.value}", () => import("${source.value}"), ` +
                  `{ exports: [<the names you use>] })\` (lib/npm_module.ts): a bundle may hand a package ` +
                  `back without its named exports`,
              });
            },
          };
        },
      },
    },
  };
}

export default npmImportPlugin();
