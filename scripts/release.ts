// Owns the release build: `deno compile` of Blade for each supported target, with the built-in agents
// and the Worker entry modules embedded and Blade's scoped permission flags baked in, into
// dist/release/<version>/blade-<target>[.exe], plus a SHA256SUMS file. Does not decide the flags or
// embedded files (release_inputs.ts) and does not inspect binaries (compile_payload.ts).
//
//   deno task compile                                  every target (needs Deno's runtime download)
//   deno task compile --target x86_64-unknown-linux-gnu --base ./denort
//   deno task compile --target linux-x64 --base /bin/false   payload-only build (offline, not runnable)
//
// `deno compile` starts from a prebuilt runtime ("denort") per target, which it downloads. `--base`
// (or the DENORT_BIN environment variable) names a local one instead; any executable of the target's
// format (ELF for Linux) serves as a stand-in when only the embedded payload matters.

import { parseArgs } from "node:util";
import { join } from "node:path";
import { BladeError, describeError, usageError } from "../lib/errors.ts";
import { VERSION } from "../lib/version.ts";
import { runScript, stripAnsi } from "./script_cli.ts";
import { bladeRunFlags, CONFIG_FILE, EMBEDDED_DIRS, ENTRY, ROOT, WORKER_ENTRIES } from "./release_inputs.ts";

export interface ReleaseTarget {
  /** Deno's target triple, as `deno compile --target` takes it. */
  triple: string;
  /** Short name, also accepted by `--target`. */
  alias: string;
  os: "linux" | "darwin" | "windows";
}

export const TARGETS: readonly ReleaseTarget[] = [
  { triple: "x86_64-unknown-linux-gnu", alias: "linux-x64", os: "linux" },
  { triple: "aarch64-unknown-linux-gnu", alias: "linux-arm64", os: "linux" },
  { triple: "x86_64-apple-darwin", alias: "macos-x64", os: "darwin" },
  { triple: "aarch64-apple-darwin", alias: "macos-arm64", os: "darwin" },
  { triple: "x86_64-pc-windows-msvc", alias: "windows-x64", os: "windows" },
];

export const CHECKSUMS_FILE = "SHA256SUMS";

/** A target by triple or alias; a usage error lists the valid names otherwise. */
export function resolveTarget(name: string): ReleaseTarget {
  const target = TARGETS.find((t) => t.triple === name || t.alias === name);
  if (target === undefined) {
    throw usageError(
      `Unknown release target "${name}"`,
      `Use one of: ${TARGETS.map((t) => `${t.triple} (${t.alias})`).join(", ")}`,
    );
  }
  return target;
}

/** `blade-<triple>`, with `.exe` for Windows. */
export function artifactName(target: ReleaseTarget): string {
  return `blade-${target.triple}${target.os === "windows" ? ".exe" : ""}`;
}

export function defaultReleaseDir(): string {
  return join(ROOT, "dist", "release", VERSION);
}

export interface CompileArgsOptions {
  /** Type-check before compiling (default true). */
  check?: boolean;
}

/** The `deno` arguments that compile Blade for one target into `output` (run from ROOT). */
export async function compileArgs(
  target: ReleaseTarget,
  output: string,
  options: CompileArgsOptions = {},
): Promise<string[]> {
  return [
    "compile",
    "--quiet",
    ...await bladeRunFlags(),
    ...(options.check === false ? ["--no-check"] : []),
    "--config",
    CONFIG_FILE,
    ...[...EMBEDDED_DIRS, ...WORKER_ENTRIES].flatMap((path) => ["--include", path]),
    "--app-name",
    "blade",
    "--target",
    target.triple,
    "--output",
    output,
    ENTRY,
  ];
}

export interface ReleaseOptions extends CompileArgsOptions {
  /** Target triples or aliases (default: every target). */
  targets?: readonly string[];
  /** A local runtime to build on instead of downloading one (sets DENORT_BIN for `deno compile`). */
  base?: string;
  /** Output folder (default dist/release/<version>). */
  outDir?: string;
  /** Receives one line per step. */
  onProgress?: (line: string) => void;
  /** Aborting kills the running `deno compile`. */
  signal?: AbortSignal;
}

export interface ReleaseArtifact {
  target: string;
  path: string;
  size: number;
  sha256: string;
}

