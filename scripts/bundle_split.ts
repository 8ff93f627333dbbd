// Owns the one build of Blade that ships and that `deno task blade` runs (docs/reference/performance.md,
// "The bundle"): a code-split, minified `deno bundle` of main.ts in <out>/main/ and of the child Worker
// entry in <out>/worker/, then the rewrites of esbuild's output that make it start fast — lazy imports
// kept lazy (deferLazyImports), the `require` shim moved into the CommonJS chunks
// (bundle_require.ts) and the start-up chunks' functions compiled with their module (bundle_eager.ts).
// Each rewrite must find the output in the shape it was written for:
// when one finds nothing to do, the build fails (BladeError bundle_failed) instead of shipping a
// slower build in silence; scripts/bundle_split_test.ts runs them over the real sources.
// Does not write launchers, stamps or locks (bundle.ts does).

import { dirname, join, relative } from "node:path";
import { BladeError } from "../lib/errors.ts";
import { stripAnsi } from "./script_cli.ts";
import { isolateRequireIn, readBuildFiles } from "./bundle_require.ts";
import { eagerDir } from "./bundle_eager.ts";
import { CONFIG_FILE, ENTRY, WORKER_ENTRIES } from "./release_inputs.ts";

/** The two builds, below the output folder: no chunk is shared between the main thread and a Worker. */
export const MAIN_DIR = "main";
export const WORKER_DIR = "worker";

/**
 * The lazy chunks every `blade -p` session loads besides main.js's (esbuild names a lazy module's chunk
 * after its file): the print command, and the lazy modules every print-mode session loads as it is
 * built — the default provider (lib/provider/anthropic.ts) and the agent registry's loader
 * (lib/registry/load.ts). With main.js, their static closures are compiled eagerly.
 */
export const START_GROUPS: readonly RegExp[] = [
  /^print_cmd-\w+\.js$/,
  /^anthropic-\w+\.js$/,
  /^load-\w+\.js$/,
];

/** The lazy chunks a child Worker loads before its first request: the default provider. */
export const WORKER_START_GROUPS: readonly RegExp[] = [/^anthropic-\w+\.js$/];

/** What each rewrite did (every count is above zero, or the build failed). */
export interface SplitBuild {
  /** The entry module of the main thread's build, relative to the output folder. */
  entry: string;
  /** Lazy imports of the main thread's build made computed URLs. */
  deferred: number;
  /** Lazy imports of the Worker's build made computed URLs (its grant reads its build: lib/child/child_sandbox.ts). */
  workerDeferred: number;
  /** `new URL("…/child_worker.ts", import.meta.url)` pointed at the Worker build's entry. */
  workerUrls: number;
  /** Chunks that now make their own `require`, per build. */
  requireUsers: { main: number; worker: number };
  /** The start-up chunks (main.js and one per START_GROUPS pattern). */
  startUp: string[];
  /** Functions made eager, per build. */
  eager: { main: number; worker: number };
}

/** `deno bundle --quiet --platform deno <args>` in `root`; its stderr becomes the error when it fails. */
async function runDenoBundle(root: string, args: readonly string[], what: string): Promise<void> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "deno", ...args],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    const text = stripAnsi(new TextDecoder().decode(result.stderr)).trim();
    throw new BladeError("bundle_failed", `deno bundle failed for ${what}:\n${text}`, {
      hint: "deno bundle fetches esbuild from the npm registry on first use; check that it is reachable",
    });
  }
}

/** A static import of Node's `module` polyfill (a chunk's `await import("node:module")` is lazy). */
const STATIC_NODE_MODULE = /\bimport\s*\{[^}]*\}\s*from\s*"node:module"/;

