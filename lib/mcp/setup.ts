// Owns opening the MCP layer of one run: reads the sources (sources.ts, always), and only when some
// server is configured loads the rest (validation, the SDK) and starts the servers. So a run without
// MCP servers imports nothing of the SDK and starts nothing. Also the session's view of the tools:
// live (list_changed), filtered by a name filter, calling through the hub.

import type { AnyTool, LiveTools } from "../tools/tool.ts";
import { anyServers, type McpSourceOptions, type McpSources, readMcpSources } from "./sources.ts";
import type { McpDiagnostic, McpLayer, McpServerEntry } from "./config.ts";
import type { McpHub, McpToolDescriptor } from "./hub.ts";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

export interface McpOpenOptions extends McpSourceOptions {
  /** Reads a variable (for `${VAR}` expansion and MCP_TIMEOUT / MCP_TOOL_TIMEOUT). */
  env: (name: string) => string | undefined;
  debug?: (line: string) => void;
  /**
   * Receives the configured secrets before any server starts, so that what a server writes while
   * starting (its stderr in `--debug`, an error) is already redacted.
   */
  onSecrets?: (secrets: string[]) => void;
  /** More servers after every other source: the Agent SDK's `mcpServers` of its initialize request. */
  extraLayers?: readonly McpLayer[];
  /** The Agent SDK's in-process servers (`sdkMcpServers` of its initialize), by name, and their transport. */
  sdkServers?: { names: readonly string[]; transport: (server: string) => Transport };
}

export interface McpOpened {
  /** Undefined when no server is configured. */
  hub: McpHub | undefined;
  /** Problems with files and definitions, and bad timeout values. */
  diagnostics: McpDiagnostic[];
  /** Configured secrets (tokens in env and headers) to redact everywhere. */
  secrets: string[];
  /** `.mcp.json` servers not started because the user disabled them (disabledMcpjsonServers). */
  disabled: McpSources["disabled"];
}

/** Reads the configuration; when it names servers, starts them all (each connected or failed). */
export async function openMcp(o: McpOpenOptions): Promise<McpOpened> {
  const sources = await readMcpSources(o);
  sources.layers.push(...o.extraLayers ?? []);
  if (!anyServers(sources) && (o.sdkServers?.names.length ?? 0) === 0) {
    return { hub: undefined, diagnostics: sources.diagnostics, secrets: [], disabled: sources.disabled };
  }
  const [{ resolveServers, secretsOfServers }, { McpHub, resultCharsFrom, timeoutsFrom }] = await Promise.all(
    [
      import("./config.ts"),
      import("./hub.ts"),
    ],
  );
  const resolved = resolveServers(sources.layers, o.env);
  const { normalizeNamePart } = await import("../protocol/mcp_names.ts");
  for (const name of o.sdkServers?.names ?? []) {
    // An in-process server wins over a configured one that gives the same tool names.
    const key = normalizeNamePart(name);
    resolved.servers = resolved.servers.filter((s) => normalizeNamePart(s.name) !== key);
    resolved.servers.push(sdkEntry(name));
  }
  const { timeouts, warnings: timeoutWarnings } = timeoutsFrom(o.env);
  const { maxResultChars, warnings: outputWarnings } = resultCharsFrom(o.env);
  const warnings = [...timeoutWarnings, ...outputWarnings];
  const secrets = secretsOfServers(resolved.servers);
  o.onSecrets?.(secrets);
  const hub = new McpHub(resolved.servers, {
    cwd: o.workspace,
    timeouts,
    maxResultChars,
    ...(o.debug === undefined ? {} : { debug: o.debug }),
    ...(o.sdkServers === undefined ? {} : { sdkTransport: o.sdkServers.transport }),
  });
  await hub.start();
  return {
    hub,
    diagnostics: [
      ...sources.diagnostics,
      ...resolved.diagnostics,
      ...warnings.map((message) => ({ level: "warning" as const, origin: "environment", message })),
    ],
    secrets,
    disabled: sources.disabled,
  };
}

/** The Agent SDK's in-process server `name` (an unusable name is a failed entry saying why). */
function sdkEntry(name: string): McpServerEntry {
  const origin = "the Agent SDK (createSdkMcpServer)";
  return /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)
    ? { name, source: "sdk", origin, transport: { type: "sdk" } }
    : {
      name,
      source: "sdk",
      origin,
      error: "its name is not a valid MCP server name (letters, digits, _ . -)",
    };
}

/**
 * The hub's tools as Blade tools, live, keeping only those `keep` accepts (a session's or a child's
 * tool filter). The tool modules load with the first call of `tools()`.
 */
export async function liveMcpTools(hub: McpHub, keep: (name: string) => boolean): Promise<LiveTools> {
  const { mcpTool } = await import("./tool_adapter.ts");
  let seen = -1;
  let list: AnyTool[] = [];
  const invoke = (name: string, input: Record<string, unknown>, signal: AbortSignal) =>
    hub.call(name, input, signal);
  return {
    version: () => hub.version,
    gone: (name) => {
      const server = hub.serverOf(name);
      if (server === undefined || !keep(name)) return undefined;
      return mcpTool(
        { bladeName: name, server, name, description: "", inputSchema: { type: "object" }, readOnly: false },
        invoke,
      );
    },
    tools: () => {
      if (seen !== hub.version) {
        seen = hub.version;
        list = hub.tools().filter((t) => keep(t.bladeName)).map((t: McpToolDescriptor) => mcpTool(t, invoke));
      }
      return list;
    },
  };
}

export interface InlineOptions {
  env: (name: string) => string | undefined;
  cwd: string;
  timeouts: McpHub["timeouts"];
  maxResultChars?: number;
  debug?: (line: string) => void;
  /** Receives the inline servers' configured secrets (for redaction). */
  onSecrets?: (secrets: string[]) => void;
}

/** Starts an agent file's inline `mcpServers` (source `agent`), validated and expanded like the others. */
export async function openInlineServers(
  agent: string,
  servers: Record<string, unknown>,
  o: InlineOptions,
): Promise<McpHub> {
  const [{ resolveServers, secretsOfServers }, { McpHub }] = await Promise.all([
    import("./config.ts"),
    import("./hub.ts"),
  ]);
  const resolved = resolveServers([{ source: "agent", origin: `agent "${agent}"`, servers }], o.env);
  o.onSecrets?.(secretsOfServers(resolved.servers));
  for (const d of resolved.diagnostics) o.debug?.(`mcp: ${d.origin}: ${d.message}`);
  const hub = new McpHub(resolved.servers, {
    cwd: o.cwd,
    timeouts: o.timeouts,
    ...(o.maxResultChars === undefined ? {} : { maxResultChars: o.maxResultChars }),
    ...(o.debug === undefined ? {} : { debug: o.debug }),
  });
  await hub.start();
  return hub;
}
