// Owns the bundle artifact: `deno bundle` of Blade into one self-contained JavaScript file
// (dist/blade.js, npm packages inlined, so it runs offline from an empty DENO_DIR), one bundle per
// Worker entry module (dist/child_worker.js), and launchers that run it with Blade's scoped flags:
// dist/blade (POSIX sh) and dist/blade.cmd (Windows). Needs only `deno` on the target machine.
// Does not decide flags or Worker entries (release_inputs.ts).
//
//   deno task bundle            → dist/
//   deno task bundle --out DIR

import { parseArgs } from "node:util";
import { basename, join, relative } from "node:path";
import { BladeError } from "../lib/errors.ts";
import { VERSION } from "../lib/version.ts";
import { runScript, stripAnsi } from "./script_cli.ts";
import { isolateRequireIn, readBuildFiles } from "./bundle_require.ts";
import { mergeStartGroups } from "./bundle_merge.ts";
import { eagerDir } from "./bundle_eager.ts";
import { bladeRunFlags, CONFIG_FILE, ENTRY, ROOT, WORKER_ENTRIES } from "./release_inputs.ts";
import {
  type DevBundleStamp,
  FAILED_PATH,
  LOCK_PATH,
  LOCK_STALE_MS,
  sourceState,
  STAMP_PATH,
} from "../lib/sys/dev_bundle.ts";

export const BUNDLE_FILE = "blade.js";
export const LAUNCHER_FILE = "blade";
export const WINDOWS_LAUNCHER_FILE = "blade.cmd";

/**
 * What the launchers add to Blade's run flags: no deno.json or lockfile from the user's folder,
 * nothing fetched at run time (the bundle carries its npm packages), and none of Deno's own output
 * (`--quiet`: its progress bar writes erase sequences to a terminal stderr whenever a Worker loads,
 * which tore lines out of the interactive session's screen; see docs/guides/interactive.md).
 */
export const LAUNCHER_EXTRA_FLAGS: readonly string[] = ["--no-config", "--no-remote", "--no-npm", "--quiet"];

export interface BundleOptions {
  /** Output folder (default dist/). */
  outDir?: string;
  onProgress?: (line: string) => void;
}

export interface BundledWorker {
  /** The Worker entry module, relative to the repository root. */
  entry: string;
  /** Its bundle, beside blade.js. */
  output: string;
  /** How many `new URL("…/<entry>", import.meta.url)` were pointed at the bundle. */
  references: number;
}

export interface BundleResult {
  dir: string;
  script: string;
  launcher: string;
  windowsLauncher: string;
  workers: BundledWorker[];
  /** The `deno run` flags the launchers pass (before the script path). */
  flags: string[];
}

export async function buildBundle(options: BundleOptions = {}): Promise<BundleResult> {
  const dir = options.outDir ?? join(ROOT, "dist");
  const progress = options.onProgress ?? (() => {});
  await Deno.mkdir(dir, { recursive: true });
  const script = join(dir, BUNDLE_FILE);
  progress(`bundle ${ENTRY} → ${script}`);
  await denoBundle(ENTRY, script);
  const workers: BundledWorker[] = [];
  for (const entry of WORKER_ENTRIES) {
    const output = join(dir, workerBundleName(entry));
    progress(`bundle ${entry} → ${output}`);
    await denoBundle(entry, output);
    workers.push({ entry, output, references: 0 });
  }
  // A Worker is started from a URL relative to the module that names it; in the bundle every module
  // is blade.js, so each such URL is pointed at the Worker's own bundle beside it.
  for (const file of [script, ...workers.map((w) => w.output)]) {
    const { text, counts } = pointWorkerUrls(await Deno.readTextFile(file), WORKER_ENTRIES);
    await Deno.writeTextFile(file, text);
    for (const worker of workers) worker.references += counts.get(worker.entry) ?? 0;
  }
  const flags = [...await bladeRunFlags(), ...LAUNCHER_EXTRA_FLAGS];
  const launcher = join(dir, LAUNCHER_FILE);
  await Deno.writeTextFile(launcher, posixLauncher(flags));
  await Deno.chmod(launcher, 0o755);
  const windowsLauncher = join(dir, WINDOWS_LAUNCHER_FILE);
  await Deno.writeTextFile(windowsLauncher, windowsLauncherText(flags));
  progress(`launchers → ${launcher}, ${windowsLauncher}`);
  return { dir, script, launcher, windowsLauncher, workers, flags };
}

