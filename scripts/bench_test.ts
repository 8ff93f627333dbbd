import assert from "node:assert/strict";
import { eventsOf } from "./bench_profile.ts";
import { benchOptions, formatTable } from "./bench.ts";
import type { ProcessRun } from "./bench_common.ts";
import { roundOrder } from "./bench_e2e.ts";

function run(stderr: string, startedAt: number, endedAt: number): ProcessRun {
  return {
    code: 0,
    wallMs: endedAt - startedAt,
    peakRssMiB: 1,
    cpuMs: 1,
    startedAt,
    endedAt,
    stdout: "",
    stderr,
  };
}

Deno.test("eventsOf orders both threads' marks and the server's arrivals by time, numbering repeats", () => {
  const stderr = [
    "blade-profile\tmain\trequest sent\t1010.5\t40.5",
    "some other stderr line",
    "blade-profile\tworker\trequest sent\t1030\t",
    "blade-profile\tmain\trequest sent\t1050\t52",
    "blade-profile\tmain\texit\t1060",
  ].join("\n");
  const rss = new Map<string, number>();
  const events = eventsOf(run(stderr, 1000, 1070), { parent: [1012, 1052], child: [1031] }, rss);
  // Memory only where a mark carries it (none from before a Worker's profiling, none from older lines).
  assert.deepEqual([...rss.entries()], [["main: request sent", 40.5], ["main: request sent #2", 52]]);
  assert.deepEqual([...events.entries()], [
    ["spawn", 0],
    ["main: request sent", 10.5],
    ["server: parent request arrived", 12],
    ["worker: request sent", 30],
    ["server: child request arrived", 31],
    ["main: request sent #2", 50],
    ["server: parent request arrived #2", 52],
    ["main: exit", 60],
    ["process ended (seen by the bench)", 70],
  ]);
});

Deno.test("formatTable shows ratios to the floor and to Claude Code, and blank cells where a row has none", () => {
  const table = formatTable([
    {
      group: "e2e",
      name: "blade fg",
      unit: "ms",
      median: 300,
      min: 250,
      max: 400,
      n: 7,
      peakRssMiB: 66,
      cpuMs: 120,
      vsFloor: { wall: 3, rss: 2 },
      vsClaude: { wall: 0.25, rss: 0.3 },
    },
    { group: "store", name: "writes", unit: "writes/s", median: 80, min: 80, max: 80, n: 5 },
  ]);
  const [header, , fg, store] = table.split("\n");
  assert.ok(header!.includes("vs floor wall/RSS"));
  assert.ok(fg!.includes("3.00× / 2.00×"));
  assert.ok(fg!.includes("0.25× / 0.30×"));
  assert.equal(store!.includes("×"), false);
});

Deno.test("benchOptions: --help is usage (exit 0); a bad option, runs or group is a usage message, no stack trace", () => {
  const env = (name: string) => (name === "BLADE_BENCH_RUNS" ? "3" : undefined);
  assert.deepEqual(benchOptions([], env), {
    runs: 3,
    only: [
      "e2e",
      "startup",
      "background",
      "registry",
      "store",
      "recovery",
      "worktree",
      "sandbox",
      "memory",
      "tasks",
      "search",
      "remote",
      "hooks",
      "rewrites",
    ],
    profile: false,
  });
  assert.deepEqual(
    benchOptions(["--runs", "5", "--only", "e2e,recovery", "--out", "x.json", "--profile"], env),
    {
      runs: 5,
      only: ["e2e", "recovery"],
      profile: true,
      out: "x.json",
    },
  );
  const help = benchOptions(["--help"], env);
  assert.ok("usage" in help && help.help && help.usage.startsWith("Usage: deno task bench"));
  for (
    const [args, says] of [
      [["--fast"], /Unknown option '--fast'/],
      [["--runs", "many"], /--runs must be a whole number of at least 1, not "many"/],
      [["--runs", "0"], /not "0"/],
      [["--only", "e2e,speed"], /unknown group speed/],
    ] as const
  ) {
    const r = benchOptions([...args], env);
    assert.ok("usage" in r && !r.help, args.join(" "));
    assert.match(r.usage, says);
    assert.match(r.usage, /Usage: deno task bench/);
  }
});

Deno.test("roundOrder: every round runs each contender once, in orders that differ, the same in every bench run", () => {
  const list = ["floor3", "floor1", "single", "fg", "inproc", "bg", "claude"];
  const orders = Array.from({ length: 14 }, (_, r) => roundOrder(list, r));
  for (const o of orders) assert.deepEqual([...o].sort(), [...list].sort());
  assert.deepEqual(roundOrder(list, 3), orders[3], "deterministic");
  const before = new Set(orders.map((o) => o[o.indexOf("floor3") - 1] ?? "(first)"));
  assert.ok(before.size >= 4, `floor3 follows different contenders: ${[...before].join(", ")}`);
  assert.deepEqual(roundOrder([], 2), []);
});
