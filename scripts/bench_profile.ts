// deno-lint-ignore-file no-console -- a command-line script: printing is its job.
// Where the time of one delegation goes (docs/reference/performance.md): runs `blade -p` through the
// loopback delegation (parent → Task → child in its Worker → final answer) with BLADE_PROFILE=1, reads
// the phase marks both threads write (lib/sys/profile.ts) and the server's arrival times, and prints
// one timeline: every mark, in order, with its time since the process was spawned and the phase that
// ends there (time since the previous mark), medians over the runs. Several command lines (e.g. the
// sources and the bundle) run alternately, side by side in one table.
//   deno task bench --profile        (or: deno run -A scripts/bench_profile.ts [options])
// Options of the script itself: --background (the child runs in the background), --single (one turn,
// no delegation), --against DIR (a second checkout's launch.ts as a third target, alternating: the
// before/after of a change in one run), --bundle-only (skip the sources), --runs N, --v8-prof DIR
// (V8's sampling profiler on: where a phase's CPU goes, per function).

import {
  bladeEnv,
  DELEGATION_PROMPT,
  delegationServer,
  median,
  type ProcessRun,
  timed,
} from "./bench_common.ts";

export interface ProfileTarget {
  name: string;
  cmd: string[];
}

export interface ProfileRow {
  /** `thread: mark` (a repeated mark gets ` #2`, ` #3`). */
  event: string;
  /** Per target: median ms since spawn, and median ms since the previous row's event. */
  at: Record<string, number>;
  phase: Record<string, number>;
  /** Per target: median resident memory of the process at the mark, MiB (marks that carry it). */
  rss: Record<string, number>;
}

export interface ProfileResult {
  runs: number;
  rows: ProfileRow[];
  totals: Record<string, { wallMs: number; cpuMs: number; peakRssMiB: number }>;
}

/** The events of one run: name → ms since spawn; `rss` (when given) gets name → MiB of the marks that carry it. */
export function eventsOf(
  run: ProcessRun,
  arrivals: { parent: number[]; child: number[]; other?: number[] },
  rss?: Map<string, number>,
): Map<string, number> {
  const events = new Map<string, number>();
  const seen = new Map<string, number>();
  const add = (name: string, at: number, memory?: number) => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    const key = n === 1 ? name : `${name} #${n}`;
    events.set(key, at - run.startedAt);
    if (memory !== undefined) rss?.set(key, memory);
  };
  add("spawn", run.startedAt);
  const lines = run.stderr.split("\n").filter((l) => l.startsWith("blade-profile\t"));
  const marks: { name: string; at: number; memory?: number }[] = lines.map((l) => l.split("\t")).map((
    [, thread, name, at, memory],
  ) => ({
    name: `${thread}: ${name}`,
    at: Number(at),
    ...(memory === undefined || memory === "" ? {} : { memory: Number(memory) }),
  }));
  for (const a of arrivals.parent) marks.push({ name: "server: parent request arrived", at: a });
  for (const a of arrivals.child) marks.push({ name: "server: child request arrived", at: a });
  for (const a of arrivals.other ?? []) marks.push({ name: "server: request arrived", at: a });
  marks.sort((a, b) => a.at - b.at);
  for (const m of marks) add(m.name, m.at, m.memory);
  add("process ended (seen by the bench)", run.endedAt);
  return events;
}

/** What each profiled run does: a foreground delegation (default), a background one, or one turn. */
export type ProfileScenario = "foreground" | "background" | "single";

function profiledCommand(target: ProfileTarget, scenario: ProfileScenario): string[] {
  const prompt = scenario === "single" ? "say ok" : DELEGATION_PROMPT;
  return [...target.cmd, "-p", prompt, "--provider", "anthropic", "--output-format", "json"];
}

