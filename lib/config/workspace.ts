// Owns the run's folders as canonical paths: the working folder (the workspace) and the `--add-dir`
// folders (symlinks resolved: Deno and the tools check real paths). A missing working folder is an
// environment error; an `--add-dir` that does not exist or is no folder is a usage error.

import type { Ports } from "../sys/mod.ts";
import { BladeError, usageError } from "../errors.ts";
import { resolve as resolvePath } from "../path.ts";

export async function canonicalWorkspace(ports: Ports): Promise<string> {
  const cwd = ports.env.cwd();
  try {
    return await ports.fs.realPath(cwd);
  } catch {
    throw new BladeError("workspace_missing", `The working folder ${cwd} does not exist.`, {
      hint: "Run Blade from an existing folder.",
    });
  }
}

/**
 * The `--add-dir` folders as canonical paths (symlinks resolved: Deno and the tools check real paths),
 * after `o.after` and without duplicates. A folder that does not exist is a usage error, or — with
 * `o.skip` (settings `permissions.additionalDirectories`) — left out and reported there.
 */
export async function canonicalAddDirs(
  ports: Ports,
  dirs: readonly string[],
  o: { skip?: (dir: string, why: string) => void; after?: readonly string[] } = {},
): Promise<string[]> {
  const out: string[] = [...o.after ?? []];
  for (const dir of dirs) {
    const home = ports.env.home();
    const given = home !== undefined && (dir === "~" || dir.startsWith("~/"))
      ? resolvePath(home, dir.slice(2))
      : resolvePath(ports.env.cwd(), dir);
    let real: string;
    try {
      real = await ports.fs.realPath(given);
    } catch {
      if (o.skip !== undefined) {
        o.skip(given, "does not exist");
        continue;
      }
      throw usageError(
        `--add-dir: the folder ${given} does not exist.`,
        "Pass an existing folder to --add-dir.",
      );
    }
    if (!(await ports.fs.stat(real))?.isDirectory) {
      if (o.skip !== undefined) {
        o.skip(given, "is not a folder");
        continue;
      }
      throw usageError(`--add-dir: ${given} is not a folder.`, "Pass a folder to --add-dir, not a file.");
    }
    if (!out.includes(real)) out.push(real);
  }
  return out;
}
