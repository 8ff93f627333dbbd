// End-to-end figures of `deno task bench` (docs/reference/performance.md), every contender run in the
// same rounds, alternating, against its own loopback fake Anthropic server: the floor program (three
// requests, and one), `blade -p` single turn, Blade's foreground delegation (child in a Worker and
// in-process), Blade's background delegation, Claude Code's delegation when installed; and the start-up
// of every command. Each figure: wall time, peak RSS and CPU time (user+sys) per run.

import {
  bladeCommand,
  bladeEnv,
  DELEGATION_PROMPT,
  delegationServer,
  DENO_DIR,
  epochNow,
  type ProcessRun,
  timed,
  writeFloorProgram,
} from "./bench_common.ts";

export interface Contender {
  name: string;
  /** The whole command line, prompt included; `url` is the fake server's base URL. */
  argv(url: string): string[];
  env(url: string): Record<string, string>;
  background?: boolean;
}

export interface ContenderRuns {
  runs: ProcessRun[];
  /** Per run: parent's first request arrived → the child's first request arrived, ms. */
  overheadMs: number[];
  /** Per run: spawn → the first request arrived, ms. */
  toFirstRequestMs: number[];
}

/** Where Claude Code's binary is looked for (BLADE_BENCH_CLAUDE overrides). */
export const CLAUDE_PATHS = ["/tmp/cc/node_modules/.bin/claude"];

export async function findClaude(): Promise<string | undefined> {
  const configured = Deno.env.get("BLADE_BENCH_CLAUDE");
  for (const path of configured === undefined ? CLAUDE_PATHS : [configured]) {
    try {
      const out = await new Deno.Command(path, { args: ["--version"], stdout: "null", stderr: "null" })
        .output();
      if (out.success) return path;
    } catch { /* not installed there */ }
  }
  return undefined;
}

/** Another build of Blade measured beside `deno task blade`: the release bundle, the compiled binary. */
export interface OtherBuild {
  /** Its rows' prefix, e.g. "release bundle (dist/blade)". */
  label: string;
  /** The command line before Blade's arguments. */
  argv: string[];
  /** What it needs on top of the bench's environment (the release launcher's Deno). */
  env: Record<string, string>;
}

/**
 * The builds measured beside `deno task blade`: the release bundle (built into `dir`, as `deno task
 * bundle` builds dist/) and the compiled binary where `deno compile` works here; where it does not,
 * why (the bench prints a row saying so).
 */
export async function otherBuilds(dir: string): Promise<{ others: OtherBuild[]; compileSkipped?: string }> {
  const { buildBundle } = await import("./bundle.ts");
  const release = await buildBundle({ outDir: `${dir}/release` });
  const others: OtherBuild[] = [
    { label: "release bundle (dist/blade)", argv: [release.launcher], env: { BLADE_DENO: Deno.execPath() } },
  ];
  const { buildRelease, probeCompile, TARGETS } = await import("./release.ts");
  const host = TARGETS.find((t) => t.triple === Deno.build.target);
  if (host === undefined) return { others, compileSkipped: `no release target for ${Deno.build.target}` };
  if (!await probeCompile()) {
    return {
      others,
      compileSkipped:
        "deno compile cannot run here: it could not download Deno's runtime (denort) for this platform",
    };
  }
  const built = await buildRelease({ targets: [host.triple], outDir: `${dir}/compiled`, check: false });
  others.push({ label: "compiled binary", argv: [built.artifacts[0]!.path], env: {} });
  return { others };
}

/**
 * `--against DIR`: another checkout's `blade` task (its flags, its launch.ts and dev bundle) and its
 * release bundle (DIR/dist/blade), measured in the same rounds: a change's before and after in one run.
 * Build both there first (`deno task bundle --dev`, `deno task bundle`).
 */
export async function againstBuilds(root: string): Promise<OtherBuild[]> {
  const release = `${root.replace(/\/$/, "")}/dist/blade`;
  try {
    Deno.statSync(release);
  } catch {
    throw new Error(`--against ${root}: no ${release} (run \`deno task bundle\` there first)`);
  }
  return [
    { label: "against: deno task blade", argv: await bladeCommand(root), env: {} },
    { label: "against: release bundle", argv: [release], env: { BLADE_DENO: Deno.execPath() } },
  ];
}

