// Owns the storage layout under the storage root (docs/reference/sessions.md): where sidecars, transcripts, inboxes,
// leases, worktrees and trust live. Pure path arithmetic; no I/O.

import { isAbsolute, resolve } from "../path.ts";
import type { Env } from "../sys/env.ts";
import { BladeError } from "../errors.ts";
import { sha256Hex } from "./sha256.ts";

export interface StorageLayout {
  root: string;
  sessionsDir: string;
  /** `projects/`: one folder per project (projectDir). */
  projectsDir: string;
  trustFile: string;
  configFile: string;
  userAgentsDir: string;
  worktreesDir: string;
  projectDir(projectPath: string): string;
  transcriptPath(projectPath: string, sessionId: string): string;
  inboxPath(projectPath: string, sessionId: string): string;
  locksDir(projectPath: string): string;
  /** The interactive session's prompt history of one project. */
  promptHistoryPath(projectPath: string): string;
}

/** `/a/b:c\d` → `-a-b_c-d` (docs/reference/sessions.md: escape `/` and `\` as `-`, `:` as `_`). */
export function escapeProjectPath(path: string): string {
  return path.replace(/[/\\]/g, "-").replace(/:/g, "_");
}

/** The escaped path keeps at most this many characters (its end) in a folder name. */
const NAME_TAIL = 120;

/**
 * The folder of a project under `projects/`: its escaped path (the last 120 characters of it) and the
 * first 16 hex digits of the SHA-256 of the path, so two paths never share a folder (`/x/a/b` and
 * `/x/a-b` escape alike) and a deep path still makes a legal file name. Folders of the escaped path
 * alone (older Blade) are moved by store/project_migration.ts.
 */
export function projectFolderName(projectPath: string): string {
  return `${escapeProjectPath(projectPath).slice(-NAME_TAIL)}-${sha256Hex(projectPath).slice(0, 16)}`;
}

/**
 * BLADE_STORAGE_ROOT, else `$HOME/.blade`. A relative BLADE_STORAGE_ROOT is relative to the user's folder
 * (Env.cwd(): INIT_CWD under `deno task`, whose own cwd is the Blade checkout), never the process cwd.
 */
export function resolveStorageRoot(env: Env): string {
  const explicit = env.get("BLADE_STORAGE_ROOT");
  if (explicit !== undefined && explicit !== "") {
    return stripTrailingSlash(isAbsolute(explicit) ? explicit : resolve(env.cwd(), explicit));
  }
  const home = env.home();
  if (home === undefined || home === "") {
    throw new BladeError("no_home", "Cannot find a place for Blade's storage: HOME is not set.", {
      hint: "Set HOME, or set BLADE_STORAGE_ROOT to a folder Blade may use.",
    });
  }
  return `${stripTrailingSlash(home)}/.blade`;
}

function stripTrailingSlash(p: string): string {
  return p.length > 1 && (p.endsWith("/") || p.endsWith("\\")) ? p.slice(0, -1) : p;
}

export function storageLayout(root: string): StorageLayout {
  const projectDir = (projectPath: string) => `${root}/projects/${projectFolderName(projectPath)}`;
  return {
    root,
    sessionsDir: `${root}/agents/sessions`,
    projectsDir: `${root}/projects`,
    trustFile: `${root}/trust.json`,
    configFile: `${root}/config.json`,
    userAgentsDir: `${root}/agents`,
    worktreesDir: `${root}/worktrees`,
    projectDir,
    transcriptPath: (p, id) => `${projectDir(p)}/${id}.jsonl`,
    inboxPath: (p, id) => `${projectDir(p)}/${id}.inbox.json`,
    locksDir: (p) => `${projectDir(p)}/.locks`,
    promptHistoryPath: (p) => `${projectDir(p)}/prompt-history.json`,
  };
}
