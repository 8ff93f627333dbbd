// Owns starting a run's MCP servers from the command line's view: `--mcp-config` / `--strict-mcp-config`
// plus the configured sources (lib/mcp/sources.ts), problems reported as warnings on stderr, the
// servers' tokens added to the run's redaction. Nothing of the SDK loads when no server is configured.

import type { App } from "../app.ts";
import { terminalSafe } from "./sanitize.ts";
import type { Io } from "./io.ts";
import type { McpHub } from "../mcp/hub.ts";
import { type McpOpened, type McpOpenOptions, openMcp } from "../mcp/setup.ts";
import { claudeJsonPath } from "../config/claude_dir.ts";

export interface McpFlags {
  mcpConfig: string[];
  strict: boolean;
  /** The Agent SDK's servers from its initialize request (cli/sdk_session.ts). */
  extraLayers?: McpOpenOptions["extraLayers"];
  sdkServers?: McpOpenOptions["sdkServers"];
}

// deno-lint-ignore no-explicit-any
export function mcpFlagsOf(values: Record<string, any>): McpFlags {
  return {
    mcpConfig: (values["mcp-config"] as string[] | undefined) ?? [],
    // --bare: no MCP servers from files, only --mcp-config (docs/guides/memory.md).
    strict: values["strict-mcp-config"] === true || values.bare === true,
  };
}

/**
 * Starts the run's servers; undefined when none is configured. Failed servers are warnings, not errors.
 * `onDisabled` receives the `.mcp.json` servers the user disabled (`blade mcp list` shows them).
 */
export async function startMcp(
  app: App,
  flags: McpFlags,
  io: Io,
  onDisabled?: (disabled: McpOpened["disabled"]) => void,
): Promise<McpHub | undefined> {
  const opened = await openMcp({
    fs: app.ports.fs,
    env: (name) => app.ports.env.get(name),
    home: app.ports.env.home(),
    claudeJson: claudeJsonPath(app.ports.env),
    workspace: app.workspace,
    trusted: app.trust.trusted,
    userConfigFile: app.layout.configFile,
    mcpConfig: flags.mcpConfig,
    strict: flags.strict,
    cwd: app.ports.env.cwd(),
    disabledProject: app.claude.disabledMcpjsonServers,
    // A server's stderr is server-controlled text: redacted, and terminal-safe like any other.
    ...(app.config.debug
      ? { debug: (line: string) => io.err(`[debug] ${terminalSafe(app.redact(line))}\n`) }
      : {}),
    onSecrets: (secrets) => app.addSecrets(secrets),
    ...(flags.extraLayers === undefined ? {} : { extraLayers: flags.extraLayers }),
    ...(flags.sdkServers === undefined ? {} : { sdkServers: flags.sdkServers }),
  });
  onDisabled?.(opened.disabled);
  // MCP configurations and servers are file- and server-controlled: their text is made terminal-safe.
  const say = (line: string) => io.err(terminalSafe(app.redact(line)));
  for (const d of opened.diagnostics) say(`blade: ${d.level}: ${d.origin}: ${d.message}\n`);
  for (const s of opened.hub?.status() ?? []) {
    if (s.status === "failed" && s.type !== "invalid") {
      say(
        `blade: warning: MCP server "${s.name}" is not available (its tools are left out): ${
          s.error ?? ""
        }\n`,
      );
    }
    for (const l of s.leftOut ?? []) {
      say(`blade: warning: MCP server "${s.name}": tool "${l.tool}" is left out: ${l.reason}\n`);
    }
  }
  return opened.hub;
}