export interface ContenderOptions {
  /** Claude Code's binary (findClaude), when installed. */
  claude?: string | undefined;
  /** Other builds of Blade, each measured as `-p` single turn and the Worker delegations. */
  others?: readonly OtherBuild[];
}

export async function contenders(
  blade: string[],
  dir: string,
  options: ContenderOptions = {},
): Promise<Contender[]> {
  const { claude, others = [] } = options;
  const floor = await writeFloorProgram(dir);
  const storage = (name: string) => `${dir}/storage-${name}`;
  const anthropic = (url: string) => ({ ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: url });
  const floorEnv = () => ({ PATH: Deno.env.get("PATH") ?? "", DENO_DIR, HOME: dir });
  const bladeRun = (extra: string[]) => (_url: string) => [
    ...blade,
    "-p",
    DELEGATION_PROMPT,
    "--provider",
    "anthropic",
    "--output-format",
    "json",
    ...extra,
  ];
  const list: Contender[] = [
    {
      name: "floor: bare Deno, 3 requests",
      argv: (url) => [Deno.execPath(), "run", "--allow-net", floor, url, "3"],
      env: floorEnv,
    },
    {
      name: "floor: bare Deno, 1 request",
      argv: (url) => [Deno.execPath(), "run", "--allow-net", floor, url, "1"],
      env: floorEnv,
    },
    {
      name: "blade -p single turn",
      argv: () => [...blade, "-p", "say ok", "--provider", "anthropic", "--output-format", "json"],
      env: (url) => bladeEnv(storage("single"), anthropic(url)),
    },
    {
      name: "blade delegation fg (Worker)",
      argv: bladeRun([]),
      env: (url) => bladeEnv(storage("fg"), anthropic(url)),
    },
    {
      name: "blade delegation fg (in-process)",
      argv: bladeRun([]),
      env: (url) => bladeEnv(storage("fg-none"), { ...anthropic(url), BLADE_CHILD_SANDBOX: "none" }),
    },
    {
      name: "blade delegation bg (Worker)",
      argv: bladeRun([]),
      env: (url) => bladeEnv(storage("bg"), anthropic(url)),
      background: true,
    },
  ];
  for (const o of others) {
    list.push(
      ...otherBuildContenders(o, (name) => (url) => bladeEnv(storage(name), { ...anthropic(url), ...o.env })),
    );
  }
  if (claude !== undefined) {
    const home = `${dir}/claude-home`;
    await Deno.mkdir(home, { recursive: true });
    list.push({
      name: "claude code delegation fg",
      argv: () => [claude, "-p", DELEGATION_PROMPT, "--output-format", "json"],
      env: (url) => ({
        PATH: Deno.env.get("PATH") ?? "",
        HOME: home,
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        ...anthropic(url),
      }),
    });
  }
  return list;
}

/** An other build's rows: `-p` single turn and the two Worker delegations, each in its own storage. */
export function otherBuildContenders(
  o: OtherBuild,
  envFor: (storageName: string) => (url: string) => Record<string, string>,
): Contender[] {
  const key = o.label.replace(/\W+/g, "-");
  const run =
    (prompt: string) => () => [...o.argv, "-p", prompt, "--provider", "anthropic", "--output-format", "json"];
  return [
    { name: `${o.label}: -p single turn`, argv: run("say ok"), env: envFor(`${key}-single`) },
    { name: `${o.label}: delegation fg (Worker)`, argv: run(DELEGATION_PROMPT), env: envFor(`${key}-fg`) },
    {
      name: `${o.label}: delegation bg (Worker)`,
      argv: run(DELEGATION_PROMPT),
      env: envFor(`${key}-bg`),
      background: true,
    },
  ];
}

/**
 * A pause before each run: a run right after another (after Blade's background delegation or Claude
 * Code especially) measured ~10 ms slower than the same program after a pause (the two floors,
 * swapped, swapped their figures; 150 ms made them agree again).
 */
const SETTLE_MS = 150;

/**
 * `rounds` rounds (plus one warm-up), each running every contender once, after a pause (SETTLE_MS).
 * Each round runs them in its own order (roundOrder), so none always follows the same one.
 */
