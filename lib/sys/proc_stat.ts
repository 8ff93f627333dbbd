// Parses /proc/<pid>/stat (Linux): the text is split after the last `)`, since the command name in
// field 2 may itself contain `)` and spaces. Pure; the reading is in process.ts.

/** Field 3 (state, e.g. R, S, Z) of /proc/<pid>/stat. */
export function parseProcStatState(stat: string): string | undefined {
  return stat.slice(stat.lastIndexOf(")") + 1).trim()[0];
}

/** Field 22 (starttime) of /proc/<pid>/stat; the text is split after the last `)`. */
export function parseProcStatStartTime(stat: string): string | null {
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  const fields = stat.slice(close + 1).trim().split(/\s+/);
  // After ")" the first field is field 3 (state); field 22 is index 22 - 3 = 19.
  const v = fields[19];
  return v !== undefined && /^\d+$/.test(v) ? v : null;
}

/** ppid and process group of a process from /proc/<pid>/stat (fields 4 and 5). */
export function parseProcStatParent(stat: string): { ppid: number; pgrp: number } | null {
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  const fields = stat.slice(close + 1).trim().split(/\s+/);
  const ppid = Number(fields[1]);
  const pgrp = Number(fields[2]);
  return Number.isInteger(ppid) && Number.isInteger(pgrp) ? { ppid, pgrp } : null;
}

/**
 * Whether `pid` (with /proc stat text `stat`, null when gone) is a direct child of `self` that
 * leads its own process group: "leader"; a direct child still in another group: "not-yet" (setsid
 * has not run yet); anything else: "other".
 */
export function groupLeaderState(
  stat: string | null,
  self: number,
  pid: number,
): "leader" | "not-yet" | "other" {
  const parent = stat === null ? null : parseProcStatParent(stat);
  if (parent === null || parent.ppid !== self) return "other";
  return parent.pgrp === pid ? "leader" : "not-yet";
}