export interface ReleaseResult {
  version: string;
  dir: string;
  artifacts: ReleaseArtifact[];
  /** The SHA256SUMS file, covering every blade-* artifact in `dir`. */
  checksums: string;
}

/** Compiles the selected targets one after another, then writes SHA256SUMS. */
export async function buildRelease(options: ReleaseOptions = {}): Promise<ReleaseResult> {
  const targets = (options.targets ?? TARGETS.map((t) => t.triple)).map(resolveTarget);
  const dir = options.outDir ?? defaultReleaseDir();
  const progress = options.onProgress ?? (() => {});
  for (const path of [...EMBEDDED_DIRS, ...WORKER_ENTRIES]) await requireInput(path);
  if (options.base !== undefined) {
    for (const target of targets) await checkBase(options.base, target);
  }
  await Deno.mkdir(dir, { recursive: true });
  const artifacts: ReleaseArtifact[] = [];
  for (const target of targets) {
    const path = join(dir, artifactName(target));
    progress(`compile ${target.triple} → ${path}`);
    await compileOne(target, path, options);
    const bytes = await Deno.readFile(path);
    artifacts.push({ target: target.triple, path, size: bytes.length, sha256: await sha256Hex(bytes) });
  }
  const checksums = await writeChecksums(dir);
  progress(`checksums → ${checksums}`);
  return { version: VERSION, dir, artifacts, checksums };
}

/**
 * Writes `<dir>/SHA256SUMS` for every blade-* file in `dir`, in `sha256sum` format (hash, two
 * spaces, file name; sorted by name), so `sha256sum -c SHA256SUMS` verifies a download.
 */
export async function writeChecksums(dir: string): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    // deno compile writes `<name>.tmp-<hex>` first; a crashed build can leave one behind.
    if (entry.isFile && entry.name.startsWith("blade-") && !/\.tmp-[0-9a-f]+$/.test(entry.name)) {
      names.push(entry.name);
    }
  }
  names.sort();
  const lines: string[] = [];
  for (const name of names) lines.push(`${await sha256Hex(await Deno.readFile(join(dir, name)))}  ${name}\n`);
  const path = join(dir, CHECKSUMS_FILE);
  await Deno.writeTextFile(path, lines.join(""));
  return path;
}

export interface ProbeOptions {
  /** Give up after this long (default 20 s): a network that swallows packets must not hang a test. */
  timeoutMs?: number;
}

/**
 * Whether a real `deno compile` works here: compiles and runs a one-line program with the runtime
 * Deno would download (DENORT_BIN is not passed on). False on any failure, never throws.
 */
