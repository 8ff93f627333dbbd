// Benchmarks what project context costs a `-p` start-up (docs/reference/performance.md,
// docs/guides/memory.md): a trusted repository with a 20 KB CLAUDE.md, 30 custom commands and 10 skills
// against the same repository without them. Two views: the context's own load in-process (memory files,
// the skills listing: what a session reads before its first request; commands are read only for a
// `/` prompt), median of many; and `blade -p` end to end against a loopback fake model server,
// alternating the two repositories, with the time to the first model request.
//   deno run -A scripts/bench_memory.ts [--runs N]

import { parseArgs } from "node:util";
import {
  type BenchRow,
  bladeCommand,
  bladeEnv,
  median,
  processRow,
  type ProcessRun,
  type Stats,
  stats,
  timed,
} from "./bench_common.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { realFs } from "../lib/sys/fs.ts";
import { loadMemory } from "../lib/memory/load_memory.ts";
import { memoryReminder } from "../lib/memory/memory_context.ts";
import { listSkills, skillDirs } from "../lib/skills/skill_file.ts";
import { skillsReminder } from "../lib/skills/skills_context.ts";

export interface MemoryBenchFigures {
  /** Loading memory and the skills listing in-process, ms. */
  loadMs: Stats;
  empty: ProcessRun[];
  full: ProcessRun[];
  /** Process start → first model request, ms. */
  firstRequestEmpty: number[];
  firstRequestFull: number[];
}

const PARAGRAPH =
  "- Prefer small, pure functions; keep I/O at the edges. Name files after what they export.\n";

/** Writes the full repository: CLAUDE.md of 20 KB, 30 commands, 10 skills. */
async function fullRepository(dir: string): Promise<void> {
  await Deno.mkdir(`${dir}/.claude/commands/team`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/CLAUDE.md`,
    `# Conventions\n${PARAGRAPH.repeat(Math.ceil(20_480 / PARAGRAPH.length))}`,
  );
  for (let i = 0; i < 30; i++) {
    const folder = i % 3 === 0 ? "team/" : "";
    await Deno.writeTextFile(
      `${dir}/.claude/commands/${folder}command-${i}.md`,
      `---\ndescription: Command ${i}\nallowed-tools: Read, Grep\n---\nDo task ${i} with $ARGUMENTS.\n`,
    );
  }
  for (let i = 0; i < 10; i++) {
    await Deno.mkdir(`${dir}/.claude/skills/skill-${i}`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/.claude/skills/skill-${i}/SKILL.md`,
      `---\nname: skill-${i}\ndescription: Skill ${i} for task family ${i}\n---\n${PARAGRAPH.repeat(40)}`,
    );
  }
}

async function loadOnce(workspace: string, home: string): Promise<number> {
  const fs = realFs();
  const start = performance.now();
  const roots = { workspace, trusted: true, home, userDir: `${home}/.claude` };
  const [memory, skills] = await Promise.all([loadMemory(fs, roots), listSkills(fs, skillDirs(roots))]);
  memoryReminder(memory.value);
  skillsReminder(skills.value);
  return performance.now() - start;
}

export async function benchMemory(o: { runs?: number; blade?: string[] } = {}): Promise<MemoryBenchFigures> {
  const runs = o.runs ?? 9;
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-bench-memory-" }));
  const empty = `${root}/empty`;
  const full = `${root}/full`;
  const storage = `${root}/storage`;
  for (const d of [empty, full, storage]) await Deno.mkdir(d, { recursive: true });
  await fullRepository(full);
  const arrivals: number[] = [];
  await using server = startFakeAnthropicServer({
    handler: () => {
      arrivals.push(performance.timeOrigin + performance.now());
      return fakeTurn({ text: "ok" });
    },
  });
  try {
    for (let i = 0; i < 5; i++) await loadOnce(full, storage);
    const loads: number[] = [];
    for (let i = 0; i < 50; i++) loads.push(await loadOnce(full, storage));
    const blade = o.blade ?? await bladeCommand();
    const env = bladeEnv(storage, {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "sk-ant-bench",
      BLADE_TRUST_WORKSPACE: "1",
      BLADE_MANAGED_DIR: "",
    });
    const figures: MemoryBenchFigures = {
      loadMs: stats(loads),
      empty: [],
      full: [],
      firstRequestEmpty: [],
      firstRequestFull: [],
    };
    // One warm-up round, then alternating rounds so both see the same machine load.
    for (let round = 0; round <= runs; round++) {
      for (
        const [dir, into, first] of [
          [empty, figures.empty, figures.firstRequestEmpty],
          [full, figures.full, figures.firstRequestFull],
        ] as const
      ) {
        const before = arrivals.length;
        const run = await timed([...blade, "-p", "hi"], env, dir);
        if (run.code !== 0) {
          throw new Error(`blade -p failed in ${dir} (exit ${run.code}): ${run.stderr.slice(0, 400)}`);
        }
        if (round === 0) continue;
        into.push(run);
        if (arrivals.length > before) first.push(arrivals[before]! - run.startedAt);
      }
    }
    return figures;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** The bench table's rows: the in-process load, then both start-ups with the difference in the note. */
export async function memoryRows(blade: string[], runs: number): Promise<BenchRow[]> {
  const f = await benchMemory({ runs, blade });
  const process = (name: string, r: ProcessRun[], note?: string) => processRow("memory", name, r, note);
  const diff = (a: number, b: number) => `${a - b >= 0 ? "+" : ""}${(a - b).toFixed(1)}`;
  const wall = (r: ProcessRun[]) => median(r.map((x) => x.wallMs));
  const cpu = (r: ProcessRun[]) => median(r.map((x) => x.cpuMs));
  return [
    {
      group: "memory",
      name: "load 20 KB CLAUDE.md + 10 skills' listing (in-process)",
      unit: "ms",
      ...f.loadMs,
      note: "what a session reads before its first request; commands are read only for a / prompt",
    },
    process(
      "-p start-up, no memory, commands or skills",
      f.empty,
      `first request at ${median(f.firstRequestEmpty).toFixed(0)} ms`,
    ),
    process(
      "-p start-up, 20 KB CLAUDE.md + 30 commands + 10 skills",
      f.full,
      `first request at ${median(f.firstRequestFull).toFixed(0)} ms; vs none: ${
        diff(wall(f.full), wall(f.empty))
      } ms wall, ` +
        `${diff(cpu(f.full), cpu(f.empty))} ms CPU, ${
          diff(median(f.firstRequestFull), median(f.firstRequestEmpty))
        } ms to the first request`,
    ),
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
  const f = await benchMemory(values.runs === undefined ? {} : { runs: Number(values.runs) });
  const wall = (r: ProcessRun[]) => median(r.map((x) => x.wallMs));
  const cpu = (r: ProcessRun[]) => median(r.map((x) => x.cpuMs));
  // deno-lint-ignore no-console
  console.log(JSON.stringify(
    {
      loadMs: f.loadMs,
      wallEmpty: wall(f.empty),
      wallFull: wall(f.full),
      cpuEmpty: cpu(f.empty),
      cpuFull: cpu(f.full),
      firstRequestEmpty: median(f.firstRequestEmpty),
      firstRequestFull: median(f.firstRequestFull),
    },
    null,
    1,
  ));
}
