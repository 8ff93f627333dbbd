// Owns the dev bundle that `deno task blade` runs (docs/reference/performance.md): a code-split,
// minified `deno bundle` of main.ts, and one of the child Worker entry, in dist/dev/ (the build dist/
// ships, scripts/bundle_split.ts), so module resolution and TypeScript leave the start-up path while lazy
// imports stay lazy chunks. It is used only when it is up
// to date with the checkout: built by this Deno, and none of the source files it was built from (the
// stamp lists them) removed or changed since, nor a top-level input added.
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
  /** Their paths, relative to the checkout. */
  inputs: string[];
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
  "scripts/bundle_split.ts",
  "scripts/bundle_require.ts",
  "scripts/bundle_eager.ts",
  "scripts/release_inputs.ts",
];

/** The state of the sources the bundle is made of: main.ts, lib/ (tests and lib/testing/ excluded), config. */
export function sourceState(root: string): SourceState {
  const inputs: string[] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(`${root}/${dir}`)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) {
        if (e.name !== "testing" && e.name !== "__snapshots__") walk(path);
      } else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) inputs.push(path);
    }
  };
  for (const f of TOP_FILES) {
    try {
      Deno.statSync(`${root}/${f}`);
      inputs.push(f);
    } catch { /* not in this checkout */ }
  }
  walk("lib");
  return { files: inputs.length, newest: newestOf(root, inputs), inputs };
}

/** The newest modification time of `inputs` (relative to `root`); throws when one is gone. */
function newestOf(root: string, inputs: readonly string[]): number {
  let newest = 0;
  for (const path of inputs) {
    const mtime = Deno.statSync(`${root}/${path}`).mtime?.getTime() ?? Infinity;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

/**
 * Whether the sources a stamp was built from are unchanged, without listing the folders again: each
 * of its inputs is still there and none is newer than the build, and no top-level input appeared
 * since. A source file added since matters only once a listed file imports it, and that edit is seen.
 */
export function inputsUnchanged(root: string, stamp: DevBundleStamp): boolean {
  if (stamp.inputs.length !== stamp.files) return false;
  try {
    if (newestOf(root, stamp.inputs) > stamp.newest) return false;
  } catch {
    return false; // an input was removed (or cannot be read)
  }
  for (const f of TOP_FILES) {
    if (stamp.inputs.includes(f)) continue;
    try {
      Deno.statSync(`${root}/${f}`);
      return false;
    } catch { /* still absent */ }
  }
  return true;
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
      typeof raw.newest !== "number" || !Array.isArray(raw.inputs) ||
      !raw.inputs.every((p) => typeof p === "string" && p !== "" && !p.startsWith("/") && !p.includes(".."))
    ) return undefined;
    return raw as DevBundleStamp;
  } catch {
    return undefined;
  }
}

/** Whether the stamp describes a build of exactly these sources by this Deno. */
export function isFresh(
  stamp: DevBundleStamp | undefined,
  state: Pick<SourceState, "files" | "newest">,
  deno: string,
): boolean {
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

/**
 * The path of the dev bundle's entry when it is up to date with the checkout at `root`, else undefined.
 * Only the stamp's inputs are looked at (~230 `statSync`, no folder listing: this is on every start).
 */
export function freshDevBundle(root: string): string | undefined {
  const stamp = readStamp(root, STAMP_PATH);
  if (stamp === undefined || stamp.deno !== Deno.version.deno || !inputsUnchanged(root, stamp)) {
    return undefined;
  }
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
    const entry = freshDevBundle(root);
    if (entry !== undefined) return new URL(`file://${entry}`).href;
    const failed = readStamp(root, FAILED_PATH);
    if (failed === undefined || !isFresh(failed, sourceState(root), Deno.version.deno)) startRebuild(root);
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
