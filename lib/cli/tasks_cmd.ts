// Owns `blade tasks list|output|wait|cancel|clean`: parses the command line, asks TaskAdmin
// (lib/admin/task_admin.ts) about the runs of this folder (`--all`: every folder of this user), and
// prints through tasks_render.ts or as the public projection with `--json`. Descriptions, results and
// errors are model- and file-controlled, so text output goes through terminalSafe (sanitize.ts).

import { terminalSafe } from "./sanitize.ts";
import { pruneStaleWorktrees, STALE_WORKTREE_AGE_MS } from "../worktree/prune.ts";
import { processGit } from "../worktree/git.ts";
import { parseArgs } from "./parse_args.ts";
import type { Ports } from "../sys/mod.ts";
import { BladeError, usageError } from "../errors.ts";
import { type App, createApp } from "../app.ts";
import type { Io } from "./io.ts";
import { parseAge, parseOrUsage } from "./args.ts";
import { publicProjection } from "../store/projection.ts";
import type { RunListing, SidecarDiagnostic, SidecarOwner } from "../store/store.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { TaskAdmin } from "../admin/task_admin.ts";
import { removeRunFiles } from "../admin/run_files.ts";
import { heldRuns, sharedHolds } from "../admin/run_holds.ts";
import { sameProject } from "../store/project_key.ts";
import { reconcile } from "../recovery/recovery.ts";
import { reconcileListed } from "../recovery/listed_reconcile.ts";
import { runTasksResume } from "./tasks_resume_cmd.ts";
import { storeFlagsOf } from "./print_flags.ts";
import {
  cancelJson,
  renderCancel,
  renderClean,
  renderMore,
  renderPrune,
  renderRecovery,
  renderTaskList,
  renderTaskOutput,
  renderWaitLine,
  statusCounts,
} from "./tasks_render.ts";

/** Runs `blade tasks list` shows unless told otherwise (docs/reference/cli.md). */
export const LIST_LIMIT = 20;

const TASKS_HELP = `Usage: blade tasks <command> [options]

Subagent runs started from this folder (each run's durable record, its sidecar).

  list [--limit <n>] [--all] [--session <id>] [--json]
                                   the ${LIST_LIMIT} most recently active runs of this folder (--limit: how
                                   many, 0 for all; --all: every run of every folder; --session:
                                   started by that session), with a count by status
  output <id> [--json] [--wait] [--timeout <sec>] [--fetch]
                                   a run's status and final result; --fetch: a remote run's
                                   branch blade/<id> into this repository (docs/guides/remote.md)
  wait <id>… [--timeout <sec>] [--json]
                                   wait until the runs end; exit 0 only if all completed
  cancel <id>… [--json]            stop running runs (status cancelled; their processes are killed)
  clean [--older-than 7d] [--worktrees] [--json]
                                   remove finished runs older than the age (default 7 days); with
                                   --worktrees also stale managed git worktrees (${
  STALE_WORKTREE_AGE_MS / 86_400_000
} days, clean,
                                   no unpushed commits; see docs/guides/isolation.md)
  resume <id> "prompt" [--background] [--output-format text|json|stream-json] [--json]
                                   continue a finished run as a new run (same agent, config, history)
  recover [--json]                 reconcile runs left "running" by a killed process, in every folder

  --store <url> [--store-creds <file>]   the shared NATS store's runs (docs/guides/remote.md)

Before every command, runs of this folder whose process died are reconciled (see recover); with
--store also this project's runs from other clones whose transcripts this storage root holds.
`;

