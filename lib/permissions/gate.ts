// Owns the permission gate the loop consults before every tool call (SPEC §2): Workspace Trust, the
// permission mode, and the --allowed-tools / --disallowed-tools rules. Pure; no I/O. The Deno
// permission set of a child (deno_permissions.ts) enforces the same decisions a second time.

import type { ToolKind } from "../tools/tool.ts";
import type { PermissionMode } from "./modes.ts";
import { isMcpToolName, toolNameMatches } from "../protocol/mcp_names.ts";

/** `Name` or `Name(spec)`; for Bash the spec is a command prefix, `git:*` or `npm test*`. */
export interface ToolRule {
  tool: string;
  spec?: string;
}

export function parseToolRules(list: readonly string[]): ToolRule[] {
  const rules: ToolRule[] = [];
  for (const raw of list.flatMap((s) => splitRuleList(s))) {
    const m = /^([A-Za-z][\w-]*\*?)\s*(?:\((.*)\))?$/.exec(raw.trim());
    if (m === null) continue;
    rules.push(m[2] === undefined ? { tool: m[1]! } : { tool: m[1]!, spec: m[2].trim() });
  }
  return rules;
}

/** Splits "Read,Bash(git diff:*) Edit" on commas and spaces outside parentheses. */
function splitRuleList(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || ch === " ")) {
      if (cur.trim() !== "") out.push(cur.trim());
      cur = "";
      continue;
    }
    cur += ch;
  }
  if (cur.trim() !== "") out.push(cur.trim());
  return out;
}

function specMatches(spec: string, input: Record<string, unknown>): boolean {
  const command = typeof input.command === "string" ? input.command.trim() : undefined;
  const path = typeof input.file_path === "string" ? input.file_path : undefined;
  const subject = command ?? path;
  if (subject === undefined) return false;
  const prefix = spec.endsWith(":*") ? spec.slice(0, -2) : spec.endsWith("*") ? spec.slice(0, -1) : undefined;
  if (prefix === undefined) return subject === spec;
  return subject === prefix.trim() || subject.startsWith(prefix.endsWith(" ") ? prefix : `${prefix}`);
}

export function ruleMatches(
  rules: readonly ToolRule[],
  name: string,
  input: Record<string, unknown>,
): boolean {
  return rules.some((r) =>
    toolNameMatches(r.tool, name) &&
    // An MCP rule never has a specifier Blade could check: `mcp__s__t(…)` matches nothing.
    (r.spec === undefined ? true : !isMcpToolName(name) && specMatches(r.spec, input))
  );
}

export interface GateInput {
  name: string;
  kind: ToolKind;
  input: Record<string, unknown>;
  trusted: boolean;
  mode: PermissionMode;
  allowed: readonly ToolRule[];
  /** An external (MCP) tool its server marks read-only. */
  readOnly?: boolean;
}

export type GateDecision = { allow: true } | { allow: false; message: string };

export function decide(g: GateInput): GateDecision {
  switch (g.kind) {
    case "read":
    case "delegate":
      return { allow: true };
    case "write":
      if (g.mode === "plan") return deny(`${g.name} is not available in plan mode (read-only).`);
      if (g.mode === "autoEdit" || g.mode === "yolo" || ruleMatches(g.allowed, g.name, g.input)) {
        return { allow: true }; // the tool itself refuses writes outside the storage root when untrusted
      }
      return deny(
        `${g.name} needs approval in permission mode "default", and print mode cannot ask. ` +
          `Re-run with --permission-mode autoEdit (Claude Code: acceptEdits) or --allowed-tools ${g.name}.`,
      );
    case "execute":
      if (!g.trusted) {
        return deny(
          `${g.name} is refused: this workspace is not trusted. Run \`blade trust\` in it (or pass --trust-workspace) first.`,
        );
      }
      if (g.mode === "plan") return deny(`${g.name} is not available in plan mode (read-only).`);
      if (g.mode === "yolo" || ruleMatches(g.allowed, g.name, g.input)) return { allow: true };
      return deny(
        `${g.name} needs approval in permission mode "${g.mode}", and print mode cannot ask. ` +
          `Re-run with --permission-mode yolo (Claude Code: bypassPermissions) or --allowed-tools "${g.name}".`,
      );
    case "external":
      // Plan mode is default mode restricted to read-only tools: never wider than default.
      if (g.mode === "plan" && g.readOnly !== true) {
        return deny(`${g.name} is not available in plan mode: its MCP server does not mark it read-only.`);
      }
      if (g.mode === "yolo" || ruleMatches(g.allowed, g.name, g.input)) return { allow: true };
      return deny(
        `${g.name} (an MCP tool) needs approval in permission mode "${g.mode}", and print mode cannot ask. ` +
          `Re-run with --allowed-tools "${g.name}" (or "${
            serverRule(g.name)
          }" for every tool of its server).`,
      );
    default: {
      const never: never = g.kind;
      return never;
    }
  }
}

function serverRule(name: string): string {
  const end = name.indexOf("__", "mcp__".length);
  return end < 0 ? name : `${name.slice(0, end)}__*`;
}

function deny(message: string): GateDecision {
  return { allow: false, message: `Permission denied: ${message}` };
}
