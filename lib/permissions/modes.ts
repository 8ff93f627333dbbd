// Owns permission modes (SPEC §2) and the Claude Code name mapping. No I/O.

export type PermissionMode = "default" | "autoEdit" | "yolo" | "plan";

export const PERMISSION_MODES: readonly PermissionMode[] = ["default", "autoEdit", "yolo", "plan"];

/** Claude Code names (and our own) → Blade modes. */
const ALIASES: Readonly<Record<string, PermissionMode>> = {
  default: "default",
  ignore: "default",
  acceptEdits: "autoEdit",
  autoEdit: "autoEdit",
  dontAsk: "yolo",
  bypassPermissions: "yolo",
  yolo: "yolo",
  plan: "plan",
};

export const PERMISSION_MODE_NAMES: readonly string[] = Object.keys(ALIASES);

/** Maps a Blade or Claude Code mode name; undefined when the name is not known. */
export function parsePermissionMode(name: string): PermissionMode | undefined {
  return Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined;
}