/** `lib/child/child_worker.ts` → `child_worker.js`. */
export function workerBundleName(entry: string): string {
  return `${basename(entry).replace(/\.[cm]?[jt]sx?$/, "")}.js`;
}

/**
 * Rewrites `new URL("<anything>/<entry file name>", import.meta.url)` to the entry's bundle beside the
 * script. Returns the new text and how many URLs each entry had.
 */
export function pointWorkerUrls(
  text: string,
  entries: readonly string[],
): { text: string; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  let out = text;
  for (const entry of entries) {
    out = rewriteWorkerUrl(out, entry, `./${workerBundleName(entry)}`, () => {
      counts.set(entry, (counts.get(entry) ?? 0) + 1);
    });
  }
  return { text: out, counts };
}

/** Replaces each `new URL("<anything>/<entry's file name>", import.meta.url)` by one naming `target`. */
export function rewriteWorkerUrl(text: string, entry: string, target: string, onHit: () => void): string {
  const name = basename(entry).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(
    `new URL\\(\\s*(["'\`])(?:[^"'\`]*/)?${name}\\1\\s*,\\s*import\\.meta\\.url\\s*\\)`,
    "g",
  );
  return text.replace(pattern, () => {
    onHit();
    return `new URL(${JSON.stringify(target)}, import.meta.url)`;
  });
}

/** The POSIX launcher: resolves its own folder (through symlinks) and runs blade.js beside it. */
export function posixLauncher(flags: readonly string[]): string {
  return [
    "#!/bin/sh",
    `# Blade ${VERSION} launcher, generated by scripts/bundle.ts: runs ${BUNDLE_FILE} beside this file`,
    "# with Blade's scoped Deno permissions. Needs Deno 2.9 or later on PATH (or BLADE_DENO=/path/to/deno).",
    'self="$0"',
    'while [ -h "$self" ]; do',
    '  link=$(readlink "$self")',
    '  case "$link" in /*) self="$link" ;; *) self=$(dirname -- "$self")/"$link" ;; esac',
    "done",
    'dir=$(CDPATH= cd -- "$(dirname -- "$self")" && pwd) || exit 1',
    `exec "\${BLADE_DENO:-deno}" run ${flags.join(" ")} "$dir/${BUNDLE_FILE}" "$@"`,
    "",
  ].join("\n");
}

export function windowsLauncherText(flags: readonly string[]): string {
  return [
    "@echo off",
    `rem Blade ${VERSION} launcher, generated by scripts/bundle.ts: runs ${BUNDLE_FILE} beside this file.`,
    'if "%BLADE_DENO%"=="" (set "BLADE_DENO=deno")',
    `"%BLADE_DENO%" run ${flags.join(" ")} "%~dp0${BUNDLE_FILE}" %*`,
    "",
  ].join("\r\n");
}

async function denoBundle(entry: string, output: string): Promise<void> {
  await runDenoBundle(ROOT, ["--config", CONFIG_FILE, "--output", output, entry], entry);
}

