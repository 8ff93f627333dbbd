// Owns the rule that would allow a call the permission gate refused as unapproved (print mode says it
// on stderr, docs/guides/permissions.md): the narrowest rule in the one grammar that approves exactly
// this call: `Bash(<the command>)`, `Edit(/<path>)` for a file write, `WebFetch(domain:<host>)`,
// `Agent(<type>)`, else the tool's name. None when no short rule says it (a multi-line command). Pure.

import { relative, sep } from "../path.ts";
import { urlHost } from "../protocol/url_host.ts";
import { isDelegationTool } from "../protocol/tool_names.ts";

/** Longest command an exact `Bash(…)` rule is suggested for. */
const MAX_COMMAND_CHARS = 300;

export interface RefusedCall {
  name: string;
  input: Record<string, unknown>;
  /** The real path of the call's path argument, when it has one. */
  path?: string;
  workspaceRoot: string;
}

export function allowingRule(call: RefusedCall): string | undefined {
  const { name, input } = call;
  if (name === "Bash") {
    const command = typeof input.command === "string" ? input.command.trim() : "";
    if (command === "" || command.length > MAX_COMMAND_CHARS || /[\n\r()]/.test(command)) return undefined;
    return `Bash(${command})`;
  }
  if (name === "Write" || name === "Edit" || name === "NotebookEdit") {
    if (call.path === undefined) return name;
    const rel = relative(call.workspaceRoot, call.path);
    const inside = rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep);
    return `Edit(${inside ? `/${rel}` : `/${call.path}`})`;
  }
  if (name === "WebFetch") {
    const host = urlHost(input.url);
    return host === undefined ? undefined : `WebFetch(domain:${host})`;
  }
  if (
    isDelegationTool(name) && typeof input.subagent_type === "string" && /^[\w-]+$/.test(input.subagent_type)
  ) {
    return `Agent(${input.subagent_type})`;
  }
  return name;
}
