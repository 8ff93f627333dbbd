// End-to-end test helper: runs the real `blade` CLI as a subprocess in a sealed environment — a
// throwaway storage root and HOME, NO_COLOR, and none of the caller's ANTHROPIC_*/OPENAI_*/BLADE_*
// variables unless a test passes them. Which build of Blade runs is chosen once for the whole test run
// by BLADE_TEST_ARTEFACT (CONTRIBUTING.md, "Tests run what ships"): the sources (main.ts with the `blade`
// task's scoped Deno flags; the default), `deno task blade`'s dev bundle (launch.ts), or the release
// bundle (dist/blade from `deno task bundle`). Also reads what a run left behind (transcripts,
// sidecars). Does not start model servers (lib/testing/).

import type { SidecarRecord } from "../../lib/store/schema.ts";
import { projectFolderName } from "../../lib/config/storage.ts";
import type { TranscriptEvent } from "../../lib/protocol/events.ts";
import { parseTranscript } from "../../lib/session/transcript.ts";
import { streamLines } from "../../lib/sys/signals.ts";
import { freshDevBundle, isFresh, sourceState } from "../../lib/sys/dev_bundle.ts";

/** The checkout the tests run from. */
export const ROOT = decodeURIComponent(new URL("../..", import.meta.url).pathname).replace(/\/$/, "");
export const CONFIG = `${ROOT}/deno.json`;
export const MAIN = `${ROOT}/main.ts`;
export const LAUNCH = `${ROOT}/launch.ts`;
/** The release bundle's launcher, as `deno task bundle` writes it. */
export const RELEASE_LAUNCHER = `${ROOT}/dist/blade`;

/** The builds of Blade the end-to-end tests can run (see the header). */
export const ARTEFACTS = ["sources", "dev", "release"] as const;
export type Artefact = (typeof ARTEFACTS)[number];
/** The variable that chooses the build for the whole test run (unset: the sources). */
export const ARTEFACT_VAR = "BLADE_TEST_ARTEFACT";
/**
 * For a test that must run only in the sources leg of `.ci/run`: `Deno.test("…", SOURCES_ONLY, async () => …)`
 * (or `...SOURCES_ONLY` in a test definition without its own `ignore`). The artefact legs run every other
 * test of tests/ against their build, so mark only tests that start another entry module (`entry`: the
 * harness refuses it in an artefact leg), build their own artefacts, or never start Blade and are slow.
 */
export const SOURCES_ONLY: { ignore: boolean } = { ignore: testedArtefact() !== "sources" };

/** The build this test run exercises (BLADE_TEST_ARTEFACT); an unknown value fails every e2e test. */
export function testedArtefact(): Artefact {
  const value = Deno.env.get(ARTEFACT_VAR) ?? "";
  if (value === "") return "sources";
  if ((ARTEFACTS as readonly string[]).includes(value)) return value as Artefact;
  throw new Error(`${ARTEFACT_VAR}=${value}: expected one of ${ARTEFACTS.join(", ")}`);
}

/** The flags of the `blade` task in deno.json, so tests run Blade exactly as users do. */
async function bladeFlags(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(CONFIG)) as { tasks: Record<string, string> };
  const task = config.tasks["blade"];
  if (task === undefined) throw new Error(`deno.json has no "blade" task`);
  const words = task.trim().split(/\s+/);
  // The task's entry is launch.ts (which runs main.ts or its dev bundle).
  if (words[0] !== "deno" || words[1] !== "run" || words.at(-1) !== "launch.ts") {
    throw new Error(`unexpected shape of the "blade" task: ${task}`);
  }
  return words.slice(2, -1);
}

/** Where Deno keeps its module cache: the child gets another HOME, so it must be told explicitly. */
async function denoDir(): Promise<string> {
  const explicit = Deno.env.get("DENO_DIR");
  if (explicit !== undefined && explicit !== "") return explicit;
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" }).output();
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { denoDir?: string };
  if (typeof info.denoDir !== "string") throw new Error("`deno info --json` did not report denoDir");
  return info.denoDir;
}

/** How to start the tested build: the command line before Blade's own arguments, and what to add to its env. */
export interface CommandSetup {
  artefact: Artefact;
  /** The program and its arguments, before Blade's. */
  argv: string[];
  /** Variables the build needs on top of the sealed base (the release launcher's Deno). */
  env: Record<string, string>;
  /** The `blade` task's Deno flags (for running another entry module from the sources). */
  flags: string[];
  denoDir: string;
}