/** `deno bundle --quiet --platform deno <args>` in `root`; its stderr becomes the error when it fails. */
export async function runDenoBundle(root: string, args: readonly string[], what: string): Promise<void> {
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

/**
 * `deno task blade`'s dev bundle (lib/sys/dev_bundle.ts): code-split, minified, in dist/dev/<build>/:
 * main.ts's build in main/, the Worker entries' own build in worker/ (DEV_MAIN_DIR, DEV_WORKER_DIR).
 */
export interface DevBundleResult {
  dir: string;
  entry: string;
  /** False when another build held the lock (nothing was built). */
  built: boolean;
}

/**
 * Builds the dev bundle of `root` and points dist/dev/current.json at it (written atomically, after
 * the build is complete), unless another build holds the lock. The source state is read before
 * bundling, so a file changed during the build makes the result stale at once. Builds older than the
 * previous one are removed after a day (a long-running session may still load lazy chunks from them).
 */
/** The dev bundle's two builds, below dist/dev/<build>/. */
export const DEV_MAIN_DIR = "main";
export const DEV_WORKER_DIR = "worker";

/**
 * The chunks merged after main.js's, in order (esbuild names a lazy module's chunk after its file):
 * the print command, and the lazy modules every print-mode session loads as it is built — the
 * default provider (lib/provider/anthropic.ts) and the agent registry's loader (lib/registry/load.ts).
 */
export const START_GROUPS: readonly RegExp[] = [
  /^print_cmd-\w+\.js$/,
  /^anthropic-\w+\.js$/,
  /^load-\w+\.js$/,
];

/** The lazy chunks a child Worker loads before its first request: the default provider. */
export const WORKER_START_GROUPS: readonly RegExp[] = [/^anthropic-\w+\.js$/];

export async function buildDevBundle(root = ROOT): Promise<DevBundleResult> {
  const devDir = join(root, "dist", "dev");
  await Deno.mkdir(devDir, { recursive: true });
  const lock = join(root, LOCK_PATH);
  if (!await takeLock(lock)) return { dir: devDir, entry: "", built: false };
  try {
    const state = sourceState(root);
    const build = `${Date.now().toString(36)}-${Deno.pid}`;
    const out = join(devDir, build);
    const mainDir = join(out, DEV_MAIN_DIR);
    const workerDir = join(out, DEV_WORKER_DIR);
    try {
      // Two builds, so that no chunk is shared between the main thread and a Worker: every lazy
      // import of the main thread's build can then be deferred (deferMainThreadImports).
      await denoBundleSplit(root, [ENTRY], mainDir);
      await denoBundleSplit(root, WORKER_ENTRIES, workerDir);
    } catch (e) {
      // Not retried by `deno task blade` until the sources change (the sources run meanwhile).
      const failed: DevBundleStamp = { ...state, deno: Deno.version.deno, entry: "" };
      await Deno.writeTextFile(join(root, FAILED_PATH), `${JSON.stringify(failed)}\n`).catch(() => {});
      await Deno.remove(out, { recursive: true }).catch(() => {});
      throw e;
    }
    await pointSplitWorkerUrls(mainDir, WORKER_ENTRIES, workerDir);
    await pointSplitWorkerUrls(workerDir, WORKER_ENTRIES, workerDir);
    await deferMainThreadImports(mainDir);
    await isolateRequireIn(mainDir);
    await isolateRequireIn(workerDir);
    // main.js's chunks, the print command's, then those of the lazy modules every `blade -p` session
    // loads while it is built: one module each (scripts/bundle_merge.ts).
    const names = [...Deno.readDirSync(mainDir)].map((e) => e.name);
    const groups = START_GROUPS.flatMap((group) => names.filter((n) => group.test(n)).slice(0, 1));
    await mergeStartGroups(mainDir, ["main.js", ...groups], runDenoBundle);
    // Last, once no step re-bundles (esbuild would drop the parentheses): the start-up chunks'
    // functions compiled with their module, so the code cache holds them (scripts/bundle_eager.ts).
    await eagerDir(mainDir, ["main.js", ...groups]);
    await eagerDir(workerDir, [...splitOutputs(WORKER_ENTRIES).values(), ...WORKER_START_GROUPS]);
    const entry = `${build}/${DEV_MAIN_DIR}/${splitOutputs([ENTRY]).get(ENTRY)}`;
    const stamp: DevBundleStamp = { ...state, deno: Deno.version.deno, entry };
    const tmp = `${join(root, STAMP_PATH)}.${Deno.pid}.tmp`;
    await Deno.writeTextFile(tmp, `${JSON.stringify(stamp)}\n`);
    await Deno.rename(tmp, join(root, STAMP_PATH));
    await removeOldBuilds(devDir, build);
    return { dir: out, entry: join(devDir, entry), built: true };
  } finally {
    await Deno.remove(lock).catch(() => {});
  }
}

async function takeLock(path: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      (await Deno.open(path, { write: true, createNew: true })).close();
      return true;
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      const info = await Deno.stat(path).catch(() => null);
      if (info !== null && Date.now() - (info.mtime?.getTime() ?? 0) < LOCK_STALE_MS) return false;
      await Deno.remove(path).catch(() => {}); // a build that died: take over
    }
  }
  return false;
}

