// Owns the permission modes (the vocabulary every layer shares: config, registry, store, tools, the gate)
// and the Claude Code name mapping. No I/O. What each mode allows: docs/guides/permissions.md.

/**
 * `default`: writes and Bash need approval (print mode refuses what no rule allows); `dontAsk`: like
 * default but never asks, anything no allow rule approves is refused; `autoEdit`: writes approved;
 * `auto`: Claude Code's auto mode without its server-side safety classifier: writes and read-only
 * commands approved, anything the classifier would have to judge refused (or asked where someone can
 * answer); `yolo`: everything approved; `plan`: read-only.
 */
export type PermissionMode = "default" | "dontAsk" | "autoEdit" | "auto" | "yolo" | "plan";

export const PERMISSION_MODES: readonly PermissionMode[] = [
  "default",
  "dontAsk",
  "autoEdit",
  "auto",
  "yolo",
  "plan",
];

/** Claude Code names (and our own) → Blade modes. */
const ALIASES: Readonly<Record<string, PermissionMode>> = {
  default: "default",
  manual: "default",
  ignore: "default",
  dontAsk: "dontAsk",
  acceptEdits: "autoEdit",
  autoEdit: "autoEdit",
  auto: "auto",
  bypassPermissions: "yolo",
  yolo: "yolo",
  plan: "plan",
};

export const PERMISSION_MODE_NAMES: readonly string[] = Object.keys(ALIASES);

/** Maps a Blade or Claude Code mode name; undefined when the name is not known. */
export function parsePermissionMode(name: string): PermissionMode | undefined {
  return Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined;
}

const CLAUDE_NAMES: Readonly<Record<PermissionMode, string>> = {
  default: "default",
  dontAsk: "dontAsk",
  autoEdit: "acceptEdits",
  auto: "auto",
  yolo: "bypassPermissions",
  plan: "plan",
};

/** Claude Code's name of a mode (stream-json `permissionMode`, the Agent SDK's types). */
export function claudeModeName(mode: PermissionMode): string {
  return CLAUDE_NAMES[mode];
}