function parseTasksArgs(argv: string[]) {
  return parseOrUsage(() =>
    parseArgs({
      args: argv,
      options: {
        json: { type: "boolean" },
        all: { type: "boolean" },
        wait: { type: "boolean" },
        fetch: { type: "boolean" },
        timeout: { type: "string" },
        "older-than": { type: "string" },
        worktrees: { type: "boolean" },
        session: { type: "string" },
        limit: { type: "string" },
        store: { type: "string" },
        "store-creds": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    }), "blade tasks");
}

type TasksValues = ReturnType<typeof parseTasksArgs>["values"];

/** What every subcommand past recovery works with. */
interface TasksRun {
  ports: Ports;
  io: Io;
  app: App;
  admin: TaskAdmin;
  values: TasksValues;
  ids: string[];
  /** `--timeout 0` looks once; no --timeout waits as long as the run takes. */
  timeoutMs: number | undefined;
  /** `list`: the listing the implicit reconcile was made from (still true: it changed nothing), if so. */
  listing?: RunListing | undefined;
  json(value: unknown, pretty?: boolean): void;
}

export async function runTasks(argv: string[], ports: Ports, io: Io): Promise<number> {
  // `resume` takes the run options of `blade run` (provider, script, output format, background).
  if (argv[0] === "resume") return await runTasksResume(argv.slice(1), ports, io);
  const { values, positionals } = parseTasksArgs(argv);
  const [command, ...ids] = positionals;
  if (values.help === true || command === undefined) {
    io.out(TASKS_HELP);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  const readOnly = command === "list" || command === "output";
  const app = await createApp(ports, storeFlagsOf(values), { storage: readOnly ? "read" : "write" });
  try {
    return await tasksCommand(app, { ports, io, values, command, ids });
  } finally {
    await app.close();
  }
}

async function tasksCommand(
  app: App,
  o: { ports: Ports; io: Io; values: TasksValues; command: string; ids: string[] },
): Promise<number> {
  const { ports, io, values, command, ids } = o;
  const store = app.store();
  const shared = app.shared;
  const recoveryDeps = {
    ports,
    store,
    layout: app.layout,
    redact: app.redact,
    // The implicit reconcile leaves another checkout's run whose transcript is not here to it.
    checkout: command === "recover" ? undefined : app.workspace,
    ...(shared === undefined ? {} : { inboxes: (o: SidecarOwner) => shared.inboxOf(o.parentSessionId) }),
  };
  if (command === "recover") {
    const report = await reconcile(recoveryDeps, () => true);
    if (values.json === true) io.out(JSON.stringify(report, null, 2) + "\n");
    else io.out(terminalSafe(renderRecovery(report)));
    return report.problems.some((p) => p.message.startsWith("recovery failed")) ? 1 : 0;
  }
  // Runs of this project left "running" by a dead process are reconciled before anyone looks at them
  // (only the records that may be running are read: the store's running index), selected as the
  // listing selects them (by path, or with a shared store by project key: store/project_key.ts).
  // `list` reconciles from the listing it shows, so the folder is listed once
  // (recovery/listed_reconcile.ts).
  const projectKey = await app.projectKey();
  const scope = (r: SidecarRecord) => sameProject(r, { path: app.workspace, key: projectKey });
  const { report: implicit, listing } = command === "list" ? await reconcileListed(recoveryDeps, scope) : {
    report: await reconcile(recoveryDeps, scope, { listing: await store.listRunning() }),
    listing: undefined,
  };
  for (const p of implicit.problems) {
    if (p.message.startsWith("recovery failed")) io.err(`blade: warning: ${p.id}: ${p.message}\n`);
  }
  const admin = new TaskAdmin({
    store,
    clock: ports.clock,
    process: ports.process,
    workspace: app.workspace,
    projectKey,
    all: values.all === true,
  });
  const run: TasksRun = {
    ports,
    io,
    app,
    admin,
    values,
    ids,
    timeoutMs: values.timeout === undefined
      ? undefined
      : parseAge(/^\d+$/.test(values.timeout) ? `${values.timeout}s` : values.timeout),
    listing,
    json: (value, pretty = true) => io.out(JSON.stringify(value, null, pretty ? 2 : 0) + "\n"),
  };
  switch (command) {
    case "list":
      return await tasksList(run);
    case "output":
      return await tasksOutput(run);
    case "wait":
      return await tasksWait(run);
    case "clean":
      return await tasksClean(run);
    case "cancel":
      return await tasksCancel(run);
    default:
      throw usageError(`Unknown tasks command "${command}".`, "See `blade tasks --help`.");
  }
}

/** Names every record `blade tasks` had to skip, on stderr (stdout stays the listing or its JSON). */
function reportProblems(io: Io, problems: readonly SidecarDiagnostic[]): void {
  for (const p of problems) {
    io.err(terminalSafe(`blade: warning: skipped run record ${p.file ?? p.id}: ${p.message}\n`));
  }
  if (problems.length > 0) {
    io.err(
      `  hint: \`blade tasks output <id>\` says what is wrong with one; move a damaged file aside or remove it.\n`,
    );
  }
}

/** `--limit`'s value: how many runs to show (undefined: no limit). */
function listLimit(values: TasksValues): number | undefined {
  if (values.limit === undefined) return values.all === true || values.json === true ? undefined : LIST_LIMIT;
  if (!/^\d+$/.test(values.limit)) {
    throw usageError(
      `--limit takes a whole number of runs, got "${values.limit}".`,
      "Use --limit 0 to list every run.",
    );
  }
  const n = Number(values.limit);
  return n === 0 ? undefined : n;
}

async function tasksList({ admin, values, io, ports, json, listing }: TasksRun): Promise<number> {
  const session = values.session;
  const limit = listLimit(values);
  const { runs, problems } = await admin.listWithProblems({ listing });
  reportProblems(io, problems);
  const mine = runs.filter((r) => session === undefined || r.parentSessionId === session);
  const shown = limit === undefined ? mine : mine.slice(0, limit);
  if (values.json === true) json((await admin.records(shown)).map(publicProjection));
  else if (mine.length === 0 && session !== undefined) io.out("No subagent runs in this session yet.\n");
  else {
    io.out(terminalSafe(renderTaskList(shown, ports.clock.now(), { machine: ports.env.hostname() })));
    if (shown.length < mine.length) io.out(renderMore(shown.length, mine.length));
    if (mine.length > 0) io.out(statusCounts(mine.map((r) => r.status)) + "\n");
  }
  return 0;
}

async function tasksOutput(
  { admin, values, io, ids, timeoutMs, json, app, ports }: TasksRun,
): Promise<number> {
  if (ids.length !== 1) throw usageError("blade tasks output takes one task id.");
  const found = values.wait === true ? await admin.wait(ids[0]!, timeoutMs) : await admin.find(ids[0]!);
  // The whole result: what the record spilled (a result of many MB) is read back.
  const record = await admin.whole(found);
  if (values.json === true) json(publicProjection(record));
  else io.out(terminalSafe(renderTaskOutput(record)));
  if (values.fetch !== true) return 0;
  const shared = app.shared;
  if (shared === undefined || record.remote?.branch === undefined) {
    throw new BladeError("task_not_found", `Run ${record.id} has no result branch to fetch`, {
      hint: "--fetch brings a finished remote run's branch (isolation: remote) from the shared store: " +
        "pass the same --store it ran with.",
    });
  }
  const { fetchRemoteBranch } = await import("../worker/placement.ts");
  const got = await fetchRemoteBranch(shared, { ports, workspace: app.workspace, record });
  io.err(terminalSafe(`Fetched ${got.branch} at ${got.commit.slice(0, 12)} into this repository.\n`));
  return 0;
}

async function tasksWait({ admin, values, io, ids, timeoutMs, json }: TasksRun): Promise<number> {
  if (ids.length === 0) throw usageError("blade tasks wait needs at least one task id.");
  let allOk = true;
  const ended = [];
  for (const id of ids) {
    const r = await admin.wait(id, timeoutMs);
    if (values.json === true) ended.push(publicProjection(r));
    else io.out(terminalSafe(renderWaitLine(r)));
    if (r.status !== "completed") allOk = false;
  }
  if (values.json === true) json(ended);
  return allOk ? 0 : 1;
}

async function tasksClean({ admin, values, io, ports, app, json }: TasksRun): Promise<number> {
  const olderThan = values["older-than"] ?? "7d";
  // Corrupt records are never removed by clean: say which ones stay.
  reportProblems(io, (await admin.listWithProblems()).problems);
  const { removed, failed } = await admin.clean(parseAge(olderThan), {
    removeFiles: (runs) => removeRunFiles(ports.fs, app.layout, runs),
    // A run whose notice waits in its parent's inbox, or whose parent runs now, stays.
    // With a shared store, the parents' inboxes and remote leases are the store's.
    held: (runs) =>
      heldRuns({
        fs: ports.fs,
        clock: ports.clock,
        process: ports.process,
        layout: app.layout,
        ...(app.shared === undefined ? {} : sharedHolds(app.shared)),
      }, runs),
  });
  for (const f of failed) io.err(terminalSafe(`blade: warning: could not remove ${f}\n`));
  const pruned = values.worktrees === true
    ? await pruneStaleWorktrees(
      { git: processGit(ports.process, ports.env), fs: ports.fs, worktreesDir: app.layout.worktreesDir },
      { now: ports.clock.now() },
    )
    : undefined;
  // The runs that kept a pruned worktree say it is gone; a record that cannot be updated is named.
  const unrecorded = (await admin.worktreesRemoved(pruned?.removed.map((r) => r.path) ?? [])).failed;
  for (const f of unrecorded) {
    io.err(terminalSafe(`blade: warning: the worktree's removal could not be recorded in run ${f}\n`));
  }
  if (values.json === true) {
    json(pruned === undefined ? { removed } : { removed, worktrees: pruned }, false);
  } else io.out(renderClean(removed, olderThan) + (pruned === undefined ? "" : renderPrune(pruned)));
  return unrecorded.length === 0 ? 0 : 1;
}

async function tasksCancel({ admin, values, io, ids, json }: TasksRun): Promise<number> {
  if (ids.length === 0) throw usageError("blade tasks cancel needs at least one task id.");
  const outcomes = [];
  for (const id of ids) outcomes.push(await admin.cancel(id));
  if (values.json === true) json(outcomes.map(cancelJson));
  else for (const o of outcomes) io.out(renderCancel(o));
  return 0;
}
