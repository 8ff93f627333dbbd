// Owns where a session may read without asking (docs/guides/permissions.md "Reads outside the
// workspace"): inside its readable roots (the workspace, `--add-dir` folders, Blade's worktrees) a read
// is a read; anywhere else it needs approval (interactive) or an allow rule (print mode), as in Claude
// Code; and the folders that hold credentials — `~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.config/gh` — and
// Blade's own storage are refused unless an allow rule with a path names them. The gate asks this
// module for Read, Grep and Glob; the child's Deno read grant enforces its own narrower set again.
// Pure: paths arrive canonical.

import { isAbsolute, join, relative } from "../path.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";

/** Folders under the home folder that hold credentials: no read without a rule that names them. */
export const CREDENTIAL_FOLDERS: readonly string[] = [".ssh", ".aws", ".gnupg", ".config/gh"];

/** Where one session reads freely, and what it never reads without a rule (canonical absolute paths). */
export interface ReadScope {
  roots: readonly string[];
  denied: readonly string[];
}

/**
 * The read scope of a session: its workspace, its `--add-dir` folders and `<storage>/worktrees` (the
 * checkouts of isolated children, which Task results point to) are readable; the credential folders of
 * `home` and the rest of the storage root (other projects' transcripts, sidecars, trust) are refused.
 */
export function readScope(o: {
  workspaceRoot: string;
  additionalDirs?: readonly string[];
  storageRoot: string;
  home?: string;
}): ReadScope {
  return {
    roots: [o.workspaceRoot, ...o.additionalDirs ?? [], join(o.storageRoot, "worktrees")],
    denied: [...(o.home === undefined ? [] : CREDENTIAL_FOLDERS.map((f) => join(o.home!, f))), o.storageRoot],
  };
}

function within(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

export type ReadVerdict =
  | { kind: "inside" }
  | { kind: "outside" }
  | { kind: "denied"; folder: string };

/** Where `path` is for this scope: inside a root, in a refused folder, or elsewhere outside. */
export function placeRead(scope: ReadScope, path: string): ReadVerdict {
  if (scope.roots.some((r) => within(r, path))) return { kind: "inside" };
  const folder = scope.denied.find((d) => within(d, path));
  return folder === undefined ? { kind: "outside" } : { kind: "denied", folder };
}

/**
 * Why a read of `path` outside the session's roots is refused, or undefined when it may run. `named`:
 * an allow rule with a path specifier approves this very path; `allowed`: any allow rule approves the
 * call (a bare `Read` too). A credential folder or Blade's storage needs `named`; elsewhere outside,
 * `allowed` or mode yolo does. `askable` is false for the refused folders.
 */
export function readRefusal(
  scope: ReadScope,
  call: { name: string; path: string; mode: PermissionMode; allowed: boolean; named: boolean },
): { message: string; askable: boolean } | undefined {
  const place = placeRead(scope, call.path);
  if (place.kind === "inside") return undefined;
  // `//p` is an absolute path in the rule grammar.
  const rule = `--allowed-tools "Read(/${call.path})"`;
  if (place.kind === "denied") {
    if (call.named) return undefined;
    return {
      message: `${call.name} on ${call.path} is refused: ${place.folder} holds credentials or Blade's own ` +
        `records, which are never read unless an allow rule names them, e.g. ${rule}.`,
      askable: false,
    };
  }
  if (call.allowed || call.mode === "yolo") return undefined;
  return {
    message: `${call.name} on ${call.path} needs approval: it is outside the workspace and the --add-dir ` +
      `folders, and print mode cannot ask. Allow it with a rule, e.g. ${rule}, or --add-dir its folder.`,
    askable: true,
  };
}
