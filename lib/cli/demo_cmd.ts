// Owns `blade demo`: a complete delegation flow against the built-in scripted model, in a throwaway
// workspace and storage folder, printed the way a person would follow it. No network, no API key.

import { parseArgs } from "./parse_args.ts";
import type { Ports } from "../sys/mod.ts";
import { createApp } from "../app.ts";
import type { Io } from "./io.ts";
import { parseOrUsage } from "./args.ts";
import { runMainSession } from "../executor/main_runner.ts";
import { countSubagents, emptySubagentStats, textRenderer } from "./print_render.ts";
import { DEMO_FILES, DEMO_PROMPT, DEMO_SCRIPT } from "./demo_script.ts";
import { interruptController } from "./print_turn.ts";

const HELP = `Usage: blade demo [--keep]

Runs a complete parent → Task → subagent → answer flow against Blade's built-in scripted model in a
throwaway folder: the parent asks the Explore agent to find a typo, then reads and fixes the file.
  --keep   keep the throwaway folder (workspace, transcripts and sidecars) and print where it is
`;

export async function runDemo(argv: string[], ports: Ports, io: Io): Promise<number> {
  const { values } = parseOrUsage(() =>
    parseArgs({
      args: argv,
      options: { keep: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
    }), "blade demo");
  if (values.help === true) {
    io.out(HELP);
    return 0;
  }
  const { root, workspace, demoPorts } = await demoWorkspace(ports);
  const bold = (s: string) => (io.color ? `\x1b[1m${s}\x1b[22m` : s);
  const dim = (s: string) => (io.color ? `\x1b[2m${s}\x1b[22m` : s);
  try {
    const app = await createApp(demoPorts, {
      provider: "scripted",
      script: `${root}/demo-script.yaml`,
      permissionMode: "autoEdit",
      trustWorkspace: true,
    });
    io.out(
      `${
        bold("Blade demo")
      } — a parent agent delegates to a subagent (built-in scripted model, no network)\n`,
    );
    io.out(dim(`workspace: ${app.workspace}`) + "\n\n");
    io.out(`${bold(">")} ${DEMO_PROMPT}\n\n`);
    const before = DEMO_FILES["src/greet.ts"]!;
    let sessionId: string | undefined;
    const stats = emptySubagentStats();
    const render = textRenderer(io, {
      live: true,
      mainSessionId: () => sessionId,
      now: () => ports.clock.now(),
      timer: ports.clock.timer.bind(ports.clock),
    });
    const interrupt = interruptController();
    const runtime = app.runtime((e) => {
      countSubagents(stats, e);
      render.onEvent(e);
    });
    const run = await runMainSession(app, {
      prompt: DEMO_PROMPT,
      emit: (e) => {
        if (e.type === "session_started" && sessionId === undefined) sessionId = e.sessionId;
        countSubagents(stats, e);
        render.onEvent(e);
      },
      signal: interrupt.signal,
      subagents: (id) => runtime.subagentsFor(id),
      recovery: runtime.recovery,
    }).finally(() => {
      interrupt.dispose();
      return runtime.close();
    });
    const r = run.result;
    render.finish({
      sessionId: run.sessionId,
      status: r.status,
      result: r.finalText,
      numTurns: run.modelRequests,
      toolCalls: run.totals.toolCalls,
      usage: run.totals.usage,
      durationMs: run.totals.durationMs,
    });
    const after = await ports.fs.readText(`${workspace}/src/greet.ts`);
    io.out("\n" + bold("src/greet.ts, line 2:") + "\n");
    io.out(`  - ${before.split("\n")[1]!.trim()}\n  + ${after.split("\n")[1]!.trim()}\n\n`);
    io.out(dim(demoSummary(run, stats)) + "\n");
    if (values.keep === true) io.out(dim(`kept: ${root} (transcripts under storage/projects/)`) + "\n");
    return r.status === "completed" && after !== before ? 0 : 1;
  } finally {
    if (values.keep !== true) await ports.fs.remove(root, { recursive: true }).catch(() => {});
  }
}

/** The throwaway folder: the demo project, its scripted model's script, and ports pointed at both. */
async function demoWorkspace(ports: Ports): Promise<{ root: string; workspace: string; demoPorts: Ports }> {
  const root = await ports.fs.makeTempDir("blade-demo-");
  const workspace = `${root}/project`;
  const storage = `${root}/storage`;
  for (const [path, text] of Object.entries(DEMO_FILES)) {
    const full = `${workspace}/${path}`;
    await ports.fs.ensureDir(full.slice(0, full.lastIndexOf("/")), 0o755);
    await ports.fs.writeText(full, text);
  }
  await ports.fs.writeText(`${root}/demo-script.yaml`, DEMO_SCRIPT);
  const demoPorts: Ports = {
    ...ports,
    env: {
      ...ports.env,
      cwd: () => workspace,
      get: (name) => (name === "BLADE_STORAGE_ROOT" ? storage : ports.env.get(name)),
    },
  };
  return { root, workspace, demoPorts };
}

/** The demo's closing line: status, duration, turns, tool calls and subagents. */
function demoSummary(
  run: Awaited<ReturnType<typeof runMainSession>>,
  stats: ReturnType<typeof emptySubagentStats>,
): string {
  const types = Object.keys(stats.by_type).join(", ") || "none";
  return `${run.result.status} in ${run.totals.durationMs} ms: ${run.modelRequests} model turns, ${run.totals.toolCalls} tool calls, ` +
    `${stats.spawned} subagent (${types}); session ${run.sessionId}`;
}
