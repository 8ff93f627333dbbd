// Owns finding MCP server definitions the way Claude Code does, lowest precedence first:
// `~/.claude.json` `mcpServers` (user) < Blade's user config `mcpServers` < `<project>/.mcp.json` and
// `<project>/.blade/settings.json` `mcpServers` (trusted folders only) < `~/.claude.json`
// `projects[<project>].mcpServers` (Claude Code's local scope) < each `--mcp-config` in order.
// `--strict-mcp-config` keeps only the `--mcp-config` layers. `.mcp.json` servers the user turned off in
// Claude Code (`disabledMcpjsonServers` in its settings or its project entry) are left out. Small and free of the SDK and zod: this runs on every
// `blade -p`, and when it finds nothing no other MCP module is loaded.

import type { Fs } from "../sys/fs.ts";
import { BladeError } from "../errors.ts";
import type { McpDiagnostic, McpLayer } from "./config.ts";

export interface McpSourceOptions {
  fs: Fs;
  home: string | undefined;
  /** Claude Code's `.claude.json` (in CLAUDE_CONFIG_DIR when set); default `<home>/.claude.json`. */
  claudeJson?: string | undefined;
  /** Canonical project folder. */
  workspace: string;
  trusted: boolean;
  /** Blade's user config file (`<storage>/config.json`). */
  userConfigFile: string;
  /** `--mcp-config` values: a JSON text or a file path (relative to `cwd`), in the order given. */
  mcpConfig: readonly string[];
  strict: boolean;
  /** Where relative `--mcp-config` paths start (the user's working folder). */
  cwd: string;
  /** `.mcp.json` servers not to start: Claude Code settings' `disabledMcpjsonServers`. */
  disabledProject?: readonly string[];
}

export interface McpSources {
  layers: McpLayer[];
  diagnostics: McpDiagnostic[];
  /** `.mcp.json` servers left out because the user disabled them (`disabledMcpjsonServers`). */
  disabled: { name: string; origin: string }[];
}

/** Reads every source; a broken file is a diagnostic, a broken `--mcp-config` a usage error. */
export async function readMcpSources(o: McpSourceOptions): Promise<McpSources> {
  const layers: McpLayer[] = [];
  const diagnostics: McpDiagnostic[] = [];
  const disabled: McpSources["disabled"] = [];
  /** Adds the file's `mcpServers` as a layer; returns the whole parsed file. */
  const fromFile = async (path: string, source: McpLayer["source"]): Promise<unknown> => {
    const text = await readIfExists(o.fs, path);
    if (text === undefined) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      diagnostics.push({
        level: "warning",
        origin: path,
        message: `not valid JSON (${(e as Error).message}); its MCP servers are not loaded`,
      });
      return undefined;
    }
    const servers = serversOf(json);
    if (servers === "invalid") {
      diagnostics.push({
        level: "warning",
        origin: path,
        message: '"mcpServers" must be an object; ignored',
      });
    } else if (servers !== undefined) layers.push({ source, origin: path, servers });
    return json;
  };
  if (!o.strict) {
    const claudeJson = o.claudeJson ?? (o.home === undefined ? undefined : `${o.home}/.claude.json`);
    const claude = claudeJson === undefined ? undefined : await fromFile(claudeJson, "user");
    await fromFile(o.userConfigFile, "user");
    const local = projectEntry(claude, o.workspace);
    if (o.trusted) {
      const mcpJson = `${o.workspace}/.mcp.json`;
      await fromFile(mcpJson, "project");
      const off = new Set([...(o.disabledProject ?? []), ...stringsOf(local, "disabledMcpjsonServers")]);
      const layer = layers.find((l) => l.origin === mcpJson);
      for (const name of Object.keys(layer?.servers ?? {})) {
        if (!off.has(name)) continue;
        delete layer!.servers[name];
        disabled.push({ name, origin: mcpJson });
      }
      await fromFile(`${o.workspace}/.blade/settings.json`, "project");
    }
    const servers = serversOf(local);
    if (claudeJson !== undefined && servers !== undefined && servers !== "invalid") {
      layers.push({ source: "local", origin: `${claudeJson} (projects["${o.workspace}"])`, servers });
    }
  }
  for (const value of o.mcpConfig) layers.push(await flagLayer(o, value));
  return { layers, diagnostics, disabled };
}

/** `obj[key]` when it is a list of strings, else nothing. */
function stringsOf(obj: unknown, key: string): string[] {
  if (typeof obj !== "object" || obj === null) return [];
  const v = (obj as Record<string, unknown>)[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** Whether any source defines at least one server (then the MCP modules are worth loading). */
export function anyServers(sources: McpSources): boolean {
  return sources.layers.some((l) => Object.keys(l.servers).length > 0);
}

async function flagLayer(o: McpSourceOptions, value: string): Promise<McpLayer> {
  const trimmed = value.trim();
  let text = trimmed;
  let origin = "--mcp-config";
  if (!trimmed.startsWith("{")) {
    const path = trimmed.startsWith("/") ? trimmed : `${o.cwd}/${trimmed}`;
    const read = await readIfExists(o.fs, path);
    if (read === undefined) {
      throw new BladeError("usage", `--mcp-config: cannot read ${path}.`, {
        exitCode: 2,
        hint: 'Pass a JSON file path or a JSON text such as \'{"mcpServers":{"name":{"command":"…"}}}\'.',
      });
    }
    text = read;
    origin = path;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new BladeError("usage", `--mcp-config: ${origin} is not valid JSON: ${(e as Error).message}`, {
      exitCode: 2,
      hint:
        'The value must be a JSON object with "mcpServers", e.g. {"mcpServers":{"docs":{"command":"docs-mcp"}}}.',
    });
  }
  const servers = serversOf(json);
  if (servers === undefined || servers === "invalid") {
    throw new BladeError("usage", `--mcp-config: ${origin} has no "mcpServers" object.`, {
      exitCode: 2,
      hint: 'Wrap the servers: {"mcpServers": {"<name>": {"command": "…", "args": []}}}.',
    });
  }
  return { source: "flag", origin, servers };
}

function serversOf(json: unknown): Record<string, unknown> | "invalid" | undefined {
  if (typeof json !== "object" || json === null) return undefined;
  const servers = (json as Record<string, unknown>).mcpServers;
  if (servers === undefined) return undefined;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) return "invalid";
  return servers as Record<string, unknown>;
}

function projectEntry(claude: unknown, workspace: string): unknown {
  if (typeof claude !== "object" || claude === null) return undefined;
  const projects = (claude as Record<string, unknown>).projects;
  if (typeof projects !== "object" || projects === null) return undefined;
  return Object.hasOwn(projects, workspace) ? (projects as Record<string, unknown>)[workspace] : undefined;
}

async function readIfExists(fs: Fs, path: string): Promise<string | undefined> {
  const info = await fs.stat(path);
  if (info === null || !info.isFile) return undefined;
  return await fs.readText(path);
}