export async function probeCompile(options: ProbeOptions = {}): Promise<boolean> {
  const dir = await Deno.makeTempDir({ prefix: "blade-compile-probe-" });
  try {
    const signal = AbortSignal.timeout(options.timeoutMs ?? 20_000);
    await Deno.writeTextFile(join(dir, "probe.ts"), 'console.log("blade-compile-probe");\n');
    const env = Deno.env.toObject();
    delete env.DENORT_BIN;
    const compiled = await new Deno.Command(Deno.execPath(), {
      args: ["compile", "--quiet", "--no-config", "--output", join(dir, "probe"), join(dir, "probe.ts")],
      cwd: dir,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
      signal,
    }).output();
    if (!compiled.success) return false;
    const ran = await new Deno.Command(join(dir, "probe"), { stdout: "piped", stderr: "null", signal })
      .output();
    return ran.success && new TextDecoder().decode(ran.stdout).trim() === "blade-compile-probe";
  } catch {
    return false;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function compileOne(target: ReleaseTarget, output: string, options: ReleaseOptions): Promise<void> {
  const env = options.base === undefined ? undefined : { DENORT_BIN: options.base };
  const result = await new Deno.Command(Deno.execPath(), {
    args: await compileArgs(target, output, options),
    cwd: ROOT,
    ...(env === undefined ? {} : { env }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    const text = new TextDecoder().decode(result.stderr) + new TextDecoder().decode(result.stdout);
    throw compileFailure(target, stripAnsi(text).trim(), options.base);
  }
}

/** Turns `deno compile`'s failure into an error that says what to do. */
function compileFailure(target: ReleaseTarget, output: string, base: string | undefined): BladeError {
  const lines = output.split("\n");
  const backtrace = lines.findIndex((l) => l.startsWith("Stack backtrace:"));
  const detail = lines.slice(0, backtrace === -1 ? undefined : backtrace)
    .filter((l) => l.trim() !== "")
    .map((l) => `  ${l.replace(/^error: /, "")}`)
    .slice(0, 12).join("\n");
  if (base === undefined && /Setting up base binary|denort|dl\.deno\.land/i.test(output)) {
    return new BladeError(
      "denort_unavailable",
      `Cannot build ${target.triple}: deno compile could not download the Deno runtime (denort) ` +
        `for Deno ${Deno.version.deno}.\n${detail}`,
      {
        hint: `Build on a machine that can download it (e.g. CI), or fetch denort-${target.triple}.zip for ` +
          `Deno ${Deno.version.deno} from Deno's release downloads elsewhere, unzip it and pass ` +
          `--target ${target.alias} --base <path to denort> (or set DENORT_BIN). ` +
          `For an offline payload-only build (tests), --base /bin/false works for Linux targets.`,
      },
    );
  }
  return new BladeError("compile_failed", `deno compile failed for ${target.triple}:\n${detail}`, {
    hint: "Run `deno task check` to see type errors; the command is in scripts/release.ts (compileArgs)",
  });
}

const FORMATS: Record<ReleaseTarget["os"], { name: string; matches: (head: Uint8Array) => boolean }> = {
  linux: { name: "an ELF executable", matches: (h) => h[0] === 0x7f && h[1] === 0x45 && h[2] === 0x4c },
  windows: { name: "a Windows PE executable", matches: (h) => h[0] === 0x4d && h[1] === 0x5a },
  darwin: {
    name: "a Mach-O executable",
    matches: (h) => [0xcf, 0xce].includes(h[0] ?? 0) && h[1] === 0xfa && h[2] === 0xed && h[3] === 0xfe,
  },
};

/** A base must exist and have the target's executable format, or deno compile fails obscurely. */
async function checkBase(base: string, target: ReleaseTarget): Promise<void> {
  let head: Uint8Array;
  try {
    using file = await Deno.open(base);
    head = new Uint8Array(4);
    await file.read(head);
  } catch (error) {
    throw new BladeError(
      "release_base_missing",
      `Cannot read the base runtime ${base}: ${describeError(error)}`,
      {
        hint: "Pass the path of an unzipped denort binary with --base",
      },
    );
  }
  const format = FORMATS[target.os];
  if (!format.matches(head)) {
    throw new BladeError(
      "release_base_mismatch",
      `The base ${base} is not ${format.name}, which target ${target.triple} needs`,
      { hint: `Pass the denort of ${target.triple} with --base, or build one target per run (--target)` },
    );
  }
}

async function requireInput(path: string): Promise<void> {
  try {
    await Deno.stat(join(ROOT, path));
  } catch {
    throw new BladeError("release_input_missing", `${path} is missing, but release builds embed it`, {
      hint: "Restore the file, or update scripts/release_inputs.ts if it moved",
    });
  }
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

const HELP = `Usage: deno task compile [--target <t>]... [--base <path>] [--out <dir>] [--no-check]

Compiles Blade for every target (or those given) into dist/release/${VERSION}/ and writes SHA256SUMS.
Targets: ${TARGETS.map((t) => `${t.triple} (${t.alias})`).join(", ")}
  --base <path>   build on this Deno runtime (denort) instead of downloading one; also DENORT_BIN.
                  /bin/false gives an offline payload-only build for Linux targets (not runnable).
  --out <dir>     output folder
  --no-check      skip type-checking
`;

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      target: { type: "string", multiple: true },
      base: { type: "string" },
      out: { type: "string" },
      "no-check": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) {
    // deno-lint-ignore no-console
    console.log(HELP);
    return 0;
  }
  const result = await buildRelease({
    ...(values.target === undefined ? {} : { targets: values.target }),
    ...(values.base === undefined ? {} : { base: values.base }),
    ...(values.out === undefined ? {} : { outDir: values.out }),
    check: values["no-check"] !== true,
    // deno-lint-ignore no-console
    onProgress: (line) => console.log(line),
  });
  // deno-lint-ignore no-console
  console.log(`Built ${result.artifacts.length} artifact(s) of Blade ${result.version} in ${result.dir}`);
  return 0;
}

if (import.meta.main) await runScript(main, "`deno task compile --help` lists the options");
