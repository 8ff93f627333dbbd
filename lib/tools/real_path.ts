// Owns resolving a path the way Deno does not: symlinks followed to the real target (Deno checks the
// path as given), and comparing whole path components (`/repo-evil` is not inside `/repo`). Shared by
// the path rules (paths.ts) and the worktree guard (worktree_guard.ts). Reads the file system only
// through the Fs port.

import { basename, dirname, join, resolve } from "../path.ts";
import type { Fs } from "../sys/fs.ts";

export { isInside } from "../path.ts";

/**
 * The real path of `path`, which need not exist: the nearest existing ancestor is resolved and the
 * missing rest appended. Throws when a component is a symlink whose target does not exist (writing
 * through it would create the target wherever it points) or cannot be resolved.
 */
export async function canonicalPath(fs: Fs, path: string): Promise<string> {
  const missing: string[] = [];
  let current = resolve(path);
  while (true) {
    if (await fs.lstat(current) !== null) {
      let real: string;
      try {
        real = await fs.realPath(current);
      } catch (cause) {
        throw new Error(`${current} is a symbolic link that cannot be resolved`, { cause });
      }
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    }
    const parent = dirname(current);
    if (parent === current) return resolve(path);
    missing.push(basename(current));
    current = parent;
  }
}
