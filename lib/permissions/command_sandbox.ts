// Owns the OS sandbox of the commands Blade runs for a model (docs/reference/permissions.md "The OS
// sandbox"): which folders a session's commands may write (its workspace, or its worktree and nothing
// of the parent checkout but the git data a commit needs, its --add-dir folders, the temp folder and
// the user's package caches; nothing for a plan-mode or read-only session but a private /tmp), which
// paths inside them stay read-only (.git/hooks, .git/config, .blade, .claude, .mcp.json, Blade's
// storage with its trust file), and whether they reach the network; then that policy as bubblewrap
// arguments (Linux) and as a sandbox-exec profile (macOS). The same inputs as the Worker's Deno
// permission set (deno_permissions.ts), its rules included: an agent limited to `Edit(docs/**)` runs
// commands that may write docs/ only, and a denied folder is bound read-only (write_scope.ts). Pure:
// paths arrive canonical.

import type { PermissionMode } from "../protocol/permission_mode.ts";
import { type PathRules, writeScope } from "./write_scope.ts";

/** What the session is allowed, as the sandbox sees it. */
export interface CommandSandboxInput {
  trusted: boolean;
  mode: PermissionMode;
  /** The session's workspace root (inside its worktree when isolated). */
  workspaceRoot: string;
  additionalDirs?: readonly string[];
  /** The session's git worktree: its root is writable, the parent's checkout read-only. */
  worktree?: {
    worktreeRoot: string;
    parentCheckout: string;
    /** The worktree's git folders (`.git/worktrees/<name>`, and the shared objects, refs, logs) git commit writes. */
    gitWritable: readonly string[];
  } | undefined;
  storageRoot: string;
  /** The system temp folder (TMPDIR, else /tmp). */
  tempDir: string;
  /** The user's package caches that exist (~/.cache, ~/.npm, DENO_DIR): writable for writing sessions. */
  caches?: readonly string[];
  /** Folders a private /tmp must not hide from a read-only session (home, workspace…), readable as they are. */
  keepVisible?: readonly string[];
  /** A read-only auditor: its commands write nothing whatever its mode. */
  readOnly?: boolean;
  /** The commands may use the network (yolo mode, or a rule allowing every command). */
  network: boolean;
  /**
   * The session's deny rules and its agents' `tools` layers: they narrow the writable roots to the
   * folders they name and bind denied folders read-only (write_scope.ts).
   */
  rules?: PathRules | undefined;
  /** The user's home folder, for `~/` in rules. */
  home?: string | undefined;
}

export interface CommandSandboxPolicy {
  /** Folders the commands may write. */
  writable: string[];
  /** Paths bound read-only over the writable folders (the deeper bind wins); missing ones are skipped. */
  readOnly: string[];
  /**
   * A fresh, empty /tmp that vanishes with the command (read-only sessions), with these folders that
   * lie in the real /tmp bound back read-only; undefined = the real temp folder (writable or not).
   */
  privateTmp?: string[];
  network: boolean;
  /** Writable folders the rules named (not whole roots): the caller keeps them only if not symlinks. */
  named?: string[];
  /** Why the rules narrowed the writable folders (write_scope.ts), one line each. */
  notes?: string[];
}

/** Paths inside a writable folder that change what later runs do: read-only for every command. */
export const PROTECTED_NAMES: readonly string[] = [
  ".git/hooks",
  ".git/config",
  ".blade",
  ".claude",
  ".mcp.json",
];

