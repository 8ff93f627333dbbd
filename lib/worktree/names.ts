// Owns the names of a child's git worktree (docs/reference/worktrees.md): the folder under the
// storage root, the branch, and the workspace inside it that keeps the parent's sub-directory
// offset. Pure: hashing and path arithmetic, no git, no file system.

import { basename, isAbsolute, join, relative, sep } from "../path.ts";

export interface WorktreeNames {
  /** `agent+<safe id>`: the worktree's folder name, also git's name for the worktree. */
  name: string;
  /** `<worktreesDir>/<repo name>-<12 hex of sha256(repo root)>`: the folder of this repository's worktrees. */
  repoDir: string;
  /** `<repoDir>/<name>`. */
  path: string;
  /** `blade-worktree-agent+<safe id>-<8 hex of sha256(id)>`. */
  branch: string;
}

/** Every managed branch starts with this, so Blade never deletes a branch it did not make. */
export const MANAGED_BRANCH_PREFIX = "blade-worktree-agent+";

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * An id or folder name reduced to characters that are safe in a file name and a git ref: letters,
 * digits, `_` and `-` (dots go: `..` and a trailing `.lock` are invalid in refs). At most 64
 * characters; the hashes in the names keep distinct ids apart.
 */
export function safeName(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "");
  return (cleaned === "" ? "x" : cleaned).slice(0, 64);
}

/** The worktree names for child `agentId` of the repository at `repoRoot` (canonical). */
export async function worktreeNames(
  worktreesDir: string,
  repoRoot: string,
  agentId: string,
): Promise<WorktreeNames> {
  const safeId = safeName(agentId);
  const repoDir = join(
    worktreesDir,
    `${safeName(basename(repoRoot))}-${(await sha256Hex(repoRoot)).slice(0, 12)}`,
  );
  const name = `agent+${safeId}`;
  return {
    name,
    repoDir,
    path: join(repoDir, name),
    branch: `${MANAGED_BRANCH_PREFIX}${safeId}-${(await sha256Hex(agentId)).slice(0, 8)}`,
  };
}

/**
 * The parent's sub-directory offset inside its repository (`""` at the top), so a child started in
 * `<repo>/packages/a` works in `<worktree>/packages/a`. Undefined when `workspace` is not inside `repoRoot`.
 */
export function workspaceOffset(repoRoot: string, workspace: string): string | undefined {
  const rel = relative(repoRoot, workspace);
  if (rel === "") return "";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel;
}

/** Whether `path` is a worktree folder Blade manages: directly in a repository folder of `worktreesDir`. */
export function isManagedWorktreePath(worktreesDir: string, path: string): boolean {
  const rel = relative(worktreesDir, path).split(sep);
  return rel.length === 2 && rel[0] !== ".." && rel[0] !== "" && (rel[1] ?? "").startsWith("agent+");
}
