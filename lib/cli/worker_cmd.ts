// Owns `blade worker` and `blade worker status` (docs/guides/remote.md): parses the command line, opens
// the shared store the worker takes jobs from (`--store`, or the setting `store`; required), builds
// this machine's subagent runtime — its own provider and credentials, its own Worker runner and OS
// sandbox, its own MCP servers (`--mcp-config` and this machine's configuration; never a job's) — and
// runs lib/worker/worker.ts until SIGINT/SIGTERM (running jobs end first). `status` prints every
// registered worker, the jobs it holds with their leases, and the queue's length.

import { parseArgs } from "./parse_args.ts";
import type { Ports } from "../sys/mod.ts";
import { usageError } from "../errors.ts";
import { createApp } from "../app.ts";
import { type Io, redactedIo } from "./io.ts";
import { parseOrUsage, RUN_OPTIONS } from "./args.ts";
import { appFlagsOf } from "./print_flags.ts";
import { terminalSafe } from "./sanitize.ts";
import { mcpFlagsOf, startMcp } from "./mcp_wiring.ts";
import { onInterrupt } from "../sys/signals.ts";
import { parsePermissionMode } from "../protocol/permission_mode.ts";
import { BLADE_TOOL_NAMES } from "../protocol/tool_rule.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import { LEASE_TTL_MS } from "../remote/nats_lease.ts";
import { WORKER_REFRESH_MS } from "../worker/worker.ts";
import type { WorkerStatus } from "../worker/worker_status.ts";

const HELP = `Usage: blade worker --store <url> [options]
       blade worker status --store <url> [--json]

Takes remote children's jobs (isolation: remote, --remote-children) from the shared NATS store and
runs each in this machine's Worker and OS sandbox, with this machine's model credentials. Stops on
Ctrl-C or SIGTERM once its running jobs have ended.

  --store <url>                   the shared store (nats://host:port[,…] or tls://…; setting store)
  --store-creds <file>            its .creds or nkey seed file (setting storeCreds)
  --concurrency <n>               jobs at once (default 2)
  --max-permission-mode <mode>    refuse a job whose permission mode is wider (default acceptEdits)
  --max-tools <a,b,…>             refuse a job whose child may use a tool not listed (default: any)
  --lease-ttl <sec>               a run's lease lasts this long unrenewed (default ${LEASE_TTL_MS / 1000}); a
                                  job is redelivered after twice it without a sign of its worker
  --mcp-config <file|json>        MCP servers this worker's children may use (repeatable), with those of
                                  this machine's ~/.claude.json and settings, as blade -p finds them here;
                                  a job never adds a server (an agent's own mcpServers are not started)
  --strict-mcp-config             only the --mcp-config servers
  plus --provider, --script, --model, --trust-workspace, --debug (see blade --help)

  status [--json]                 the workers, the jobs each holds and their leases, the queue

See docs/guides/remote.md.
`;

function parseWorkerArgs(argv: string[]) {
  return parseOrUsage(() =>
    parseArgs({
      args: argv,
      options: {
        ...RUN_OPTIONS,
        json: { type: "boolean" },
        concurrency: { type: "string" },
        "max-permission-mode": { type: "string" },
        "max-tools": { type: "string" },
        "lease-ttl": { type: "string" },
      },
      allowPositionals: true,
      strict: true,
    }), "blade worker");
}

type WorkerValues = ReturnType<typeof parseWorkerArgs>["values"];

function positive(values: WorkerValues, o: { name: "concurrency" | "lease-ttl"; fallback: number }): number {
  const { name, fallback } = o;
  const text = values[name];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1 || n > 10_000) {
    throw usageError(
      `--${name} must be a whole number from 1 to 10000, not "${text}".`,
      "See blade worker --help.",
    );
  }
  return n;
}

function maxOf(values: WorkerValues) {
  const name = values["max-permission-mode"] ?? "acceptEdits";
  const mode = parsePermissionMode(name);
  if (mode === undefined) {
    throw usageError(
      `Unknown permission mode "${name}".`,
      "Use plan, default, dontAsk, acceptEdits or bypassPermissions.",
    );
  }
  const tools = values["max-tools"]?.split(",").map((t) => t.trim()).filter((t) => t !== "");
  const unknown = tools?.filter((t) => !(BLADE_TOOL_NAMES as readonly string[]).includes(t)) ?? [];
  if (unknown.length > 0) {
    throw usageError(
      `--max-tools names unknown tools: ${unknown.join(", ")}.`,
      `Known: ${BLADE_TOOL_NAMES.join(", ")}.`,
    );
  }
  return tools === undefined ? { mode } : { mode, tools };
}