async function removeOldBuilds(devDir: string, current: string): Promise<void> {
  const builds: { name: string; mtime: number }[] = [];
  for await (const e of Deno.readDir(devDir)) {
    if (!e.isDirectory || e.name === current) continue;
    const info = await Deno.stat(join(devDir, e.name)).catch(() => null);
    builds.push({ name: e.name, mtime: info?.mtime?.getTime() ?? 0 });
  }
  builds.sort((a, b) => b.mtime - a.mtime);
  for (const old of builds.slice(1).filter((b) => Date.now() - b.mtime > 86_400_000)) {
    await Deno.remove(join(devDir, old.name), { recursive: true }).catch(() => {});
  }
}

async function denoBundleSplit(root: string, entries: readonly string[], outDir: string): Promise<void> {
  const args = ["--code-splitting", "--minify", "--config", CONFIG_FILE, "--outdir", outDir, ...entries];
  await runDenoBundle(root, args, entries.join(", "));
}

const DYNAMIC_IMPORT = /\bimport\(\s*"(\.\.?\/[^"]+\.js)"\s*\)/g;

/**
 * Deno loads and compiles every module a dynamic import names by a string literal when the program
 * starts, so in a code-split build the lazily imported chunks (the interactive session, MCP, the other
 * commands, the providers not used, zod, yaml) would all be read on every start. In the main thread's
 * build each `import("./chunk.js")` is rewritten to `import(new URL("./chunk.js", import.meta.url).href)`,
 * which Deno resolves only when it runs (the main thread may read its own modules). The Worker entries
 * have their own build, left as it is: a Worker may not read files beyond its grant, so its modules
 * must be preloaded. Returns how many imports were rewritten.
 */
export async function deferMainThreadImports(outDir: string): Promise<number> {
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

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { out: { type: "string" }, dev: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    strict: true,
  });
  if (values.help === true) {
    // deno-lint-ignore no-console
    console.log(
      "Usage: deno task bundle [--out <dir>] [--dev]\n\nWrites blade.js, Worker bundles and launchers; " +
        "--dev builds the code-split bundle `deno task blade` runs (dist/dev/).",
    );
    return 0;
  }
  if (values.dev === true) {
    const dev = await buildDevBundle();
    // deno-lint-ignore no-console
    console.log(dev.built ? `dev bundle → ${dev.entry}` : "another dev bundle build is running");
    return 0;
  }
  const result = await buildBundle({
    ...(values.out === undefined ? {} : { outDir: values.out }),
    // deno-lint-ignore no-console
    onProgress: (line) => console.log(line),
  });
  for (const worker of result.workers.filter((w) => w.references === 0)) {
    // deno-lint-ignore no-console
    console.warn(`warning: no new URL(…${basename(worker.entry)}, import.meta.url) found in the bundle`);
  }
  // deno-lint-ignore no-console
  console.log(`Run it with ${result.launcher} --version`);
  return 0;
}

if (import.meta.main) await runScript(main, "`deno task bundle --help` lists the options");
