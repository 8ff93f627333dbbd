// Owns the names MCP tools carry in Blade (Claude Code's): `mcp__<server>__<tool>`, and which tool
// names a name pattern covers (`mcp__github` and `mcp__github__*` cover every tool of that server).
// Pure; the rule grammar (`Tool(specifier)`) stays in the permission code, which calls this for the
// tool-name part.

export const MCP_PREFIX = "mcp__";

/** Characters a provider accepts in a tool name; anything else becomes `_` (as Claude Code does). */
export function normalizeNamePart(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The name the model sees for `tool` of `server`. */
export function mcpToolName(server: string, tool: string): string {
  return `${MCP_PREFIX}${normalizeNamePart(server)}__${normalizeNamePart(tool)}`;
}

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_PREFIX);
}

/** The (normalised) server part of an MCP tool name, or undefined for other names. */
export function mcpServerOf(name: string): string | undefined {
  if (!isMcpToolName(name)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const end = rest.indexOf("__");
  return end <= 0 ? rest || undefined : rest.slice(0, end);
}

/**
 * Whether the tool-name part of a rule covers `name`. Exact names match themselves; for MCP names,
 * `mcp__server` (Claude Code's server-wide rule) and `mcp__server__*` (or any `mcp__…*` prefix) match
 * every tool of that server. Other patterns never widen: `*` alone or `Bash*` match nothing extra.
 */
export function toolNameMatches(pattern: string, name: string): boolean {
  if (pattern === name) return true;
  if (!isMcpToolName(pattern) || !isMcpToolName(name)) return false;
  if (pattern.endsWith("*")) {
    const prefix = pattern.slice(0, -1);
    return prefix.length > MCP_PREFIX.length && name.startsWith(prefix);
  }
  // A bare server rule: `mcp__github` covers `mcp__github__<tool>`, never `mcp__github2__…`.
  return !pattern.slice(MCP_PREFIX.length).includes("__") && name.startsWith(`${pattern}__`);
}