export async function benchProfile(
  targets: readonly ProfileTarget[],
  workspace: string,
  storage: string,
  runs: number,
  scenario: ProfileScenario = "foreground",
): Promise<ProfileResult> {
  const perTarget = new Map<string, Map<string, number>[]>(targets.map((t) => [t.name, []]));
  const memory = new Map<string, Map<string, number>[]>(targets.map((t) => [t.name, []]));
  const totals = new Map<string, ProcessRun[]>(targets.map((t) => [t.name, []]));
  for (let i = 0; i < runs + 1; i++) {
    for (const target of targets) {
      const { server, arrivals } = delegationServer({ background: scenario === "background" });
      await using _ = server;
      const env = bladeEnv(`${storage}-${target.name}`, {
        ANTHROPIC_API_KEY: "bench-key",
        ANTHROPIC_BASE_URL: server.url,
        BLADE_PROFILE: "1",
      });
      const run = await timed(profiledCommand(target, scenario), env, workspace);
      if (run.code !== 0) {
        throw new Error(`profiled run of ${target.name} failed: ${run.stdout}${run.stderr}`);
      }
      if (i === 0) continue; // the first round warms the caches
      const rss = new Map<string, number>();
      perTarget.get(target.name)!.push(eventsOf(run, arrivals, rss));
      memory.get(target.name)!.push(rss);
      totals.get(target.name)!.push(run);
    }
  }
  // Row order: by the first target's median time since spawn; events only another target has follow.
  const names: string[] = [];
  for (const t of targets) {
    const all = perTarget.get(t.name)!;
    const keys = [...new Set(all.flatMap((e) => [...e.keys()]))];
    const at = (k: string) => median(all.map((e) => e.get(k)).filter((v): v is number => v !== undefined));
    for (const k of keys.sort((a, b) => at(a) - at(b))) if (!names.includes(k)) names.push(k);
  }
  const rows: ProfileRow[] = names.map((event, index) => {
    const row: ProfileRow = { event, at: {}, phase: {}, rss: {} };
    for (const t of targets) {
      const all = perTarget.get(t.name)!;
      const ats = all.map((e) => e.get(event)).filter((v): v is number => v !== undefined);
      if (ats.length === 0) continue;
      row.at[t.name] = median(ats);
      // The phase ending here: from the latest earlier event this run has, per run, then the median.
      const deltas = all.flatMap((e) => {
        const here = e.get(event);
        if (here === undefined) return [];
        for (let j = index - 1; j >= 0; j--) {
          const before = e.get(names[j]!);
          if (before !== undefined) return [here - before];
        }
        return [];
      });
      if (deltas.length > 0) row.phase[t.name] = median(deltas);
      const mib = memory.get(t.name)!.map((m) => m.get(event)).filter((v): v is number => v !== undefined);
      if (mib.length > 0) row.rss[t.name] = median(mib);
    }
    return row;
  });
  return {
    runs,
    rows,
    totals: Object.fromEntries(targets.map((t) => {
      const r = totals.get(t.name)!;
      return [t.name, {
        wallMs: median(r.map((x) => x.wallMs)),
        cpuMs: median(r.map((x) => x.cpuMs)),
        peakRssMiB: median(r.map((x) => x.peakRssMiB)),
      }];
    })),
  };
}

const SCENARIO_TITLE: Record<ProfileScenario, string> = {
  foreground: "one foreground delegation",
  background: "one background delegation",
  single: "one single-turn run",
};

export function formatProfile(
  p: ProfileResult,
  targets: readonly string[],
  scenario: ProfileScenario = "foreground",
): string {
  const header = [
    "event (thread: mark)",
    ...targets.flatMap((t) => [`${t} at ms`, `${t} phase ms`, `${t} RSS MiB`]),
  ];
  const cells = p.rows.map((r) => [
    r.event,
    ...targets.flatMap((t) => [fmt(r.at[t]), fmt(r.phase[t]), fmt(r.rss[t])]),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join("  ");
  const total = targets.map((t) => {
    const x = p.totals[t]!;
    return `${t}: wall ${x.wallMs.toFixed(0)} ms, CPU ${x.cpuMs.toFixed(0)} ms, peak RSS ${
      x.peakRssMiB.toFixed(1)
    } MiB`;
  });
  return [
    `Per-phase profile of ${
      SCENARIO_TITLE[scenario]
    } (median of ${p.runs} runs, ms since spawn; a phase ends at its row; the process's resident memory at the mark)`,
    line(header),
    ...cells.map(line),
    ...total,
  ].join("\n");
}

function fmt(v: number | undefined): string {
  return v === undefined ? "-" : v.toFixed(1);
}

if (import.meta.main) {
  const { parseArgs } = await import("node:util");
  const { bladeCommand } = await import("./bench_common.ts");
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      background: { type: "boolean" },
      single: { type: "boolean" },
      against: { type: "string" },
      "bundle-only": { type: "boolean" },
      runs: { type: "string" },
      "v8-prof": { type: "string" },
    },
    strict: true,
  });
  const scenario: ProfileScenario = values.single === true
    ? "single"
    : values.background === true
    ? "background"
    : "foreground";
  const tmp = await Deno.makeTempDir({ prefix: "blade-bench-profile-" });
  try {
    await Deno.mkdir(`${tmp}/ws`);
    await Deno.writeTextFile(`${tmp}/ws/main.ts`, 'console.log("hi");\n');
    const blade = await bladeCommand();
    const sources = [...blade.slice(0, -1), blade.at(-1)!.replace(/launch\.ts$/, "main.ts")];
    const targets = [
      ...(values["bundle-only"] === true ? [] : [{ name: "sources", cmd: sources }]),
      { name: "bundle", cmd: blade },
      // The other checkout's own task (its flags and its launch.ts), so a change of flags is compared too.
      ...(values.against === undefined ? [] : [{ name: "against", cmd: await bladeCommand(values.against) }]),
    ];
    // --v8-prof DIR: V8's sampling profiler in every run (one isolate-*-v8.log per thread and run in DIR,
    // read with `node --prof-process FILE`); the marks then run slower, so compare only within such runs.
    if (values["v8-prof"] !== undefined) {
      const flag = `--v8-flags=--prof,--prof-sampling-interval=50,--logfile=${values["v8-prof"]}/v8.log`;
      for (const t of targets) t.cmd = [t.cmd[0]!, t.cmd[1]!, flag, ...t.cmd.slice(2)];
    }
    const runs = Number(values.runs ?? Deno.env.get("BLADE_BENCH_RUNS") ?? "7");
    const result = await benchProfile(targets, `${tmp}/ws`, `${tmp}/storage`, runs, scenario);
    console.log(formatProfile(result, targets.map((t) => t.name), scenario));
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}
