// Owns `blade mcp list [--json]`: the MCP servers this folder's runs would use (sources, precedence and
// trust as for `blade -p`), each started and asked for its tools, then stopped. Text or JSON.

import { parseArgs } from "./parse_args.ts";
import { jsonTerminalSafe, terminalSafe } from "./sanitize.ts";
import type { Ports } from "../sys/mod.ts";
import { usageError } from "../errors.ts";
import { createApp } from "../app.ts";
import type { Io } from "./io.ts";
import { parseOrUsage } from "./args.ts";
import { claudeArgv } from "./claude_argv.ts";
import { mcpFlagsOf, startMcp } from "./mcp_wiring.ts";
import type { McpServerStatus } from "../mcp/hub.ts";

const HELP =
  `Usage: blade mcp list [--json] [--mcp-config <file|json>]… [--strict-mcp-config] [--trust-workspace]

Lists the MCP servers Blade would start in this folder, in Claude Code's precedence (lowest first):
~/.claude.json mcpServers, Blade's config.json mcpServers, .mcp.json and .blade/settings.json (trusted
folders only), ~/.claude.json projects[<folder>].mcpServers, then each --mcp-config. Each server is
started, asked for its tools and stopped. Tools are named mcp__<server>__<tool>.

  --json                 machine-readable output
  --mcp-config <v>       a JSON file or JSON text with "mcpServers" (repeatable)
  --strict-mcp-config    use only the --mcp-config servers
`;

export async function runMcp(argv: string[], ports: Ports, io: Io): Promise<number> {
  const { values, positionals } = parseOrUsage(() =>
    parseArgs({
      args: claudeArgv(argv),
      options: {
        json: { type: "boolean" },
        "mcp-config": { type: "string", multiple: true },
        "strict-mcp-config": { type: "boolean" },
        "trust-workspace": { type: "boolean" },
        debug: { type: "string", short: "d" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    }), "blade mcp");
  if (values.help === true || positionals.length === 0) {
    io.out(HELP);
    return values.help === true ? 0 : 2;
  }
  if (positionals[0] !== "list" || positionals.length > 1) {
    throw usageError(`Unknown mcp command "${positionals.join(" ")}".`, "Use `blade mcp list [--json]`.");
  }
  const app = await createApp(ports, {
    ...(values["trust-workspace"] === true ? { trustWorkspace: true } : {}),
    ...(values.debug === undefined ? {} : { debug: true }),
  });
  let disabled: { name: string; origin: string }[] = [];
  const hub = await startMcp(
    app,
    mcpFlagsOf(values),
    values.json === true ? { ...io, err: () => {} } : io,
    (d) => (disabled = d),
  );
  try {
    const servers = hub?.status() ?? [];
    if (values.json === true) {
      const shown = {
        trusted: app.trust.trusted,
        servers: servers.map((s) => redacted(s, app.redact)),
        ...(disabled.length === 0 ? {} : { disabled }),
      };
      io.out(jsonTerminalSafe(JSON.stringify(shown)) + "\n");
    } else {
      const text = renderText(servers.map((s) => redacted(s, app.redact)), app.trust.trusted);
      const off = disabled.map((d) =>
        `${d.name} (${d.origin}) - disabled (disabledMcpjsonServers), not started\n`
      );
      io.out(terminalSafe(text + off.join("")));
    }
    return 0;
  } finally {
    await hub?.close();
  }
}

function redacted(s: McpServerStatus, redact: (t: string) => string): McpServerStatus {
  return {
    ...s,
    target: redact(s.target),
    ...(s.error === undefined ? {} : { error: redact(s.error) }),
  };
}

function renderText(servers: readonly McpServerStatus[], trusted: boolean): string {
  const note = trusted
    ? ""
    : "\n(This folder is not trusted: its .mcp.json is not read. `blade trust` trusts it.)\n";
  if (servers.length === 0) return `No MCP servers configured.${note === "" ? "\n" : note}`;
  const lines: string[] = [];
  for (const s of servers) {
    const state = s.status === "connected"
      ? `connected, ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}`
      : s.status;
    lines.push(`${s.name} (${s.type}, ${s.source}: ${s.origin}) - ${state}`);
    if (s.target !== "") lines.push(`  ${s.target}`);
    if (s.error !== undefined) lines.push(`  error: ${s.error}`);
    for (const t of s.tools) lines.push(`  ${t.name}${t.readOnly ? " (read-only)" : ""}`);
    for (const l of s.leftOut ?? []) lines.push(`  left out: ${l.tool} (${l.reason})`);
  }
  return lines.join("\n") + "\n" + note;
}
