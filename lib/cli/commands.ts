// Owns the management commands' entry points: `blade agents …` (registry) and `blade tasks …`
// (sidecars of child runs, scoped to the working folder; `--all` for every owner of this user).

import { parseArgs } from "node:util";
import type { Ports } from "../sys/mod.ts";
import { BladeError, usageError } from "../errors.ts";
import { createApp } from "../app.ts";
import type { Io } from "./io.ts";
import { parseOrUsage } from "./main.ts";
import { runAgentsCommand } from "./agents_cmd.ts";
import { FileSidecarStore } from "../store/file_store.ts";
import { publicProjection } from "../store/projection.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { validateSessionId } from "../protocol/ids.ts";
import { pollWhileRunning } from "../manager/ends_within.ts";

/** Pulls the global options every command accepts out of argv. */
function globalOptions(argv: string[]): { rest: string[]; agentsJson?: string; trustWorkspace: boolean } {
  const rest: string[] = [];
  let agentsJson: string | undefined;
  let trustWorkspace = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--trust-workspace") trustWorkspace = true;
    else if (a === "--agents") {
      const v = argv[++i];
      if (v === undefined) {
        throw usageError("--agents needs a JSON value.", `Example: --agents '{"x":{...}}'`);
      }
      agentsJson = v;
    } else if (a.startsWith("--agents=")) agentsJson = a.slice("--agents=".length);
    else rest.push(a);
  }
  return agentsJson === undefined ? { rest, trustWorkspace } : { rest, agentsJson, trustWorkspace };
}

export async function runAgents(argv: string[], ports: Ports, io: Io): Promise<number> {
  const g = globalOptions(argv);
  const app = await createApp(ports, {
    ...(g.trustWorkspace ? { trustWorkspace: true } : {}),
  });
  return await runAgentsCommand(g.rest, {
    ports,
    io,
    workspace: app.workspace,
    trusted: app.trust.trusted,
    home: ports.env.home(),
    storageRoot: app.layout.root,
    ...(g.agentsJson === undefined ? {} : { agentsJson: g.agentsJson }),
  });
}

const TASKS_HELP = `Usage: blade tasks <command> [options]

Subagent runs started from this folder (each run's durable record, its sidecar).

  list [--json] [--all]            runs of this folder (--all: every folder), newest first
  output <id> [--json] [--wait] [--timeout <sec>]   a run's status and final result
  wait <id>… [--timeout <sec>]     wait until the runs end; exit 0 only if all completed
  cancel <id>…                     stop running runs (status cancelled; their processes are killed)
  clean [--older-than 7d] [--json] remove finished runs older than the age (default 7 days)
`;

const LABELS: Record<SidecarRecord["status"], string> = {
  running: "RUNNING",
  completed: "OK",
  failed: "FAIL",
  cancelled: "STOPPED",
};

export function parseAge(text: string): number {
  const m = /^(\d+)\s*(ms|s|m|h|d)?$/.exec(text.trim());
  if (m === null) {
    throw usageError(`Cannot read the age "${text}".`, "Use a number with a unit: 30m, 12h, 7d.");
  }
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? "d"]!;
  return Number(m[1]) * unit;
}