/**
 * The command line of the build under test. A build that is missing or older than the sources fails
 * here, naming the command that makes it: an artefact leg must never quietly run the sources (launch.ts
 * would, for a stale dev bundle).
 */
async function artefactCommand(
  artefact: Artefact,
  flags: string[],
): Promise<Pick<CommandSetup, "argv" | "env">> {
  const deno = Deno.execPath();
  switch (artefact) {
    case "sources":
      return { argv: [deno, "run", ...flags, "--config", CONFIG, MAIN], env: {} };
    case "dev":
      if (freshDevBundle(ROOT) === undefined) {
        throw new Error(
          `${ARTEFACT_VAR}=dev: the dev bundle is missing or older than the sources; run \`deno task bundle --dev\``,
        );
      }
      return { argv: [deno, "run", ...flags, "--config", CONFIG, LAUNCH], env: {} };
    case "release": {
      const stamp = await Deno.readTextFile(`${ROOT}/dist/build.json`).then(JSON.parse, () => undefined);
      if (!isFresh(stamp, sourceState(ROOT), Deno.version.deno)) {
        throw new Error(
          `${ARTEFACT_VAR}=release: dist/ is missing or older than the sources; run \`deno task bundle\``,
        );
      }
      return { argv: [RELEASE_LAUNCHER], env: { BLADE_DENO: deno } };
    }
  }
}

let setup: Promise<CommandSetup> | undefined;

/** How to run the build under test, and the Deno cache folder (also used by the pseudo-terminal driver). */
export function commandSetup(): Promise<CommandSetup> {
  return (setup ??= (async () => {
    const artefact = testedArtefact();
    const flags = await bladeFlags();
    return { artefact, flags, denoDir: await denoDir(), ...await artefactCommand(artefact, flags) };
  })());
}

/**
 * The command line that runs Blade as users do (the `blade` task's flags), for programs that start
 * Blade themselves, such as the Agent SDK (tests/sdk_test.ts); its environment needs DENO_DIR.
 */
export async function bladeCommandLine(): Promise<{ command: string[]; denoDir: string }> {
  const { flags, denoDir: dir } = await commandSetup();
  return { command: [Deno.execPath(), "run", ...flags, "--config", CONFIG, MAIN], denoDir: dir };
}

export interface RunBladeOptions {
  /** The working folder (the workspace). */
  cwd: string;
  /**
   * Variables on top of the sealed base (PATH, DENO_DIR, NO_COLOR=1, HOME and BLADE_STORAGE_ROOT). When
   * HOME or BLADE_STORAGE_ROOT is not given, a temporary folder is made for it and removed afterwards.
   */
  env?: Record<string, string>;
  /**
   * Text written to Blade's standard input, then closed (otherwise stdin is empty). `"open"` keeps it
   * open: the test writes with BladeProcess.write and ends it with closeStdin (spawnBlade only).
   */
  stdin?: string;
  /** Aborting sends SIGINT to Blade, as Ctrl-C would. */
  signal?: AbortSignal;
  /**
   * Start Blade as the leader of its own process group (through `setsid`, which execs in place, so the
   * PID is Blade's), so a test can SIGKILL the whole group: Blade, its Workers and its commands.
   */
  processGroup?: boolean;
  /**
   * The module to run instead of main.ts (e.g. tests/support/faulty_main.ts), with the same flags, from
   * the sources: such a test needs SOURCES_ONLY.
   */
  entry?: string;
  /**
   * Run Blade as an ordinary user would meet file permissions: when the tests run as root (CI does),
   * Blade starts through `setpriv` without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, so a `chmod 000`
   * folder is unreadable to it as it would be to its owner.
   */
  withoutFileOverride?: boolean;
  /**
   * Run Blade as if on another machine: in a UTS namespace of its own with this hostname (`unshare
   * --uts`, then `hostname`, then exec in place). Needs root: check canSetHostname() first.
   */
  hostname?: string;
}

/** Whether Blade can be given its own hostname (RunBladeOptions.hostname): root with `unshare`. */
export async function canSetHostname(): Promise<boolean> {
  if (Deno.uid() !== 0) return false;
  try {
    const out = await new Deno.Command("unshare", {
      args: ["--uts", "sh", "-c", 'hostname "$0" && hostname', "blade-probe"],
      stdout: "piped",
      stderr: "null",
    }).output();
    return out.success && new TextDecoder().decode(out.stdout).trim() === "blade-probe";
  } catch {
    return false;
  }
}

