// 50 background children started at once by one `blade -p` run through the scripted provider (each
// child makes two tool calls): the whole run until every notice is delivered, its peak RSS and the
// atomic sidecar writes per child (temp files seen in the sessions folder). Part of `deno task bench`.

import { bladeEnv, median, type ProcessRun, timed } from "./bench_common.ts";

/** 50 background children started at once (each two tool calls): time to all notices, RSS, writes. */
export async function benchBackground(
  cmd: string[],
  workspace: string,
  storage: string,
  runs: number,
  children = 50,
) {
  const calls = Array.from({ length: children }, (_, i) => ({
    name: "Task",
    input: {
      subagent_type: "Explore",
      description: `Background job ${i}`,
      prompt: `JOB-${i}: list the TypeScript files and read main.ts.`,
      run_in_background: true,
    },
  }));
  const script = {
    agents: {
      main: [{
        repeat_last: true,
        turns: [{ text: "Starting the jobs.", tool_calls: calls }, { text: "Waiting for notices." }, {
          text: "noted",
        }],
      }],
      Explore: [{
        turns: [
          { tool_calls: [{ name: "Glob", input: { pattern: "*.ts" } }] },
          { tool_calls: [{ name: "Read", input: { file_path: "main.ts" } }] },
          { text: "done" },
        ],
      }],
    },
  };
  const scriptPath = `${workspace}/../bg-bench.json`;
  await Deno.writeTextFile(scriptPath, JSON.stringify(script));
  const all: ProcessRun[] = [];
  const writesPerChild: number[] = [];
  for (let i = 0; i < runs; i++) {
    const root = `${storage}-bg-${i}`;
    const sessions = `${root}/agents/sessions`;
    await Deno.mkdir(sessions, { recursive: true });
    const watcher = Deno.watchFs(sessions);
    const temps = new Set<string>();
    const watching = (async () => {
      for await (const ev of watcher) for (const p of ev.paths) if (p.endsWith(".tmp")) temps.add(p);
    })();
    const env = bladeEnv(root, { BLADE_MAX_CONCURRENT_SUBAGENTS: String(children) });
    const run = await timed(
      [
        ...cmd,
        "-p",
        "start the jobs",
        "--provider",
        "scripted",
        "--script",
        scriptPath,
        "--output-format",
        "json",
      ],
      env,
      workspace,
    );
    watcher.close();
    await watching;
    const result = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}") as {
      subagents?: { completed: number };
    };
    if (run.code !== 0 || result.subagents?.completed !== children) {
      throw new Error(`background bench run failed (exit ${run.code}): ${run.stdout.slice(0, 500)}`);
    }
    all.push(run);
    writesPerChild.push(temps.size / children);
  }
  return { runs: all, writesPerChild: median(writesPerChild) };
}
