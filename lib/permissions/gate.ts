// Owns the permission gate the loop consults before every tool call (docs/guides/permissions.md):
// Workspace Trust, the permission mode and the rules (--allowed-tools, --disallowed-tools, settings,
// an agent's tool rules), in one grammar (protocol/tool_rule.ts). Deny rules win and apply in
// untrusted folders too. Pure; no I/O: the loop resolves a call's real path before asking. The Deno
// permission set of a child (deno_permissions.ts) enforces the same decisions a second time.

import type { ToolKind } from "../protocol/tool_kind.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import {
  allowedBy,
  allowRefusal,
  checkRules,
  ruleCovers,
  ruleMatches,
  type RuleScope,
  type RuleSet,
  type RuleTarget,
  type ToolRule,
} from "../protocol/tool_rule.ts";
import { protectedCommandTarget, protectedFolderOf, protectedPathReason } from "./protected_paths.ts";
import { readRefusal, type ReadScope } from "./read_scope.ts";
import { isInside } from "../path.ts";
import { allowingRule } from "./allowing_rule.ts";
import { isReadOnlyCommand } from "./read_only_commands.ts";
import { plainCommandWords } from "../shell/command_line.ts";

export interface GateInput {
  name: string;
  kind: ToolKind;
  input: Record<string, unknown>;
  /** The real absolute path of the call's path argument, when the tool has one. */
  path?: string;
  trusted: boolean;
  mode: PermissionMode;
  rules: RuleSet;
  /**
   * The `tools` rules of this agent and of every agent above it (`tools: Bash(git:*)`), one layer per
   * agent (permissions/ceiling.ts childRulesOf): when rules of a layer name this tool (an `Edit` rule
   * names Write too), the call must match one of them, in every layer. They narrow; they approve nothing.
   */
  limits?: readonly (readonly ToolRule[])[];
  scope: RuleScope;
  /** The run's `--add-dir` folders: read-only commands may name them as they name the workspace. */
  additionalDirs?: readonly string[];
  /** An external (MCP) tool its server marks read-only. */
  readOnly?: boolean;
  /** Blade's storage root: the one place tools may write in an untrusted workspace (tools/paths.ts). */
  storageRoot?: string;
  /** Where reads need no approval and what they never reach (read_scope.ts); absent: reads anywhere. */
  reads?: ReadScope;
}

export type GateDecision = {
  allow: true;
  /** A read-only command allowed without a rule (read_only_commands.ts): it runs in the read-only sandbox profile. */
  readOnlyCommand?: true;
} | {
  allow: false;
  message: string;
  /** True when an interactive session could ask the user instead of refusing. */
  askable: boolean;
  /** The allow rule that would approve this call (allowing_rule.ts), when one would. */
  allowWith?: string;
};

export function decide(g: GateInput): GateDecision {
  const target: RuleTarget = {
    tool: g.name,
    input: g.input,
    ...(g.path === undefined ? {} : { path: g.path }),
  };
  const subject = describeCall(g);
  const verdict = checkRules(g.rules, target, g.scope);
  if (verdict.verdict === "deny") {
    return deny(`${subject} matches the deny rule ${verdict.rule.text}${verdict.why ?? ""}.`, false);
  }
  for (const layer of g.limits ?? []) {
    const limits = layer.filter((r) => ruleCovers(r, g.name));
    const outside = limits.length > 0 ? allowRefusal(limits, target, g.scope) : undefined;
    if (outside !== undefined) {
      return deny(
        `${subject} is outside the tools this agent, or an agent that delegated to it, was given ` +
          `(${limits.map((r) => r.text).join(", ")})${outside === "" ? "" : `: ${outside}`}.`,
        false,
      );
    }
  }
  if (g.kind === "read" || g.kind === "delegate") {
    if (verdict.verdict === "ask") return askRule(subject, verdict.rule, verdict.why);
    const outside = readOutside(g, { target, allowed: verdict.verdict === "allow" });
    if (outside !== undefined) return outside;
    return { allow: true };
  }
  // Nothing is asked that the tool would refuse anyway: an untrusted workspace takes no writes either
  // (only Blade's storage, tools/paths.ts), whatever the mode or the rules.
  const storageWrite = g.kind === "write" && g.path !== undefined && g.storageRoot !== undefined &&
    isInside(g.path, g.storageRoot);
  if ((g.kind === "execute" || (g.kind === "write" && !storageWrite)) && !g.trusted) {
    return deny(
      `${g.name} is refused: this workspace is not trusted. Run \`blade trust\` in it (/trust in the interactive ` +
        `session, or pass --trust-workspace) first.`,
      false,
    );
  }
  const mcp = untrustedExternal(g, verdict.verdict === "allow");
  if (mcp !== undefined) return mcp;
  if (g.kind === "external" && g.mode === "plan" && g.readOnly !== true) {
    // Plan mode is default mode restricted to read-only tools: never wider than default.
    return deny(`${g.name} is not available in plan mode: its MCP server does not mark it read-only.`, false);
  }
  // Read-only commands need no rule in any mode (a deny or ask rule still decides first).
  if (g.name === "Bash" && verdict.verdict === "none" && g.mode !== "yolo" && readOnlyCall(g)) {
    return { allow: true, readOnlyCommand: true };
  }
  if (g.mode === "plan" && g.kind !== "external" && g.kind !== "network") {
    return deny(`${g.name} is not available in plan mode (read-only).`, false);
  }
  if (verdict.verdict === "ask") return askRule(subject, verdict.rule, verdict.why);
  const allowed = verdict.verdict === "allow";
  if (g.kind === "write" && g.path !== undefined && g.mode !== "yolo") {
    const folder = protectedFolderOf(g.path, g.scope.workspaceRoot);
    const reason = protectedPathReason(g.path, g.scope.workspaceRoot);
    // Only an allow rule that names the protected path approves it: not a bare `Write`, not `Edit(**)`.
    if (
      reason !== undefined &&
      !g.rules.allow.some((r) => namesPath(r, { folder: folder!, target, scope: g.scope }))
    ) {
      return withRule(
        deny(
          `${g.name} may not write ${g.path}: ${reason}. Such writes need permission mode yolo or an ` +
            `explicit allow rule such as --allowed-tools "Edit(${
              relativeHint(g.path, g.scope.workspaceRoot)
            })".`,
          true,
        ),
        g,
      );
    }
  }
  if (g.name === "Bash" && g.mode !== "yolo" && allowed) {
    const refusal = protectedCommand(g);
    if (refusal !== undefined) return refusal;
  }
  if (g.mode === "yolo" || allowed) return { allow: true };
  if (g.kind === "write" && (g.mode === "autoEdit" || g.mode === "auto")) return { allow: true };
  const why = verdict.verdict === "none" && verdict.why !== undefined && verdict.why !== ""
    ? ` The allow rules do not approve it: ${verdict.why}.`
    : "";
  return withRule(deny(`${unapproved(g)}${why}`, g.mode !== "dontAsk"), g);
}

