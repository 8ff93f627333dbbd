// Owns the write guard of a child isolated in a git worktree (docs/guides/isolation.md): while a
// worktree is active, Write/Edit targets and every Bash working folder (the session's root and each
// `cd`/`pushd` target, git's `-C`, `--git-dir` and `--work-tree`) must resolve, symlinks followed,
// inside the child's workspace in the worktree. Sibling-prefix paths (`/repo-evil` next to `/repo`) and
// absolute paths into the parent's checkout are refused with "outside the active worktree". Reads are not guarded: the parent's
// checkout stays readable. Path resolution is paths.ts's; this file only decides.

import { resolve } from "../path.ts";
import type { Fs } from "../sys/fs.ts";
import { bashParserLoaded } from "../shell/bash_parser.ts";
import { readCommandLine } from "../shell/command_line.ts";
import { canonicalPath, isInside } from "./real_path.ts";
import type { ActiveWorktree } from "./tool.ts";

function outside(what: string, shown: string, active: ActiveWorktree): string {
  const parent = isInside(shown, active.parentCheckout)
    ? ` It is in the parent's checkout (${active.parentCheckout}), which this agent may read but not change.`
    : "";
  return `Cannot ${what} ${shown}: it is outside the active worktree ${active.workspaceRoot}.${parent} ` +
    `This agent runs isolated in a git worktree; work on files inside it (relative paths resolve there).`;
}

/** The refusal for writing `given` (absolute) while `active` is the session's worktree, or undefined. */
export async function worktreeWriteRefusal(
  fs: Fs,
  active: ActiveWorktree,
  given: string,
): Promise<string | undefined> {
  let real: string;
  let root: string;
  try {
    real = await canonicalPath(fs, given);
    root = await canonicalPath(fs, active.workspaceRoot);
  } catch (e) {
    return `Cannot write ${given}: ${e instanceof Error ? e.message : String(e)}.`;
  }
  if (isInside(real, root)) return undefined;
  return outside("write", real === given ? given : `${given} (resolves to ${real})`, active);
}

/** Folders a command line changes into, in order: `cd X`, `pushd X`, `git -C X`, `env -C X`. */
function workingFolders(command: string): { dirs: string[]; unclear?: string } {
  const dirs: string[] = [];
  if (!bashParserLoaded()) return { dirs, unclear: command };
  const line = readCommandLine(command);
  if (/(?:^|[\s;&|(])(?:export\s+)?CDPATH=/.test(command)) return { dirs, unclear: "CDPATH=…" };
  for (const form of line.forms) {
    const [head, ...args] = form.words;
    if (head === "cd" || head === "pushd") {
      const target = args.filter((a) => a !== "--" && a !== "-P" && a !== "-L" && a !== "-e" && a !== "-@");
      if (target.length !== 1 || target[0] === undefined || target[0] === "-") {
        return { dirs, unclear: `${head} ${args.map((a) => a ?? "…").join(" ")}`.trim() };
      }
      dirs.push(target[0]);
    } else if (head === "git" || head === "env") {
      // git's `-C X` and the repository and work tree it is pointed at; env's `-C X` / `--chdir=X`.
      for (let i = 0; i < args.length; i++) {
        const a = args[i];
        if (a === undefined) continue;
        const eq = /^--(?:git-dir|work-tree|chdir)=(.*)$/.exec(a);
        if (eq !== null) dirs.push(eq[1]!);
        else if (["-C", "--git-dir", "--work-tree", "--chdir"].includes(a)) {
          const dir = args[++i];
          if (dir === undefined) return { dirs, unclear: `${head} ${a} …` };
          dirs.push(dir);
        }
      }
    }
  }
  return { dirs };
}

/**
 * The refusal for running `command` in `cwd` while `active` is the session's worktree, or undefined.
 * A `cd` the guard cannot follow (no target, `cd -`, a variable) is refused too: it may leave the worktree.
 */
export async function worktreeCwdRefusal(
  fs: Fs,
  active: ActiveWorktree,
  cwd: string,
  command: string,
): Promise<string | undefined> {
  const root = await canonicalPath(fs, active.workspaceRoot).catch(() => active.workspaceRoot);
  const check = async (dir: string, shown: string) => {
    const real = await canonicalPath(fs, dir).catch(() => dir);
    return isInside(real, root)
      ? undefined
      : outside("run a command in", shown === real ? shown : `${shown} (resolves to ${real})`, active);
  };
  const first = await check(cwd, cwd);
  if (first !== undefined) return first;
  const { dirs, unclear } = workingFolders(command);
  let current = cwd;
  for (const dir of dirs) {
    const next = resolve(current, dir.startsWith("~") ? "/" : dir);
    const refusal = await check(next, dir);
    if (refusal !== undefined) return refusal;
    current = next;
  }
  if (unclear !== undefined) {
    return `Cannot run "${unclear}": the guard cannot tell where it leads, and this agent must stay inside ` +
      `the active worktree ${active.workspaceRoot}. Use \`cd <folder inside the worktree>\`.`;
  }
  return undefined;
}