export async function runWorkerCommand(argv: string[], ports: Ports, io: Io): Promise<number> {
  const { values, positionals } = parseWorkerArgs(argv);
  if (values.help === true) {
    io.out(HELP);
    return 0;
  }
  const [command, ...rest] = positionals;
  if ((command !== undefined && command !== "status") || rest.length > 0) {
    throw usageError(`Unknown worker command "${positionals.join(" ")}".`, "See blade worker --help.");
  }
  const app = await createApp(ports, appFlagsOf(values), {});
  try {
    const shared = app.shared;
    if (shared === undefined) {
      throw usageError(
        "blade worker needs the shared store: pass --store nats://host:port (or set store in ~/.blade/config.json).",
        "See docs/guides/remote.md.",
      );
    }
    if (command === "status") {
      const { workerStatus } = await import("../worker/worker_status.ts");
      const status = await workerStatus(shared, { now: ports.clock.now(), refreshMs: WORKER_REFRESH_MS });
      if (values.json === true) io.out(JSON.stringify(status, null, 2) + "\n");
      else io.out(terminalSafe(renderStatus(status, ports.clock.now())));
      return 0;
    }
    const out = redactedIo(io, app.redact);
    // This machine's MCP servers, as `blade -p` would start them here: the children's only ones.
    const mcp = await startMcp(app, mcpFlagsOf(values), out);
    await using _mcp = { [Symbol.asyncDispose]: async () => await mcp?.close() };
    const stop = new AbortController();
    const dispose = onInterrupt(() => stop.abort());
    const emit = (e: RuntimeEvent) => {
      if (e.type === "runtime_warning") out.err(terminalSafe(`blade worker: warning: ${e.message}\n`));
    };
    await using runtime = app.runtime(emit, {
      ...(mcp === undefined ? {} : { mcp }),
      agentMcpServers: false,
    });
    try {
      const env = await runtime.env();
      const { runWorker } = await import("../worker/worker.ts");
      const concurrency = positive(values, { name: "concurrency", fallback: 2 });
      const { Semaphore } = await import("../run/semaphore.ts");
      const me = await env.ownProcess();
      await runWorker(
        {
          ports,
          layout: app.layout,
          shared,
          env: { ...env, slots: new Semaphore(concurrency) },
          redact: app.redact,
        },
        {
          name: `${me.machine || "worker"}/${me.pid}`,
          concurrency,
          max: maxOf(values),
          leaseTtlMs: positive(values, { name: "lease-ttl", fallback: LEASE_TTL_MS / 1000 }) * 1000,
          signal: stop.signal,
          log: (line) =>
            out.err(terminalSafe(`blade worker: ${new Date(ports.clock.now()).toISOString()} ${line}\n`)),
        },
      );
    } finally {
      dispose();
    }
    return 0;
  } finally {
    await app.close();
  }
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s}s` : `${Math.round(s / 60)}m`;
}

/** The status as text: one block per worker, its jobs with their leases, then the queue. */
export function renderStatus(status: WorkerStatus, now: number): string {
  const lines: string[] = [];
  if (status.workers.length === 0) lines.push("No worker is registered.");
  for (const w of status.workers) {
    const seen = w.stale
      ? `not seen for ${age(now - w.seenAt)} (stopped?)`
      : `seen ${age(now - w.seenAt)} ago`;
    lines.push(
      `${w.name}  machine ${w.machine}  ${w.jobs.length}/${w.concurrency} jobs  max ${w.maxMode}  ${seen}`,
    );
    for (const l of w.leases) {
      const lease = l.holder === null
        ? "no lease"
        : `lease held by ${l.holder.machine} pid ${l.holder.pid}, expires in ${
          age(l.holder.expiresAt - now)
        }`;
      lines.push(`  ${l.agentId}  ${lease}`);
    }
  }
  lines.push(`Jobs queued or running: ${status.queued}`);
  return lines.join("\n") + "\n";
}