const STATIC_IMPORT = /\b(?:import|export)\s*(?:[\w$*{][^"]*?from\s*)?"(\.\.?\/[^"]+\.js)"/g;

/** `entry` and every module of `files` it loads statically, through `import … from "./x.js"` and `import "./x.js"`. */
export function staticClosure(files: ReadonlyMap<string, string>, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !files.has(file)) return;
    seen.add(file);
    for (const m of files.get(file)!.matchAll(STATIC_IMPORT)) visit(join(dirname(file), m[1]!));
  };
  visit(entry);
  return [...seen];
}

/** A rewrite that found esbuild's output in another shape than it was written for. */
function shapeChanged(pass: string, why: string): BladeError {
  return new BladeError("bundle_failed", `The bundle's ${pass} found nothing to do: ${why}`, {
    hint: "esbuild's output changed shape (a new Deno?): adapt the rewrite in scripts/ or remove it, " +
      "after measuring with `deno task bench` (docs/reference/performance.md)",
  });
}

/** The rewrites for speed, in the order they run (each can be left out to measure what it buys). */
export const REWRITES = ["require", "eager"] as const;
export type Rewrite = (typeof REWRITES)[number];

export interface SplitOptions {
  /**
   * Rewrites for speed to leave out (default none): `require` isolation, `eager` compile. All of them (REWRITES) leaves esbuild's code-split output with only what it needs
   * to run (lazy imports deferred, the Worker's URL pointed at its build). For `deno task bench --only
   * rewrites` (docs/reference/performance.md, "Do the rewrites earn their keep?").
   */
  without?: readonly Rewrite[];
}

/** Builds the code-split bundle of the checkout at `root` into `outDir` (which should not exist yet). */
export async function buildSplit(
  root: string,
  outDir: string,
  options: SplitOptions = {},
): Promise<SplitBuild> {
  const applies = (r: Rewrite) => !(options.without ?? []).includes(r);
  const mainDir = join(outDir, MAIN_DIR);
  const workerDir = join(outDir, WORKER_DIR);
  await denoBundleSplit(root, [ENTRY], mainDir);
  await denoBundleSplit(root, WORKER_ENTRIES, workerDir);
  const workerUrls = await pointSplitWorkerUrls(mainDir, WORKER_ENTRIES, workerDir);
  if (workerUrls === 0) {
    throw shapeChanged("Worker URL rewrite", "no new URL(…child_worker.ts) in main's build");
  }
  await pointSplitWorkerUrls(workerDir, WORKER_ENTRIES, workerDir);
  const deferred = await deferLazyImports(mainDir);
  if (deferred === 0) throw shapeChanged("lazy-import rewrite", 'no import("./chunk.js") in main\'s build');
  const workerDeferred = await deferLazyImports(workerDir);
  if (workerDeferred === 0) {
    throw shapeChanged("lazy-import rewrite", 'no import("./chunk.js") in the Worker\'s build');
  }
  const entry = `${MAIN_DIR}/${splitOutputs([ENTRY]).get(ENTRY)}`;
  const workerEntries = [...splitOutputs(WORKER_ENTRIES).values()];
  const requireUsers = {
    main: applies("require") ? await isolateRequireChecked(mainDir, ["main.js"]) : 0,
    worker: applies("require") ? await isolateRequireChecked(workerDir, workerEntries) : 0,
  };
  const names = [...Deno.readDirSync(mainDir)].map((e) => e.name);
  const groups = START_GROUPS.map((group) => {
    const found = names.filter((n) => group.test(n));
    if (found.length !== 1) {
      throw shapeChanged("eager-compile rewrite", `${found.length} chunks match ${group}`);
    }
    return found[0]!;
  });
  // The start-up chunks' functions (their static closures') compiled with their module, so the code
  // cache holds them (scripts/bundle_eager.ts).
  const eager = applies("eager")
    ? {
      main: await eagerChecked(mainDir, ["main.js", ...groups]),
      worker: await eagerChecked(workerDir, [...workerEntries, ...WORKER_START_GROUPS]),
    }
    : { main: 0, worker: 0 };
  return {
    entry,
    deferred,
    workerDeferred,
    workerUrls,
    requireUsers,
    startUp: ["main.js", ...groups],
    eager,
  };
}

/**
 * bundle_require.ts over one build; fails unless nothing every start loads (the static closure of the
 * `entries`) imports node:module any more, the point of the rewrite. A build without CommonJS packages
 * has no shim to move (the Worker's, today). Returns how many chunks now make their own `require`.
 */
async function isolateRequireChecked(dir: string, entries: readonly string[]): Promise<number> {
  const moved = await isolateRequireIn(dir);
  const files = await readBuildFiles(dir);
  const loaded = new Set(entries.flatMap((entry) => staticClosure(files, join(dir, entry))));
  const stray = [...loaded].filter((file) => STATIC_NODE_MODULE.test(files.get(file)!));
  if (stray.length > 0) {
    const names = stray.map((file) => relative(dir, file)).join(", ");
    throw shapeChanged("require isolation", `${names}, loaded by every start, import node:module`);
  }
  return moved.users.length;
}

/** bundle_eager.ts over `targets` of one build; fails when it rewrote no function. Returns how many. */
async function eagerChecked(dir: string, targets: readonly (string | RegExp)[]): Promise<number> {
  const result = await eagerDir(dir, targets);
  const count = result.wrapped + result.hoisted;
  if (count === 0) throw shapeChanged("eager-compile rewrite", `no function rewritten in ${dir}`);
  return count;
}

async function denoBundleSplit(root: string, entries: readonly string[], outDir: string): Promise<void> {
  const args = ["--code-splitting", "--minify", "--config", CONFIG_FILE, "--outdir", outDir, ...entries];
  await runDenoBundle(root, args, entries.join(", "));
}

const DYNAMIC_IMPORT = /\bimport\(\s*"(\.\.?\/[^"]+\.js)"\s*\)/g;

/**
 * Deno loads and compiles every module a dynamic import names by a string literal when the program (or
 * a Worker) starts, so in a code-split build the lazily imported chunks (the interactive session, MCP,
 * the other commands, the providers not used, zod, yaml; in the Worker's build the tools, zod, the bash
 * grammar's 2 MB and web-tree-sitter) would all be read on every start. Each `import("./chunk.js")` is
 * rewritten to `import(new URL("./chunk.js", import.meta.url).href)`, which Deno resolves only when it
 * runs. The main thread may read its own modules; a Worker's grant names its build's folder for this
 * (`moduleDirs`, lib/child/child_sandbox.ts). Returns how many imports were rewritten.
 */
export async function deferLazyImports(outDir: string): Promise<number> {
  let rewritten = 0;
  for (const [file, text] of await readBuildFiles(outDir)) {
    const out = text.replace(DYNAMIC_IMPORT, (_whole, ref: string) => {
      rewritten++;
      return `import(new URL(${JSON.stringify(ref)}, import.meta.url).href)`;
    });
    if (out !== text) await Deno.writeTextFile(file, out);
  }
  return rewritten;
}

/**
 * Where a code-split `deno bundle` writes each entry: its path below the entries' lowest common
 * folder (esbuild's outbase), with `.js`: [main.ts] → main.js; [lib/child/child_worker.ts] →
 * child_worker.js; both → main.js and lib/child/child_worker.js.
 */
export function splitOutputs(entries: readonly string[]): Map<string, string> {
  const dirs = entries.map((e) => e.split("/").slice(0, -1));
  const common: string[] = [];
  for (let i = 0; dirs.length > 0 && dirs.every((d) => d[i] !== undefined && d[i] === dirs[0]![i]); i++) {
    common.push(dirs[0]![i]!);
  }
  return new Map(
    entries.map((e) => [e, e.split("/").slice(common.length).join("/").replace(/\.[cm]?tsx?$/, ".js")]),
  );
}

/** Replaces each `new URL("<anything>/<entry's file name>", import.meta.url)` by one naming `target`. */
export function rewriteWorkerUrl(text: string, entry: string, target: string, onHit: () => void): string {
  const name = entry.split("/").at(-1)!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(
    `new URL\\(\\s*(["'\`])(?:[^"'\`]*/)?${name}\\1\\s*,\\s*import\\.meta\\.url\\s*\\)`,
    "g",
  );
  return text.replace(pattern, () => {
    onHit();
    return `new URL(${JSON.stringify(target)}, import.meta.url)`;
  });
}

/**
 * Points every `new URL("…/<entry file>", import.meta.url)` in the build at `outDir` at the entry's
 * output in the build at `entriesDir` (a split build of `entries`), relative to the file that names it.
 */
export async function pointSplitWorkerUrls(
  outDir: string,
  entries: readonly string[],
  entriesDir = outDir,
): Promise<number> {
  const outputs = splitOutputs(entries);
  let total = 0;
  const visit = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await visit(path);
      else if (e.name.endsWith(".js")) {
        const text = await Deno.readTextFile(path);
        let out = text;
        for (const entry of entries) {
          const target = relative(dir, join(entriesDir, outputs.get(entry)!));
          out = rewriteWorkerUrl(out, entry, target.startsWith(".") ? target : `./${target}`, () => total++);
        }
        if (out !== text) await Deno.writeTextFile(path, out);
      }
    }
  };
  await visit(outDir);
  return total;
}
