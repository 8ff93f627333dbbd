// Owns what a print-mode run may do in a folder without Workspace Trust (docs/guides/permissions.md
// "Untrusted folders"): Workspace Trust guards what the *repository* supplies (project settings,
// agents, hooks, MCP servers, memory, commands) — that stays unloaded — while a permission the *user*
// gives on the command line for this run applies, as in Claude Code's print mode. So only the command
// line grants: the permission mode counts when a flag gave it (`--permission-mode`,
// `--dangerously-skip-permissions`, or `--settings` text or file the user named), a mode from any
// settings file is capped at `default` (a narrower one still applies: narrowing grants nothing), and
// allow rules count only from `--allowed-tools` and `--settings`; deny and ask rules from every source
// keep applying. With those reductions the gate decides writes and
// commands as in a trusted folder. Pure; table-tested.

import type { PermissionMode } from "../protocol/permission_mode.ts";
import { MODE_ORDER } from "./ceiling.ts";

export interface GrantInput {
  trusted: boolean;
  /** The run's resolved mode (flags over settings). */
  mode: PermissionMode;
  /** Whether a command-line flag gave the mode (`--permission-mode`, `--settings` defaultMode, …). */
  modeFromFlag: boolean;
  /** Settings `permissions.allow` (every settings source). */
  settingsAllow: readonly string[];
  /** The allow rules of `--settings` (named on the command line), part of `settingsAllow`. */
  flagAllow?: readonly string[];
}

export interface Grant {
  /** The mode the run's tools get. */
  mode: PermissionMode;
  /** The settings allow rules that count (none in an untrusted folder). */
  settingsAllow: readonly string[];
  /** Whether tools may write the workspace and run commands (the gate still decides each call). */
  workspace: boolean;
  /** A settings mode wider than `default` that was not honoured, for the run's warning. */
  cappedMode?: PermissionMode;
}

export function commandLineGrant(g: GrantInput): Grant {
  if (g.trusted) return { mode: g.mode, settingsAllow: g.settingsAllow, workspace: true };
  const wider = MODE_ORDER.indexOf(g.mode) > MODE_ORDER.indexOf("default");
  const settingsAllow = g.flagAllow ?? [];
  if (g.modeFromFlag || !wider) return { mode: g.mode, settingsAllow, workspace: true };
  return { mode: "default", settingsAllow, workspace: true, cappedMode: g.mode };
}