/** Whether a root test process can drop its power to bypass file permissions for Blade (setpriv). */
export async function canDropFileOverride(): Promise<boolean> {
  if (Deno.uid() !== 0) return true;
  try {
    return (await new Deno.Command("setpriv", { args: ["--version"], stdout: "null", stderr: "null" })
      .output())
      .success;
  } catch {
    return false;
  }
}

const NO_FILE_OVERRIDE = [
  "--bounding-set",
  "-dac_override,-dac_read_search",
  "--inh-caps",
  "-dac_override,-dac_read_search",
];

export interface BladeResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface BladeProcess {
  pid: number;
  /** Send a signal to Blade. */
  kill(signal: Deno.Signal): void;
  /** Resolves when Blade exits, with everything it printed. */
  result: Promise<BladeResult>;
  /** Resolves when Blade exits: the signal that ended it (SIGKILL from a kill test), or null. */
  signal: Promise<Deno.Signal | null>;
  /** With `stdin: "open"`: writes to Blade's standard input. */
  write(text: string): Promise<void>;
  /** With `stdin: "open"`: closes Blade's standard input (EOF). */
  closeStdin(): Promise<void>;
  /** The next line Blade prints on stdout for which `accept` is true (lines are read as they come). */
  nextLine(accept: (line: string) => boolean): Promise<string>;
}

