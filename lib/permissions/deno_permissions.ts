// Owns the Deno permission set a child run executes with (docs/reference/permissions.md "Deno permissions mirror trust and
// permission mode") and its two renderings: Worker `deno.permissions` and scoped `--allow-*` flags.
// Pure: no I/O; paths arrive canonical (real, absolute). Does not approve tool calls (the permission
// gate does) and does not resolve symlinks: Deno checks the path as given, so tools must resolve
// paths themselves (lib/tools/paths.ts).

import { BladeError } from "../errors.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { type PathRules, writeScope } from "./write_scope.ts";

/** `false` = nothing, `true` = everything (only Blade's own process), a list = exactly those. */
export type Grant = boolean | string[];

/** One permission set, shaped like Worker `deno.permissions` (every kind explicit, nothing inherited). */
export interface DenoPermissionSet {
  read: Grant;
  write: Grant;
  net: Grant;
  env: Grant;
  run: Grant;
  sys: Grant;
  ffi: false;
  /** `false` denies remote module imports; absent leaves Deno's default (only Blade's own process). */
  import?: false;
}

export interface ChildPermissionInput {
  trusted: boolean;
  mode: PermissionMode;
  /** The child's resolved tool names (after its allow and deny lists). */
  tools: readonly string[];
  /** The child's workspace root: the worktree path when isolated. */
  workspaceRoot: string;
  /**
   * The run's `--add-dir` folders: read like the workspace, and written like it unless `isolated`
   * (a child in a git worktree writes only its worktree).
   */
  additionalDirs?: readonly string[];
  /** The child works in its own git worktree. */
  isolated?: boolean;
  storageRoot: string;
  /**
   * The only parts of the storage root the child may read: its own project folder (its transcript,
   * inbox and locks). Never the whole root: other projects' transcripts and every sidecar stay
   * unreadable. Sidecars are read and written by the main thread, so a child needs none.
   */
  storageReadDirs: readonly string[];
  /**
   * host:port the child may connect to. Blade's child Workers get none (child/child_sandbox.ts):
   * their model requests go through the main thread, which holds the credentials.
   */
  providerHosts: readonly string[];
  /** Environment variables the child reads (provider keys, Blade settings). */
  envNames: readonly string[];
  /** Config folders the child reads, e.g. ~/.claude/agents. */
  extraReadDirs?: readonly string[];
  /**
   * Folders module loading reads at run time. Static imports (local, npm:, and string-literal
   * dynamic imports) are loaded by Deno without any read grant; only computed `import(specifier)`
   * needs the module's folder here.
   */
  moduleDirs?: readonly string[];
  /** The child manages its own git worktree: `git` is runnable whatever the mode, tools or trust. */
  manageWorktree?: boolean;
  /** Programs the Bash tool spawns, by name as passed to Deno.Command (default DEFAULT_SHELL_PROGRAMS). */
  shellPrograms?: readonly string[];
  /**
   * Folders where the child writes its own session records (transcript, leases) when the executor
   * keeps those writes inside the child; granted whatever the mode, tools or trust. Leave empty when
   * the parent writes them from the child's events (then a read-only child writes nothing at all).
   */
  sessionWriteDirs?: readonly string[];
  /**
   * A read-only auditor (the verification agents): no tool writes whatever its tools and mode say;
   * only `sessionWriteDirs` stay writable.
   */
  readOnly?: boolean;
  /** `Deno.*` system-information APIs the child calls (default none). */
  sysNames?: readonly string[];
  /**
   * The child's deny rules and its agents' `tools` layers: the workspace write grant narrows to the
   * folders they name (write_scope.ts). A denied folder inside a granted one stays granted here (a
   * Deno grant cannot subtract): the permission gate refuses those writes, and commands get it read-only.
   */
  rules?: PathRules | undefined;
  /** The user's home folder, for `~/` in rules. */
  home?: string | undefined;
}

/** Tools that change files or run programs; a child with none of them is read-only. */
export const WRITE_TOOLS: readonly string[] = ["Write", "Edit", "NotebookEdit", "Bash"];