export function commandSandboxPolicy(input: CommandSandboxInput): CommandSandboxPolicy {
  const writes = input.trusted && input.mode !== "plan" && input.readOnly !== true;
  const wt = input.worktree;
  const roots = wt === undefined ? [input.workspaceRoot, ...input.additionalDirs ?? []] : [wt.worktreeRoot];
  // The rules narrow the roots (an agent limited to `Edit(docs/**)`: docs/ only) and deny folders.
  const scope = writes && input.rules !== undefined
    ? writeScope(input.rules, {
      mode: input.mode,
      roots,
      workspaceRoot: input.workspaceRoot,
      home: input.home,
    })
    : undefined;
  const narrowed = scope?.writable ?? roots;
  const writable = writes
    ? unique([...narrowed, ...wt?.gitWritable ?? [], input.tempDir, ...input.caches ?? []])
    : [];
  const protectedPaths = writes
    ? roots.flatMap((root) => PROTECTED_NAMES.map((name) => join(root, name)))
    : [];
  // A worktree's `.git` is a file naming its git folder: rewritten, it would point git elsewhere.
  if (writes && wt !== undefined) protectedPaths.push(join(wt.worktreeRoot, ".git"));
  // Narrowed, the roots themselves are bound read-only, so a writable folder holding them (the temp
  // folder holding a workspace under /tmp) cannot give them back; the named folders, deeper, stay writable.
  const lost = roots.filter((root) => !narrowed.includes(root));
  const readOnly = unique([
    input.storageRoot,
    ...(wt === undefined ? [] : [wt.parentCheckout]),
    ...(writes ? lost : []),
    ...protectedPaths,
    ...scope?.readOnly.map((d) => d.path) ?? [],
  ]);
  if (writes && scope !== undefined && scope.notes.length > 0) {
    const named = narrowed.filter((p) => !roots.includes(p));
    return { writable, readOnly, network: input.network, named, notes: scope.notes };
  }
  if (writes) return { writable, readOnly, network: input.network };
  const visible = [input.workspaceRoot, ...input.additionalDirs ?? [], ...input.keepVisible ?? []];
  const privateTmp = unique(visible.filter((p) => p.startsWith("/tmp/")));
  return { writable, readOnly, privateTmp, network: input.network };
}

/**
 * bubblewrap's arguments for `policy`, up to the command: the root read-only, a fresh /dev and
 * /proc (and /tmp for a read-only session), each writable folder bound writable and each protected
 * path read-only (shallower binds first, so a deeper one wins), a new PID namespace (killing bwrap
 * ends every process inside it, setsid'd or not), --die-with-parent, and no network unless granted.
 */
export function bwrapArguments(policy: CommandSandboxPolicy, cwd: string): string[] {
  const binds = [
    ...(policy.privateTmp ?? []).map((path) => ({ path, args: ["--ro-bind", path, path] })),
    ...policy.writable.map((path) => ({ path, args: ["--bind-try", path, path] })),
    ...policy.readOnly.map((path) => ({ path, args: ["--ro-bind-try", path, path] })),
  ].sort((a, b) => depth(a.path) - depth(b.path) || order(a.args[0]!) - order(b.args[0]!));
  return [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    ...(policy.privateTmp === undefined ? [] : ["--tmpfs", "/tmp"]),
    ...binds.flatMap((b) => b.args),
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    ...(policy.network ? [] : ["--unshare-net"]),
    "--die-with-parent",
    "--chdir",
    cwd,
    "--",
  ];
}

/**
 * The same policy as a macOS sandbox-exec (Seatbelt) profile: everything allowed but writing
 * outside the writable folders, writing the protected paths, and (unless granted) the network. A
 * read-only session may write only the per-user temp folders (no private /tmp on macOS).
 */
export function seatbeltProfile(policy: CommandSandboxPolicy): string {
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    '(allow file-write* (literal "/dev/null") (literal "/dev/stdout") (literal "/dev/stderr") (literal "/dev/tty"))',
    ...(policy.privateTmp === undefined ? [] : ['(allow file-write* (subpath "/private/var/folders"))']),
    // The last matching rule wins: shallower first, so a deeper folder's rule decides (as bwrap's binds).
    ...[
      ...policy.writable.map((p) => ({ p, rule: `(allow file-write* (subpath ${quote(p)}))`, o: 0 })),
      ...policy.readOnly.map((p) => ({ p, rule: `(deny file-write* (subpath ${quote(p)}))`, o: 1 })),
    ].sort((a, b) => depth(a.p) - depth(b.p) || a.o - b.o).map((r) => r.rule),
    ...(policy.network
      ? []
      : ["(deny network*)", '(allow network* (remote unix-socket (path-literal "/var/run/mDNSResponder")))']),
  ];
  return `${lines.join("\n")}\n`;
}

/** Binds at one depth: the private /tmp's visible folders, then writable ones, then read-only ones. */
function order(flag: string): number {
  return flag === "--ro-bind" ? 0 : flag === "--bind-try" ? 1 : 2;
}

function quote(path: string): string {
  return JSON.stringify(path);
}

function depth(path: string): number {
  return path.split("/").filter((p) => p !== "").length;
}

function join(root: string, name: string): string {
  return `${root.endsWith("/") ? root.slice(0, -1) : root}/${name}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
