// Owns what becomes of a protected path (permissions/command_sandbox.ts PROTECTED_NAMES: `.mcp.json`,
// `.claude/`, `.blade/`, `.git/hooks`, `.git/config`) that did not exist when a sandboxed command started
// and does when it has ended. bubblewrap can bind read-only only what exists, so a command could create
// one for a later session to load (an MCP server it starts, settings with hooks or allow rules). Once the
// command has ended (its PID namespace with it, so nothing of it still runs), each such path is renamed
// aside to `<path>.blade-refused` (numbered when taken): kept for the person to look at, loaded by
// nothing; the command's result says so (docs/guides/permissions.md "The OS sandbox (Bash)").

import type { Fs } from "../sys/fs.ts";

/** Suffix of a protected path a command created, once set aside. */
export const SET_ASIDE_SUFFIX = ".blade-refused";

/**
 * Renames aside each of `watched` (protected paths missing when the command started) that exists now;
 * the note for the command's result, or undefined when it created none. A path another command of the
 * session set aside first is skipped.
 */
export async function setAsideCreated(fs: Fs, watched: readonly string[]): Promise<string | undefined> {
  const moved: string[] = [];
  for (const path of watched) {
    if ((await fs.lstat(path).catch(() => null)) === null) continue;
    const target = await freeName(fs, path);
    try {
      await fs.rename(path, target);
      moved.push(`${path} → ${target}`);
    } catch (e) {
      if ((await fs.lstat(path).catch(() => null)) !== null) {
        moved.push(
          `${path} (could not be moved aside: ${(e as Error).message}; remove it before the next session)`,
        );
      }
    }
  }
  if (moved.length === 0) return undefined;
  return `Note: this command created what commands may not write (later sessions would load it: MCP servers, ` +
    `settings, agents, git hooks); Blade moved it aside: ${moved.join("; ")}.`;
}

async function freeName(fs: Fs, path: string): Promise<string> {
  for (let n = 1;; n++) {
    const candidate = `${path}${SET_ASIDE_SUFFIX}${n === 1 ? "" : `-${n}`}`;
    if ((await fs.lstat(candidate).catch(() => null)) === null) return candidate;
  }
}