/** Starts Blade; see runBlade. */
export async function spawnBlade(args: string[], options: RunBladeOptions): Promise<BladeProcess> {
  const { artefact, flags, denoDir: dir, argv, env: artefactEnv } = await commandSetup();
  const made: string[] = [];
  const tempFor = async (prefix: string) => {
    const path = await Deno.makeTempDir({ prefix });
    made.push(path);
    return path;
  };
  const given = options.env ?? {};
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: dir,
    NO_COLOR: "1",
    HOME: given.HOME ?? await tempFor("blade-e2e-home-"),
    BLADE_STORAGE_ROOT: given.BLADE_STORAGE_ROOT ?? await tempFor("blade-e2e-storage-"),
    ...artefactEnv,
    ...given,
  };
  if (options.entry !== undefined && artefact !== "sources") {
    throw new Error(
      `this test runs ${options.entry}, not the ${artefact} build: give it SOURCES_ONLY (tests/support/blade.ts)`,
    );
  }
  const blade = options.entry === undefined
    ? argv
    : [Deno.execPath(), "run", ...flags, "--config", CONFIG, options.entry];
  const prefix = [
    ...(options.processGroup === true ? ["setsid"] : []),
    ...(options.withoutFileOverride === true && Deno.uid() === 0 ? ["setpriv", ...NO_FILE_OVERRIDE] : []),
    ...(options.hostname === undefined
      ? []
      : ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', options.hostname]),
  ];
  const [command, ...rest] = [...prefix, ...blade, ...args];
  const child = new Deno.Command(command!, {
    args: rest,
    cwd: options.cwd,
    env,
    clearEnv: true,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const onAbort = () => {
    try {
      child.kill("SIGINT");
    } catch { /* already gone */ }
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const writer = options.stdin === undefined ? undefined : child.stdin.getWriter();
  if (writer !== undefined && options.stdin !== "open") {
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  // stdout is read twice: line by line as it comes (nextLine) and whole for the result.
  const [live, whole] = child.stdout.tee();
  const lines = streamLines(live);
  const stdout = new Response(whole).text();
  const stderr = new Response(child.stderr).text();
  const result = (async (): Promise<BladeResult> => {
    try {
      const status = await child.status;
      return { code: status.code, stdout: await stdout, stderr: await stderr };
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      for (const path of made) await Deno.remove(path, { recursive: true }).catch(() => {});
    }
  })();
  return {
    pid: child.pid,
    kill: (signal) => child.kill(signal),
    result,
    signal: child.status.then((s) => s.signal),
    write: async (text) => await writer?.write(new TextEncoder().encode(text)),
    closeStdin: async () => await writer?.close(),
    nextLine: async (accept) => {
      while (true) {
        const next = await lines.next();
        if (next.done === true) throw new Error("Blade's stdout ended before the awaited line");
        if (accept(next.value)) return next.value;
      }
    },
  };
}

/**
 * Runs the build under test (by default `deno run <blade task flags> main.ts <args>`) in `cwd` and
 * collects its exit code and output.
 *
 *   const r = await runBlade(["-p", "hi", "--output-format", "json"], { cwd, env: sandbox.env });
 */
export async function runBlade(args: string[], options: RunBladeOptions): Promise<BladeResult> {
  return await (await spawnBlade(args, options)).result;
}

/** A workspace, storage root and HOME in one temporary folder, removed on dispose. */
export interface BladeSandbox extends AsyncDisposable {
  root: string;
  /** Canonical path of the working folder (what Blade records as the project path). */
  workspace: string;
  storage: string;
  home: string;
  /** HOME and BLADE_STORAGE_ROOT for runBlade. */
  env: Record<string, string>;
  /** runBlade in the workspace with this sandbox's HOME and storage, plus `env`. */
  run(args: string[], options?: Omit<RunBladeOptions, "cwd"> & { cwd?: string }): Promise<BladeResult>;
  spawn(args: string[], options?: Omit<RunBladeOptions, "cwd"> & { cwd?: string }): Promise<BladeProcess>;
  /** Writes a file below the workspace (parent folders created) and returns its absolute path. */
  write(relativePath: string, text: string): Promise<string>;
}

export async function bladeSandbox(): Promise<BladeSandbox> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-e2e-" }));
  const workspace = `${root}/work`;
  const storage = `${root}/storage`;
  const home = `${root}/home`;
  for (const dir of [workspace, home]) await Deno.mkdir(dir, { recursive: true });
  const env = { HOME: home, BLADE_STORAGE_ROOT: storage };
  const merged = (options: Omit<RunBladeOptions, "cwd"> & { cwd?: string }): RunBladeOptions => ({
    ...options,
    cwd: options.cwd ?? workspace,
    env: { ...env, ...options.env },
  });
  return {
    root,
    workspace,
    storage,
    home,
    env,
    run: (args, options = {}) => runBlade(args, merged(options)),
    spawn: (args, options = {}) => spawnBlade(args, merged(options)),
    async write(relativePath, text) {
      const path = `${workspace}/${relativePath}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, text);
      return path;
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

/** `$BLADE_STORAGE_ROOT/projects/<project folder>/<sessionId>.jsonl` (docs/reference/sessions.md). */
export function transcriptPath(where: { storage: string; workspace: string }, sessionId: string): string {
  return `${where.storage}/projects/${projectFolderName(where.workspace)}/${sessionId}.jsonl`;
}

export function sidecarPath(storage: string, agentId: string): string {
  return `${storage}/agents/sessions/${agentId}.json`;
}

/**
 * Every sidecar record under the storage root, sorted by description. Works while runs are still
 * writing: a missing folder is no records, a record removed between listing and reading is skipped.
 */
export async function readSidecars(storage: string): Promise<SidecarRecord[]> {
  const dir = `${storage}/agents/sessions`;
  const records: SidecarRecord[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".json")) continue;
      try {
        records.push(JSON.parse(await Deno.readTextFile(`${dir}/${entry.name}`)) as SidecarRecord);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return records.sort((a, b) => a.description.localeCompare(b.description));
}

/** The single JSON object a `--output-format json` run prints. */
export function parseJsonResult(result: BladeResult): Record<string, unknown> {
  const lines = result.stdout.trim().split("\n");
  if (lines.length !== 1) {
    throw new Error(
      `expected one JSON line on stdout, got ${lines.length}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** Every file below `dir`, recursively (absolute paths). */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await listFiles(path));
    else if (entry.isFile) out.push(path);
  }
  return out.sort();
}

/** The events of a transcript file; throws when the reader reports any problem with it. */
export async function transcriptEvents(path: string): Promise<TranscriptEvent[]> {
  const read = parseTranscript(await Deno.readTextFile(path));
  if (read.diagnostics.length > 0) {
    throw new Error(`transcript ${path} has problems: ${JSON.stringify(read.diagnostics)}`);
  }
  return read.events;
}

/** Polls `check` every 20 ms until it is true; fails after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Writes `script` (JSON is valid YAML) next to the workspace and runs `blade -p <prompt>` with the scripted
 * provider and `--output-format json`, plus `flags`.
 */
export async function runScripted(
  sandbox: BladeSandbox,
  script: unknown,
  options: { prompt?: string; flags?: string[]; env?: Record<string, string> } = {},
): Promise<BladeResult> {
  const path = `${sandbox.root}/script.json`;
  await Deno.writeTextFile(path, JSON.stringify(script, null, 2));
  return await sandbox.run([
    "-p",
    options.prompt ?? "Delegate the work",
    "--provider",
    "scripted",
    "--script",
    path,
    "--output-format",
    "json",
    ...(options.flags ?? []),
  ], options.env === undefined ? {} : { env: options.env });
}
