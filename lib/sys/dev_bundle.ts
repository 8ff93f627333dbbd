// Owns the dev bundle that `deno task blade` runs (docs/reference/performance.md): a code-split,
// minified `deno bundle` of main.ts, and one of the child Worker entry, in dist/dev/, so module resolution and
// TypeScript leave the start-up path while lazy imports stay lazy chunks. It is used only when it is up
// to date with the checkout: built by this Deno, from the same set of source files, none changed since.
// When it is not, this run uses the sources and one rebuild starts in the background
// (scripts/bundle.ts --dev, one at a time), so the next run is fast. BLADE_DEV_BUNDLE=0 turns it off.
// Does not build anything itself (scripts/bundle.ts does, with sourceState and writeStamp from here).

/** The pointer to the current build, relative to the checkout. */
export const STAMP_PATH = "dist/dev/current.json";
/** Held (created exclusively) while a build runs; older than this, it is taken over. */
export const LOCK_PATH = "dist/dev/.build.lock";
export const LOCK_STALE_MS = 120_000;
/** The sources a build failed for (e.g. esbuild could not be fetched): not retried until they change. */
export const FAILED_PATH = "dist/dev/failed.json";

export interface SourceState {
  /** Source files that go into the bundle. */
  files: number;
  /** The newest modification time among them (epoch ms). */
  newest: number;
}

export interface DevBundleStamp extends SourceState {
  deno: string;
  /** The bundle's entry module, relative to dist/dev/. */
  entry: string;
}

/** Files outside lib/ that change what the bundle is (the entry, import map, lock, the bundler). */
const TOP_FILES = [
  "main.ts",
  "deno.json",
  "deno.lock",
  "scripts/bundle.ts",
  "scripts/bundle_merge.ts",
  "scripts/bundle_require.ts",
  "scripts/release_inputs.ts",
];

/** The state of the sources the bundle is made of: main.ts, lib/ (tests and lib/testing/ excluded), config. */
export function sourceState(root: string): SourceState {
  let files = 0;
  let newest = 0;
  const see = (path: string) => {
    const mtime = Deno.statSync(path).mtime?.getTime() ?? Infinity;
    files++;
    if (mtime > newest) newest = mtime;
  };
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) {
        if (e.name !== "testing" && e.name !== "__snapshots__") walk(path);
      } else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) see(path);
    }
  };
  for (const f of TOP_FILES) {
    try {
      see(`${root}/${f}`);
    } catch { /* not in this checkout */ }
  }
  walk(`${root}/lib`);
  return { files, newest };
}

/** The checkout folder of a source entry module, or undefined (a bundle, a compiled binary, no Deno). */
function checkoutOf(entryUrl: string): string | undefined {
  const url = new URL(entryUrl);
  if (url.protocol !== "file:" || !url.pathname.endsWith("/main.ts")) return undefined;
  const exec = Deno.execPath().split(/[\\/]/).pop() ?? "";
  if (!/^deno(\.exe)?$/.test(exec)) return undefined; // a compiled binary carries its own sources
  return decodeURIComponent(url.pathname).slice(0, -"/main.ts".length);
}

function readStamp(root: string, path: string): DevBundleStamp | undefined {
  try {
    const raw = JSON.parse(Deno.readTextFileSync(`${root}/${path}`)) as Partial<DevBundleStamp>;
    if (
      typeof raw.deno !== "string" || typeof raw.entry !== "string" || typeof raw.files !== "number" ||
      typeof raw.newest !== "number"
    ) return undefined;
    return raw as DevBundleStamp;
  } catch {
    return undefined;
  }
}

/** Whether the stamp describes a build of exactly these sources by this Deno. */
export function isFresh(stamp: DevBundleStamp | undefined, state: SourceState, deno: string): boolean {
  return stamp !== undefined && stamp.deno === deno && stamp.files === state.files &&
    state.newest <= stamp.newest;
}

function disabled(): boolean {
  try {
    return Deno.env.get("BLADE_DEV_BUNDLE") === "0";
  } catch {
    return false;
  }
}

/** The path of the dev bundle's entry when it is up to date with the checkout at `root`, else undefined. */
export function freshDevBundle(root: string, state = sourceState(root)): string | undefined {
  const stamp = readStamp(root, STAMP_PATH);
  if (stamp === undefined || !isFresh(stamp, state, Deno.version.deno)) return undefined;
  const entry = `${root}/dist/dev/${stamp.entry}`;
  try {
    Deno.statSync(entry);
    return entry;
  } catch {
    return undefined;
  }
}

/**
 * The URL of the up-to-date dev bundle's entry for the source entry `entryUrl` (main.ts's
 * import.meta.url), or undefined: then the caller runs the sources, and when the bundle was merely
 * stale a rebuild has been started in the background (not again for sources a build failed for).
 */
export function devBundleEntry(entryUrl: string): string | undefined {
  const root = checkoutOf(entryUrl);
  if (root === undefined || disabled()) return undefined;
  try {
    const state = sourceState(root);
    const entry = freshDevBundle(root, state);
    if (entry !== undefined) return new URL(`file://${entry}`).href;
    const failed = readStamp(root, FAILED_PATH);
    if (failed === undefined || !isFresh(failed, state, Deno.version.deno)) startRebuild(root);
  } catch { /* no usable bundle: the sources run */ }
  return undefined;
}

/** Starts `scripts/bundle.ts --dev` detached, unless a build is already running. */
function startRebuild(root: string): void {
  try {
    const lock = Deno.statSync(`${root}/${LOCK_PATH}`);
    if (Date.now() - (lock.mtime?.getTime() ?? 0) < LOCK_STALE_MS) return;
  } catch { /* no build running */ }
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      "scripts/bundle.ts",
      "--dev",
    ],
    cwd: root,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  child.unref();
  child.status.catch(() => {});
}
