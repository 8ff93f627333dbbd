// deno-lint-ignore-file no-console -- a command-line script: printing is its job.
// The interactive session's start-up figures, in a real pseudo-terminal (a private tmux server):
//
//   first prompt   process start of `blade` to the rendered prompt ("/help for commands" on screen)
//   idle RSS       resident memory of that process once the prompt is shown and nothing runs
//   -p wall        `blade -p` with the scripted provider, start to exit (print mode never imports the
//                  interactive modules; compare this figure with and without them)
//
//   deno run -A scripts/bench_interactive.ts [checkout…]   (default: this checkout; BLADE_BENCH_RUNS=9;
//                                                           BLADE_BENCH_PRINT_ONLY=1: only -p wall)
//
// With several checkouts (e.g. one before the interactive session existed) the runs alternate between
// them, so a noisy machine disturbs each alike. Medians; compare figures taken side by side.

const RUNS = Number(Deno.env.get("BLADE_BENCH_RUNS") ?? "9");
/** BLADE_BENCH_PRINT_ONLY=1: only the -p figure (so no pseudo-terminal run disturbs it). */
const PRINT_ONLY = Deno.env.get("BLADE_BENCH_PRINT_ONLY") === "1";
import { bladeCommand, median } from "./bench_common.ts";

const roots = (Deno.args.length > 0 ? Deno.args : [new URL("..", import.meta.url).pathname]).map((r) =>
  r.replace(/\/?$/, "/")
);
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

async function run(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  return new TextDecoder().decode(out.stdout);
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

async function firstPrompt(
  root: string,
  dir: string,
  script: string,
): Promise<{ ms: number; rssKiB: number }> {
  const socket = `blade-bench-${crypto.randomUUID().slice(0, 8)}`;
  const env = [
    `PATH=${Deno.env.get("PATH")}`,
    `HOME=${dir}`,
    `BLADE_STORAGE_ROOT=${dir}/store`,
    "TERM=xterm-256color",
  ];
  const command = [
    "env",
    "-i",
    ...env,
    `DENO_DIR=${DENO_DIR}`,
    ...await bladeCommand(root),
    "--provider",
    "scripted",
  ]
    .concat(["--script", script]).map(quote).join(" ");
  const started = performance.now();
  await run("tmux", [
    "-L",
    socket,
    "-f",
    "/dev/null",
    "new-session",
    "-d",
    "-x",
    "100",
    "-y",
    "30",
    `cd ${quote(dir)} && exec ${command}`,
  ]);
  try {
    while (true) {
      const screen = await run("tmux", ["-L", socket, "capture-pane", "-p"]);
      if (screen.includes("/help for commands")) break;
      if (performance.now() - started > 60_000) throw new Error(`no prompt after 60 s:\n${screen}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const ms = performance.now() - started;
    await new Promise((r) => setTimeout(r, 1000));
    const pid = (await run("tmux", ["-L", socket, "list-panes", "-F", "#{pane_pid}"])).trim();
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
    return { ms, rssKiB };
  } finally {
    await run("tmux", ["-L", socket, "kill-server"]);
  }
}

async function printWall(root: string, dir: string, script: string): Promise<number> {
  const [exe, ...args] = await bladeCommand(root);
  const started = performance.now();
  const out = await new Deno.Command(exe!, {
    args: [...args, "-p", "hi", "--provider", "scripted", "--script", script],
    cwd: dir,
    env: { HOME: dir, BLADE_STORAGE_ROOT: `${dir}/store`, DENO_DIR, PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return performance.now() - started;
}

const dir = await Deno.makeTempDir({ prefix: "blade-bench-tty-" });
const script = `${dir}/script.yaml`;
await Deno.writeTextFile(
  script,
  `agents:\n  main:\n    - repeat_last: true\n      turns:\n        - text: "ok"\n`,
);
const figures = roots.map((root) => ({
  root,
  interactive: !PRINT_ONLY && (() => {
    try {
      return Deno.statSync(`${root}lib/cli/interactive/repl.ts`).isFile;
    } catch {
      return false;
    }
  })(),
  prompts: [] as number[],
  rss: [] as number[],
  walls: [] as number[],
}));
for (let i = 0; i < RUNS; i++) {
  for (const f of figures) {
    if (f.interactive) {
      const p = await firstPrompt(f.root, dir, script);
      f.prompts.push(p.ms);
      f.rss.push(p.rssKiB);
    }
    f.walls.push(await printWall(f.root, dir, script));
  }
}
const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" ");
for (const f of figures) {
  console.log(`checkout      ${f.root}`);
  if (f.interactive) {
    console.log(`first prompt  median ${median(f.prompts).toFixed(0)} ms (of ${RUNS}: ${list(f.prompts)})`);
    console.log(`idle RSS      median ${(median(f.rss) / 1024).toFixed(1)} MiB`);
  }
  console.log(`-p wall       median ${median(f.walls).toFixed(0)} ms (of ${RUNS}: ${list(f.walls)})`);
}
await Deno.remove(dir, { recursive: true });
