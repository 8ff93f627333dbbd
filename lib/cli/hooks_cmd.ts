// Owns `blade hooks list [--json]` (docs/guides/hooks.md): the hooks this folder's runs would fire —
// from the settings layers (user; project and local only in a trusted folder; `--settings`) and from
// agent files' `hooks:` (each for that agent's runs) — each with its event, matcher, command, timeout
// and where it came from. An untrusted folder's project hooks are listed apart, as not run. The
// Agent SDK's callbacks exist only inside an SDK session, so they are not listed here.

import { hookTimeoutSeconds } from "../hooks/hook_timeout.ts";
import { parseArgs } from "./parse_args.ts";
import { jsonTerminalSafe, terminalSafe } from "./sanitize.ts";
import type { Ports } from "../sys/mod.ts";
import { usageError } from "../errors.ts";
import { createApp } from "../app.ts";
import type { Io } from "./io.ts";
import { parseOrUsage } from "./args.ts";
import { claudeArgv } from "./claude_argv.ts";
import { settingsHooks } from "./hook_wiring.ts";
import { type HookEntry, hooksOf } from "../protocol/hook_config.ts";
import { readJsonFile } from "../config/json_file.ts";

const HELP = `Usage: blade hooks list [--json] [--settings <file|json>] [--trust-workspace]

Lists the hooks Blade's runs fire in this folder (Claude Code's \`hooks\` format): from
~/.claude/settings.json, .claude/settings.json and .claude/settings.local.json (trusted folders only),
--settings, and agent files' \`hooks:\` (those run only inside that agent's runs). Each hook shows its
event, matcher, command, timeout and the file it came from. In an untrusted folder the project's hooks
are listed as not run.

  --json                 machine-readable output
  --settings <v>         a settings file or JSON text, as for a run
  --trust-workspace      trust this folder for this listing only
`;

/** One listed hook. */
export interface ListedHook {
  event: string;
  matcher: string | null;
  command: string;
  timeoutSeconds: number;
  source: string;
  where: string;
  /** The agent whose runs fire it (agent-file hooks). */
  agent?: string;
}

export async function runHooks(argv: string[], ports: Ports, io: Io): Promise<number> {
  const { values, positionals } = parseOrUsage(() =>
    parseArgs({
      args: claudeArgv(argv),
      options: {
        json: { type: "boolean" },
        settings: { type: "string" },
        "trust-workspace": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    }), "blade hooks");
  if (values.help === true || positionals.length === 0) {
    io.out(HELP);
    return values.help === true ? 0 : 2;
  }
  if (positionals[0] !== "list" || positionals.length > 1) {
    throw usageError(`Unknown hooks command "${positionals.join(" ")}".`, "Use `blade hooks list [--json]`.");
  }
  const app = await createApp(ports, {
    ...(values["trust-workspace"] === true ? { trustWorkspace: true } : {}),
    ...(values.settings === undefined ? {} : { settings: values.settings }),
  });
  const settings = settingsHooks(app);
  const agents: ListedHook[] = [];
  const problems = [...settings.problems];
  for (const agent of (await app.registry()).list()) {
    const read = hooksOf(agent.hooks, { source: "agent", where: agent.path });
    agents.push(...read.hooks.map((h) => ({ ...listed(h), agent: agent.name })));
    problems.push(...read.problems);
  }
  const notRun = app.trust.trusted ? [] : await untrustedProjectHooks(ports, app.workspace);
  const hooks = [...settings.hooks.map(listed), ...agents];
  if (values.json === true) {
    const shown = { trusted: app.trust.trusted, hooks, notRun, problems };
    io.out(jsonTerminalSafe(app.redact(JSON.stringify(shown))) + "\n");
  } else {
    io.out(terminalSafe(app.redact(renderHooks({ hooks, notRun, problems, trusted: app.trust.trusted }))));
  }
  return 0;
}

function listed(h: HookEntry): ListedHook {
  return {
    event: h.event,
    matcher: h.matcher ?? null,
    command: "command" in h.run
      ? h.run.command
      : "prompt" in h.run
      ? `prompt: ${h.run.prompt}`
      : "agent" in h.run
      ? `agent: ${h.run.agent}`
      : `Agent SDK callback ${h.run.callbackId}`,
    timeoutSeconds: hookTimeoutSeconds(h),
    source: h.source,
    where: h.where,
  };
}

/** The hooks of an untrusted folder's own settings files: listed, never run. */
async function untrustedProjectHooks(ports: Ports, workspace: string): Promise<ListedHook[]> {
  const out: ListedHook[] = [];
  for (const [source, file] of [["project", "settings.json"], ["local", "settings.local.json"]] as const) {
    const where = `${workspace}/.claude/${file}`;
    const json = await readJsonFile(ports.fs, where).catch(() => undefined);
    if (typeof json !== "object" || json === null) continue;
    const read = hooksOf((json as Record<string, unknown>).hooks, { source, where });
    out.push(...read.hooks.map(listed));
  }
  return out;
}

/** The listing as text: one block per hook, agent hooks saying whose runs fire them. */
export function renderHooks(
  o: {
    hooks: readonly ListedHook[];
    notRun: readonly ListedHook[];
    problems: readonly string[];
    trusted: boolean;
  },
): string {
  const lines: string[] = [];
  const block = (h: ListedHook) => {
    const matcher = h.matcher === null ? "" : ` ${h.matcher}`;
    const scope = h.agent === undefined ? h.source : `agent ${h.agent}'s runs`;
    lines.push(`${h.event}${matcher}: ${h.command}`);
    lines.push(`  timeout ${h.timeoutSeconds}s · ${scope} · ${h.where}`);
  };
  if (o.hooks.length === 0) lines.push("No hooks configured.");
  for (const h of o.hooks) block(h);
  if (o.notRun.length > 0) {
    lines.push("", "Not run (this folder is not trusted; `blade trust` trusts it):");
    for (const h of o.notRun) block(h);
  }
  for (const p of o.problems) lines.push(`warning: ${p}`);
  return lines.join("\n") + "\n";
}