export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export async function runTasks(argv: string[], ports: Ports, io: Io): Promise<number> {
  const { values, positionals } = parseOrUsage(() =>
    parseArgs({
      args: argv,
      options: {
        json: { type: "boolean" },
        all: { type: "boolean" },
        wait: { type: "boolean" },
        timeout: { type: "string" },
        "older-than": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    }), "blade tasks");
  const [command, ...ids] = positionals;
  if (values.help === true || command === undefined) {
    io.out(TASKS_HELP);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  const app = await createApp(ports, {});
  const store = new FileSidecarStore({ fs: ports.fs, clock: ports.clock, storageRoot: app.layout.root });
  const visible = (r: SidecarRecord) => values.all === true || r.parentProjectPath === app.workspace;
  const find = async (id: string): Promise<SidecarRecord> => {
    validateSessionId(id);
    const loaded = await store.load(id);
    if (loaded === null || !("record" in loaded) || !visible(loaded.record)) {
      throw new BladeError("task_not_found", `Unknown task ID: ${id}`, {
        hint: "`blade tasks list` shows the runs of this folder (`--all` for every folder).",
      });
    }
    return loaded.record;
  };
  const timeoutMs = values.timeout === undefined
    ? undefined
    : parseAge(/^\d+$/.test(values.timeout) ? `${values.timeout}s` : values.timeout);
  // `--timeout 0` looks once; no --timeout waits as long as the run takes.
  const waitFor = async (id: string): Promise<SidecarRecord> =>
    timeoutMs === 0 ? await find(id) : await pollWhileRunning(await find(id), () => find(id), {
      clock: ports.clock,
      timeoutMs: timeoutMs ?? 0,
    });
  switch (command) {
    case "list": {
      const { records } = await store.listAll();
      const mine = records.filter(visible);
      if (values.json === true) {
        io.out(JSON.stringify(mine.map(publicProjection), null, 2) + "\n");
        return 0;
      }
      if (mine.length === 0) {
        io.out("No subagent runs in this folder yet.\n");
        return 0;
      }
      const now = ports.clock.now();
      for (const r of mine) {
        const lineage = r.resumedFrom === undefined ? "" : `  ← ${r.resumedFrom} (depth ${r.resumeDepth})`;
        const label = r.status === "running" && r.queuedAt !== undefined ? "QUEUED" : LABELS[r.status];
        io.out(
          `${label.padEnd(8)} ${r.id}  ${r.subagentType.padEnd(16)} ${
            formatAge(now - r.createdAt).padStart(4)
          }  ${r.description}${r.background ? "  [bg]" : ""}${lineage}\n`,
        );
      }
      return 0;
    }
    case "output": {
      if (ids.length !== 1) throw usageError("blade tasks output takes one task id.");
      const record = values.wait === true ? await waitFor(ids[0]!) : await find(ids[0]!);
      if (values.json === true) {
        io.out(JSON.stringify(publicProjection(record), null, 2) + "\n");
      } else {
        io.out(`${LABELS[record.status]} ${record.id} (${record.subagentType}): ${record.description}\n\n`);
        const text = record.status === "running"
          ? "(still running)"
          : record.result.success
          ? record.result.message
          : `Error: ${record.result.error ?? "unknown"}\n${record.result.message}`;
        io.out(text.trim() + "\n");
      }
      return 0;
    }
    case "wait": {
      if (ids.length === 0) throw usageError("blade tasks wait needs at least one task id.");
      let allOk = true;
      for (const id of ids) {
        const r = await waitFor(id);
        io.out(`${LABELS[r.status].padEnd(8)} ${r.id}\n`);
        if (r.status !== "completed") allOk = false;
      }
      return allOk ? 0 : 1;
    }
    case "clean": {
      const age = parseAge(values["older-than"] ?? "7d");
      const { records } = await store.listAll();
      const owners = new Map<string, { parentSessionId: string; parentProjectPath: string }>();
      for (const r of records.filter(visible)) {
        owners.set(`${r.parentSessionId}\0${r.parentProjectPath}`, {
          parentSessionId: r.parentSessionId,
          parentProjectPath: r.parentProjectPath,
        });
      }
      let removed = 0;
      for (const owner of owners.values()) removed += await store.cleanupExpired(owner, age);
      if (values.json === true) io.out(JSON.stringify({ removed }) + "\n");
      else {io.out(
          `Removed ${removed} finished run${removed === 1 ? "" : "s"} older than ${
            values["older-than"] ?? "7d"
          }.\n`,
        );}
      return 0;
    }
    case "cancel": {
      if (ids.length === 0) throw usageError("blade tasks cancel needs at least one task id.");
      for (const id of ids) {
        const record = await find(id);
        if (record.status !== "running") {
          io.out(`${id} is not running (${LABELS[record.status]}); nothing to cancel.\n`);
          continue;
        }
        // The first terminal state wins: the run's own ending can no longer rewrite this.
        await store.markCompleted(id, {
          status: "cancelled",
          result: {
            success: false,
            message: record.result.message,
            error: "Cancelled with blade tasks cancel.",
          },
          completedAt: ports.clock.now(),
        });
        const owner = record.processId;
        const alive = owner !== undefined &&
          await ports.process.isAlive(owner, record.processIdentity);
        io.out(
          alive
            ? `Cancelled ${id}; its process (pid ${owner}) stops it within a second.\n`
            : `Cancelled ${id}; no live process was running it.\n`,
        );
      }
      return 0;
    }
    case "resume":
      throw new BladeError("not_available", `blade tasks ${command} is not available in this version yet.`, {
        hint:
          "Resuming a finished run with its lineage is not built yet; start a new run with `blade run <agent>`.",
      });
    default:
      throw usageError(`Unknown tasks command "${command}".`, "See `blade tasks --help`.");
  }
}
