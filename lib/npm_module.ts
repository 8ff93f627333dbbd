// Owns reaching an npm package that is imported lazily. Every `import("<npm package>")` in lib/ goes
// through importNpm (`deno lint` enforces it: scripts/npm_import_lint.ts), which checks that each named
// export the caller needs is there and fails with a BladeError naming the package when one is not,
// never with a TypeError deep in the caller. A bundler may hand back a CommonJS package's dynamic import
// as a namespace whose only export is `default` (esbuild's code-split output does so for yaml); the
// named exports are then read from that default export, as Node's CommonJS interop reads them.
// Does not decide which packages load lazily (docs/reference/performance.md does).

import { BladeError, describeError } from "./errors.ts";

const HINT =
  "This Blade build is broken (bundled wrongly, or a package is missing from it). In a checkout, " +
  "run `deno task bundle --dev` again or set BLADE_DEV_BUNDLE=0 to run the sources; otherwise reinstall " +
  "Blade. Please report it.";

/**
 * Imports the npm package `name` with `load` (written `() => import("<name>")`, so the bundler sees the
 * specifier) and returns the named `exports` the caller uses, each checked to be present.
 *
 *   const { parseDocument } = await importNpm("yaml", () => import("yaml"), { exports: ["parseDocument"] });
 */
export async function importNpm<M, K extends keyof M & string>(
  name: string,
  load: () => Promise<M>,
  options: { exports: readonly K[] },
): Promise<Pick<M, K>> {
  const names = options.exports;
  let loaded: unknown;
  try {
    loaded = await load();
  } catch (e) {
    throw new BladeError(
      "npm_module_unusable",
      `The npm package "${name}" could not be loaded: ${describeError(e)}`,
      {
        hint: HINT,
        cause: e,
      },
    );
  }
  const found = exportsOf(loaded, names);
  if (found !== undefined) return found as Pick<M, K>;
  const missing = names.filter((n) => !has(loaded, n) && !has(defaultOf(loaded), n));
  const present = typeof loaded === "object" && loaded !== null ? Object.keys(loaded) : [];
  throw new BladeError(
    "npm_module_unusable",
    `The npm package "${name}" was loaded without the exports Blade needs: ${missing.join(", ")} ` +
      `(it exports ${present.length === 0 ? "nothing" : present.join(", ")})`,
    { hint: HINT },
  );
}

/** The namespace itself when it has every name, else its CommonJS default export when that has them. */
function exportsOf(loaded: unknown, names: readonly string[]): Record<string, unknown> | undefined {
  for (const candidate of [loaded, defaultOf(loaded)]) {
    if (names.every((n) => has(candidate, n))) return candidate as Record<string, unknown>;
  }
  return undefined;
}

function defaultOf(loaded: unknown): unknown {
  return typeof loaded === "object" && loaded !== null
    ? (loaded as { default?: unknown }).default
    : undefined;
}

function has(value: unknown, name: string): boolean {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    (value as Record<string, unknown>)[name] !== undefined;
}
