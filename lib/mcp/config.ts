// Owns MCP server definitions in Claude Code's format (`{"mcpServers": {name: {...}}}`): validating
// one entry, `${VAR}` / `${VAR:-default}` expansion, and layering sources (later wins by name). Pure:
// files are read by sources.ts, connections are made by client.ts.

import { z } from "zod";
import { normalizeNamePart } from "../protocol/mcp_names.ts";

/** Where a definition came from, lowest precedence first (see sources.ts). */
export type McpSource = "user" | "project" | "local" | "flag" | "agent" | "sdk";

export type McpTransport =
  | { type: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { type: "http" | "sse"; url: string; headers: Record<string, string> }
  /** An Agent SDK's in-process server (`createSdkMcpServer`), reached over its control channel. */
  | { type: "sdk" };

/** One configured server: usable (`transport`) or not (`error`, shown by `blade mcp list`). */
export interface McpServerEntry {
  name: string;
  source: McpSource;
  /** The file (or `--mcp-config`) that defined it. */
  origin: string;
  transport?: McpTransport;
  error?: string;
  /** Values of secret-named variables (`${API_KEY}`) expanded anywhere in it, `args` and `url` too. */
  secrets?: string[];
}

export interface McpDiagnostic {
  level: "warning" | "error";
  origin: string;
  message: string;
}

/** One source's raw `mcpServers` object. */
export interface McpLayer {
  source: McpSource;
  origin: string;
  servers: Record<string, unknown>;
}

const stringMap = z.record(z.string(), z.string());
const stdioSchema = z.object({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: stringMap.default({}),
}).passthrough();
const remoteSchema = z.object({
  type: z.enum(["http", "sse", "streamable-http"]).optional(),
  url: z.string().min(1),
  headers: stringMap.default({}),
}).passthrough();

const KNOWN_KEYS = new Set(["type", "command", "args", "env", "url", "headers"]);
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Names of variables, env entries and headers whose values are secrets. */
const SECRET_KEY = /token|key|secret|passw|auth|credential|cookie|session|(^|_)pat($|_)/i;

export type EnvLookup = (name: string) => string | undefined;

/**
 * Expands `${VAR}` and `${VAR:-default}` (Claude Code's syntax) in `text`. Unset variables without a
 * default are reported in `missing` and expand to the empty string; the values of secret-named
 * variables (`GITHUB_TOKEN`, `API_KEY`, …) are listed in `secrets`.
 */
export function expandVars(
  text: string,
  lookup: EnvLookup,
): { value: string; missing: string[]; secrets: string[] } {
  const missing: string[] = [];
  const secrets: string[] = [];
  const value = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, def) => {
    const v = lookup(name);
    if (v !== undefined && v !== "" && SECRET_KEY.test(name)) secrets.push(v);
    if (v !== undefined && v !== "") return v;
    if (def !== undefined) return def;
    if (v === undefined) missing.push(name);
    return "";
  });
  return { value, missing, secrets };
}