/**
 * Whether a Bash call is exactly one command of the read-only list, as the real bash parse reads it
 * (the caller loaded the parser; without it, nothing is read-only), in the foreground.
 */
function readOnlyCall(g: GateInput): boolean {
  if (typeof g.input.command !== "string" || g.input.run_in_background === true) return false;
  let words: string[] | undefined;
  try {
    words = plainCommandWords(g.input.command);
  } catch {
    return false;
  }
  return words !== undefined && isReadOnlyCommand(words, {
    workspaceRoot: g.scope.workspaceRoot,
    ...(g.additionalDirs === undefined ? {} : { additionalDirs: g.additionalDirs }),
  });
}

/** The refusal with the rule that would approve the call (print mode names it on stderr). */
function withRule(d: GateDecision, g: GateInput): GateDecision {
  const rule = allowingRule({
    name: g.name,
    input: g.input,
    ...(g.path === undefined ? {} : { path: g.path }),
    workspaceRoot: g.scope.workspaceRoot,
  });
  return d.allow || rule === undefined ? d : { ...d, allowWith: rule };
}

/**
 * Why a search (Grep, Glob) approved for a folder may not read or list `path` below it: a deny or ask
 * rule that names the path (`Read(./secrets/**)`). Nothing asks during a walk, so ask means skip.
 */
export function searchRefusal(
  rules: RuleSet,
  tool: string,
  path: string,
  scope: RuleScope,
): string | undefined {
  const verdict = checkRules(
    { deny: rules.deny, ask: rules.ask, allow: [] },
    { tool, input: {}, path },
    scope,
  );
  return verdict.verdict === "deny" || verdict.verdict === "ask"
    ? `the ${verdict.verdict} rule ${verdict.rule.text}`
    : undefined;
}

/**
 * A rule-approved Bash command that names a protected path (or sets git config) still needs approval,
 * unless a bare `Bash` rule or a rule naming it (`Bash(cp hook .git/hooks/pre-commit)`, `Bash(git config:*)`)
 * approved it: a prefix rule such as `Bash(cp:*)` was not written with `.git/hooks` in mind.
 */
function protectedCommand(g: GateInput): GateDecision | undefined {
  const command = typeof g.input.command === "string" ? g.input.command : "";
  const target = protectedCommandTarget(command, g.scope.workspaceRoot);
  if (target === undefined) return undefined;
  // A bare `Bash` rule, or one that names the path and itself approves the command (not merely a rule
  // whose text happens to contain `.git`).
  const call = { tool: g.name, input: g.input };
  const explicit = g.rules.allow.some((r) =>
    ruleCovers(r, "Bash") &&
    (r.specifier === undefined || (r.specifier.includes(target.named) && allowedBy([r], call, g.scope)))
  );
  if (explicit) return undefined;
  return deny(
    `${describeCall(g)} may write ${target.path}: ${target.reason}. An allow rule that does not name ` +
      `${target.named} does not approve it: such commands need your approval, permission mode yolo, or ` +
      `an allow rule naming the path, e.g. --allowed-tools ${JSON.stringify(`Bash(${command.trim()})`)}.`,
    g.mode !== "dontAsk",
  );
}