/**
 * Folders of the storage root a child may write (sidecars, transcripts and inboxes, worktrees). The
 * rest of the root stays unwritable: `trust.json` (a child must never trust its own workspace),
 * `config.json` and the user's agent definitions in `agents/`.
 */
export const STORAGE_WRITE_DIRS: readonly string[] = ["agents/sessions", "projects", "worktrees"];

/**
 * What the Bash tool hands to Deno.Command: `setsid` (POSIX, its own process group, lib/sys/process.ts)
 * which then execs the OS sandbox (`bwrap`, `sandbox-exec`: permissions/command_sandbox.ts) and in it
 * bash or sh; bash or sh directly elsewhere. Deno cannot scope what a shell runs, so
 * a Bash grant is in effect "run anything"; the point is that every other child gets no run at all.
 */
export const DEFAULT_SHELL_PROGRAMS: readonly string[] = ["setsid", "bwrap", "sandbox-exec", "bash", "sh"];

/**
 * Variables packages read that Blade ignores (read as unset) rather than grants: the `yaml` package's
 * LOG_TOKENS/LOG_STREAM, and the terminal probes of `@mariozechner/pi-tui` (the interactive session):
 * image protocols, debug logs, size overrides. TERM is read.
 */
export const IGNORED_ENV: readonly string[] = [
  "LOG_TOKENS",
  "LOG_STREAM",
  "COLORTERM",
  "COLUMNS",
  "LINES",
  "TERM_PROGRAM",
  "TMUX",
  "TERMUX_VERSION",
  "KITTY_WINDOW_ID",
  "GHOSTTY_RESOURCES_DIR",
  "WEZTERM_PANE",
  "ITERM_SESSION_ID",
  "WT_SESSION",
  "SSH_CLIENT",
  "SSH_CONNECTION",
  "SSH_TTY",
  "PI_TUI_WRITE_LOG",
  "PI_TUI_DEBUG",
  "PI_DEBUG_REDRAW",
  "PI_HARDWARE_CURSOR",
  "PI_CLEAR_ON_SHRINK",
];

const KINDS = ["read", "write", "net", "env", "run", "sys", "ffi"] as const;

/** The permission set for one child run, derived from trust, permission mode, tools and workspace. */
export function childPermissions(input: ChildPermissionInput): DenoPermissionSet {
  const writes = input.readOnly !== true && input.mode !== "plan" &&
    input.tools.some((t) => WRITE_TOOLS.includes(t));
  const storageWrites = STORAGE_WRITE_DIRS.map((dir) => joinPath(input.storageRoot, dir));
  const workspaces = [input.workspaceRoot, ...(input.isolated === true ? [] : input.additionalDirs ?? [])];
  const narrowed = input.rules === undefined ? workspaces : writeScope(input.rules, {
    mode: input.mode,
    roots: workspaces,
    workspaceRoot: input.workspaceRoot,
    home: input.home,
  }).writable;
  // Narrowed, a worktree child's grant must not come back whole through the storage folder holding
  // its worktree (`<storage>/worktrees`): the main thread makes worktrees, the child writes in its own.
  const whole = workspaces.every((root) => narrowed.includes(root));
  const storage = whole
    ? storageWrites
    : storageWrites.filter((dir) => !workspaces.some((root) => covers(dir, root)));
  const toolWrites = !writes ? [] : input.trusted ? [...narrowed, ...storage] : storageWrites;
  const shell = input.trusted && input.mode !== "plan" && input.tools.includes("Bash");
  const run = [
    ...(shell ? input.shellPrograms ?? DEFAULT_SHELL_PROGRAMS : []),
    ...(input.manageWorktree === true ? ["git"] : []),
  ];
  return {
    read: grant(pathList([
      input.workspaceRoot,
      ...input.additionalDirs ?? [],
      ...input.storageReadDirs,
      ...input.extraReadDirs ?? [],
      ...input.moduleDirs ?? [],
    ])),
    write: grant(pathList([...toolWrites, ...input.sessionWriteDirs ?? []])),
    net: grant(unique(input.providerHosts)),
    env: grant(unique(input.envNames)),
    run: grant(unique(run)),
    sys: grant(unique(input.sysNames ?? [])),
    ffi: false,
    import: false,
  };
}