export async function runContenders(
  list: readonly Contender[],
  workspace: string,
  rounds: number,
): Promise<Map<string, ContenderRuns>> {
  const out = new Map<string, ContenderRuns>(
    list.map((c) => [c.name, { runs: [], overheadMs: [], toFirstRequestMs: [] }]),
  );
  for (let round = 0; round <= rounds; round++) {
    for (const c of roundOrder(list, round)) {
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const { server, arrivals } = delegationServer({ background: c.background === true });
      await using _ = server;
      const run = await timed(c.argv(server.url), c.env(server.url), workspace);
      if (run.code !== 0) {
        throw new Error(
          `${c.name} failed (exit ${run.code}): ${run.stdout.slice(0, 400)}${run.stderr.slice(0, 400)}`,
        );
      }
      if (round === 0) continue; // warms the module caches
      const r = out.get(c.name)!;
      r.runs.push(run);
      const first = Math.min(
        arrivals.parent[0] ?? Infinity,
        arrivals.child[0] ?? Infinity,
        arrivals.other[0] ?? Infinity,
      );
      if (Number.isFinite(first)) r.toFirstRequestMs.push(first - run.startedAt);
      if (arrivals.parent[0] !== undefined && arrivals.child[0] !== undefined) {
        r.overheadMs.push(arrivals.child[0] - arrivals.parent[0]);
      }
    }
  }
  return out;
}

/** The commands whose start-up is measured: each runs to completion with (almost) nothing to do. */
export const startupCommands = (script: string): string[][] => [
  ["--version"],
  ["--help"],
  ["agents", "list"],
  ["agents", "validate"],
  ["tasks", "list"],
  ["tasks", "clean"],
  ["trust", "--status"],
  ["mcp", "list"],
  ["run", "Explore", "say ok", "--provider", "scripted", "--script", script],
  ["demo"],
];

/** Wall, RSS and CPU of each command of startupCommands, alternating, `rounds` rounds. */
export async function runStartup(
  blade: string[],
  workspace: string,
  storage: string,
  rounds: number,
): Promise<Map<string, ProcessRun[]>> {
  const script = `${storage}-script.json`;
  await Deno.writeTextFile(script, JSON.stringify({ agents: { Explore: [{ turns: [{ text: "ok" }] }] } }));
  const commands = startupCommands(script);
  const name = (args: string[]) => args.slice(0, args[0] === "run" ? 3 : 2).join(" ");
  const out = new Map<string, ProcessRun[]>(commands.map((c) => [name(c), []]));
  const env = bladeEnv(storage);
  for (let round = 0; round <= rounds; round++) {
    for (const args of commands) {
      const run = await timed([...blade, ...args], env, workspace);
      if (run.code !== 0) {
        throw new Error(`blade ${args.join(" ")} failed (exit ${run.code}): ${run.stderr.slice(0, 400)}`);
      }
      if (round > 0) out.get(name(args))!.push(run);
    }
  }
  return out;
}

/** fsync/fdatasync calls of one run (strace -f), or undefined when strace is not available. */
export async function countFsyncs(c: Contender, workspace: string, dir: string): Promise<number | undefined> {
  const { server } = delegationServer({ background: c.background === true });
  await using _ = server;
  const log = `${dir}/strace-${epochNow().toFixed(0)}.txt`;
  try {
    const run = await timed(
      ["strace", "-f", "-qq", "-o", log, "-e", "trace=fsync,fdatasync", ...c.argv(server.url)],
      c.env(server.url),
      workspace,
    );
    if (run.code !== 0) return undefined;
    const text = await Deno.readTextFile(log);
    return text.split("\n").filter((l) => /\b(fsync|fdatasync)\(/.test(l) && !l.includes("resumed>")).length;
  } catch {
    return undefined;
  }
}

/**
 * `list` in the order of round `round`: a shuffle seeded by the round (the same in every bench run),
 * so no contender always follows the same one (a run right after the background delegation or Claude
 * Code measured slower).
 */
export function roundOrder<T>(list: readonly T[], round: number): T[] {
  let seed = (round + 1) * 0x9e3779b1;
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