/**
 * An MCP tool may change anything, an untrusted workspace included: there no mode (a settings
 * `defaultMode: bypassPermissions` least of all) runs one its server does not mark read-only; an allow
 * rule naming it, or the person's approval, does (the other modes ask). A print run's command-line grant
 * (permissions/command_line_grant.ts) counts as trust here, as for writes and commands.
 */
function untrustedExternal(g: GateInput, allowed: boolean): GateDecision | undefined {
  if (g.kind !== "external" || g.readOnly === true || g.trusted || allowed || g.mode !== "yolo") {
    return undefined;
  }
  return deny(
    `${g.name} (an MCP tool its server does not mark read-only) is refused: this workspace is not trusted, ` +
      `so no permission mode runs it. Allow it by name (--allowed-tools "${g.name}") or trust the workspace ` +
      `(\`blade trust\`, --trust-workspace).`,
    false,
  );
}

/** A read outside the session's roots: approval, or a rule naming it for credential folders (read_scope.ts). */
function readOutside(
  g: GateInput,
  o: { target: RuleTarget; allowed: boolean },
): GateDecision | undefined {
  const { target, allowed } = o;
  if (g.kind !== "read" || g.path === undefined || g.reads === undefined) return undefined;
  const named = g.rules.allow.some((r) =>
    r.specifier !== undefined && ruleCovers(r, g.name) && ruleMatches(r, target, g.scope, "allow")
  );
  const refusal = readRefusal(g.reads, { name: g.name, path: g.path, mode: g.mode, allowed, named });
  return refusal === undefined ? undefined : deny(refusal.message, refusal.askable);
}

/** Whether allow rule `r` approves `target` with a specifier that names the protected `folder`. */
function namesPath(r: ToolRule, o: { folder: string; target: RuleTarget; scope: RuleScope }): boolean {
  const { folder, target, scope } = o;
  return r.specifier !== undefined && r.specifier.includes(folder) && ruleCovers(r, target.tool) &&
    ruleMatches(r, target, scope, "allow");
}

function unapproved(g: GateInput): string {
  if (g.kind === "network") {
    const rule = allowingRule({ name: g.name, input: g.input, workspaceRoot: g.scope.workspaceRoot }) ??
      g.name;
    const how = g.mode === "dontAsk"
      ? `is not pre-approved by an allow rule, and permission mode "dontAsk" refuses everything else`
      : `needs approval in permission mode "${g.mode}", and print mode cannot ask`;
    return `${describeCall(g)} ${how}. Re-run with --allowed-tools "${rule}" (or permission mode yolo).`;
  }
  if (g.mode === "auto") {
    // Claude Code's auto mode asks its server-side safety classifier here; Blade has none.
    return `${describeCall(g)} needs auto mode's safety check, which Blade does not have: permission mode ` +
      `"auto" runs edits and read-only commands only. Re-run with another permission mode or an allow rule ` +
      `(--allowed-tools "${g.name}").`;
  }
  if (g.kind === "external") {
    return `${g.name} (an MCP tool) needs approval in permission mode "${g.mode}", and print mode cannot ask. ` +
      `Re-run with --allowed-tools "${g.name}" (or "${serverRule(g.name)}" for every tool of its server).`;
  }
  const flag = g.kind === "write"
    ? `--permission-mode autoEdit (Claude Code: acceptEdits) or --allowed-tools ${g.name}`
    : `--permission-mode yolo (Claude Code: bypassPermissions) or --allowed-tools "${g.name}"`;
  if (g.mode === "dontAsk") {
    return `${g.name} is not pre-approved by an allow rule, and permission mode "dontAsk" refuses everything ` +
      `else. Add an allow rule (--allowed-tools, settings permissions.allow) or re-run with ${flag}.`;
  }
  return `${g.name} needs approval in permission mode "${g.mode}", and print mode cannot ask. Re-run with ${flag}.`;
}

function serverRule(name: string): string {
  const end = name.indexOf("__", "mcp__".length);
  return end < 0 ? name : `${name.slice(0, end)}__*`;
}

function askRule(subject: string, rule: ToolRule, why = ""): GateDecision {
  return deny(`${subject} matches the ask rule ${rule.text}${why}, and print mode cannot ask.`, true);
}

function describeCall(g: GateInput): string {
  if (typeof g.input.command === "string") return `${g.name} command ${JSON.stringify(g.input.command)}`;
  if (g.path !== undefined) return `${g.name} on ${g.path}`;
  if (typeof g.input.subagent_type === "string") return `${g.name} of agent type "${g.input.subagent_type}"`;
  if (g.name === "WebFetch" && typeof g.input.url === "string") {
    return `${g.name} of ${JSON.stringify(g.input.url.slice(0, 500))}`;
  }
  if (g.name === "WebSearch" && typeof g.input.query === "string") {
    return `${g.name} for ${JSON.stringify(g.input.query.slice(0, 500))}`;
  }
  return g.name;
}

function relativeHint(path: string, root: string): string {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix) ? `${path.slice(prefix.length)}` : `//${path.replace(/^\/+/, "")}`;
}

function deny(message: string, askable: boolean): GateDecision {
  return { allow: false, message: `Permission denied: ${message}`, askable };
}