/** The value for `new Worker(url, { deno: { permissions } })`; every kind explicit, arrays copied. */
export function toWorkerPermissions(set: DenoPermissionSet): Deno.PermissionOptionsObject {
  const copy = (g: Grant): boolean | string[] => typeof g === "boolean" ? g : [...g];
  return {
    read: copy(set.read),
    write: copy(set.write),
    net: copy(set.net),
    env: copy(set.env),
    run: copy(set.run),
    sys: copy(set.sys),
    ffi: false,
    import: set.import ?? false,
  };
}

export interface DenoFlagOptions {
  /** Variables Deno reports as unset instead of refusing (`--ignore-env`); default IGNORED_ENV. */
  ignoreEnv?: readonly string[];
}

/**
 * CLI flags for the same set: `--no-prompt`, then `--allow-<kind>[=a,b]` per granted kind, never `-A`.
 * Throws a BladeError when a value contains a comma: Deno splits flag values on commas and has no
 * escape, so such a path cannot be granted by flag (a Worker grant can).
 */
export function toDenoFlags(set: DenoPermissionSet, options: DenoFlagOptions = {}): string[] {
  const flags = ["--no-prompt"];
  for (const kind of KINDS) {
    const g: Grant = set[kind];
    if (g === true) flags.push(`--allow-${kind}`);
    else if (g !== false && g.length > 0) flags.push(`--allow-${kind}=${flagValue(kind, g)}`);
  }
  if (set.import === false) flags.push("--deny-import");
  const ignore = options.ignoreEnv ?? IGNORED_ENV;
  if (ignore.length > 0) flags.push(`--ignore-env=${flagValue("ignore-env", ignore)}`);
  return flags;
}

/** System-information APIs Blade's own process calls. */
export const BLADE_SYS_NAMES: readonly string[] = ["osRelease", "hostname", "homedir", "uid", "gid"];

/**
 * Blade's own process: it reads and writes wherever the user points it (any workspace, the storage
 * root), runs git and shells, and talks to providers configured at run time, so those kinds are
 * whole. The environment is whole too: MCP configurations name any variable (`${GITHUB_TOKEN}`,
 * Claude Code's syntax) and stdio servers get HOME, LOGNAME, USER…, and a listed grant would make those
 * configurations fail in the compiled binary; programs Blade starts inherit the environment whatever
 * the grant. sys stays listed. Every child set is a subset of this one (Workers cannot escalate), and
 * children's env grants stay computed (child Workers get none).
 */
export function bladeProcessPermissions(): DenoPermissionSet {
  return {
    read: true,
    write: true,
    net: true,
    env: true,
    run: true,
    sys: [...BLADE_SYS_NAMES],
    ffi: false,
  };
}

function grant(values: string[]): Grant {
  return values.length === 0 ? false : values;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ""))];
}

/** Distinct paths in first-seen order, without those already covered by another entry. */
function pathList(paths: readonly string[]): string[] {
  const all = unique(paths.map(trimSeparator));
  return all.filter((p, i) => !all.some((other, j) => j !== i && covers(other, p)));
}

function covers(parent: string, child: string): boolean {
  const prefix = /[\\/]$/.test(parent) ? parent : `${parent}${separatorOf(parent)}`;
  return child.startsWith(prefix);
}

function trimSeparator(path: string): string {
  return path.length > 1 && /[^\\/:][\\/]$/.test(path) ? path.slice(0, -1) : path;
}

function separatorOf(path: string): string {
  return path.includes("\\") && !path.includes("/") ? "\\" : "/";
}

function joinPath(root: string, relative: string): string {
  const sep = separatorOf(root);
  return `${trimSeparator(root)}${sep}${relative.replaceAll("/", sep)}`;
}

function flagValue(kind: string, values: readonly string[]): string {
  const bad = values.find((v) => v.includes(","));
  if (bad !== undefined) {
    throw new BladeError(
      "permission_flag_value",
      `Cannot grant ${kind} access to "${bad}" by flag: Deno splits flag values on commas`,
      { hint: "Use a path without commas, or run the child as a Worker, whose grants are lists" },
    );
  }
  return values.join(",");
}