/** Validates and expands one entry of an `mcpServers` object. */
export function parseServer(
  name: string,
  raw: unknown,
  where: { source: McpSource; origin: string },
  lookup: EnvLookup,
): { entry: McpServerEntry; diagnostics: McpDiagnostic[] } {
  const base = { name, source: where.source, origin: where.origin };
  const diagnostics: McpDiagnostic[] = [];
  const bad = (error: string) => {
    diagnostics.push({ level: "error", origin: where.origin, message: `MCP server "${name}": ${error}` });
    return { entry: { ...base, error }, diagnostics };
  };
  if (!NAME.test(name)) {
    return bad("a server name is 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit");
  }
  const part = normalizeNamePart(name);
  if (part.includes("__") || part.endsWith("_")) {
    return bad(
      `a server name must not contain "__" or end with "_" ('.' counts as '_'): tool names ` +
        `mcp__${part}__<tool> would also read as server "${part.split("__")[0]!.replace(/_$/, "")}", ` +
        "and rules for one server would cover the other. Rename it (e.g. with '-')",
    );
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return bad("the definition must be an object with `command` (stdio) or `url` (http, sse)");
  }
  const obj = raw as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!KNOWN_KEYS.has(key)) {
      diagnostics.push({
        level: "warning",
        origin: where.origin,
        message: `MCP server "${name}": field "${key}" is not supported by Blade and is ignored`,
      });
    }
  }
  const isRemote = obj.url !== undefined || obj.type === "http" || obj.type === "sse";
  const parsed = isRemote ? remoteSchema.safeParse(obj) : stdioSchema.safeParse(obj);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? `field "${issue.path.join(".")}"` : "definition";
    return bad(`${field}: ${issue.message}`);
  }
  const missing = new Set<string>();
  const secrets = new Set<string>();
  const x = (s: string) => {
    const r = expandVars(s, lookup);
    for (const m of r.missing) missing.add(m);
    for (const v of r.secrets) secrets.add(v);
    return r.value;
  };
  const xMap = (m: Record<string, string>) =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, x(v)]));
  let transport: McpTransport;
  if (isRemote) {
    const d = parsed.data as z.infer<typeof remoteSchema>;
    const url = x(d.url);
    transport = { type: d.type === "sse" ? "sse" : "http", url, headers: xMap(d.headers) };
    if (missing.size === 0 && !/^https?:\/\//i.test(url)) return bad(`url "${url}" is not an http(s) URL`);
  } else {
    const d = parsed.data as z.infer<typeof stdioSchema>;
    transport = { type: "stdio", command: x(d.command), args: d.args.map(x), env: xMap(d.env) };
  }
  if (missing.size > 0) {
    return bad(
      `missing environment variable${missing.size > 1 ? "s" : ""} ${[...missing].join(", ")} ` +
        "(set it, or give a default with ${VAR:-default})",
    );
  }
  return {
    entry: { ...base, transport, ...(secrets.size === 0 ? {} : { secrets: [...secrets] }) },
    diagnostics,
  };
}

/**
 * Layers the sources (lowest precedence first): a later definition of a name replaces an earlier one.
 * Names that differ but give the same tool prefix (`my.server` and `my_server`) are reported, later wins.
 */
export function resolveServers(
  layers: readonly McpLayer[],
  lookup: EnvLookup,
): { servers: McpServerEntry[]; diagnostics: McpDiagnostic[] } {
  const byKey = new Map<string, McpServerEntry>();
  const diagnostics: McpDiagnostic[] = [];
  for (const layer of layers) {
    for (const [name, raw] of Object.entries(layer.servers)) {
      const r = parseServer(name, raw, layer, lookup);
      diagnostics.push(...r.diagnostics);
      const key = normalizeNamePart(name);
      const earlier = byKey.get(key);
      if (earlier !== undefined && earlier.name !== name) {
        diagnostics.push({
          level: "warning",
          origin: layer.origin,
          message:
            `MCP servers "${earlier.name}" and "${name}" give the same tool names (mcp__${key}__…); "${name}" wins`,
        });
      }
      byKey.delete(key); // re-insert so the order follows the winning definition
      byKey.set(key, r.entry);
    }
  }
  return { servers: [...byKey.values()], diagnostics };
}

/**
 * Configured secrets of the servers, redacted from every record: env values and headers whose name
 * says they are secret (`GITHUB_TOKEN`, `Authorization`, `X-Api-Key`, …), and a bearer token alone.
 */
export function secretsOfServers(servers: readonly McpServerEntry[]): string[] {
  const out = new Set<string>();
  for (const s of servers) {
    for (const v of s.secrets ?? []) if (v.length >= 8) out.add(v);
    const t = s.transport;
    if (t === undefined || t.type === "sdk") continue;
    const pairs = Object.entries(t.type === "stdio" ? t.env : t.headers);
    for (const [key, v] of pairs) {
      if (!SECRET_KEY.test(key)) continue;
      for (const part of [v, v.replace(/^(Bearer|Basic|token)\s+/i, "")]) if (part.length >= 8) out.add(part);
    }
  }
  return [...out];
}
