// Owns a project's identity across machines (docs/guides/remote.md, "One project, many machines"): with a
// shared store, runs are recorded with a key every clone of the repository computes alike, the root commit
// reached from HEAD by first parents plus the folder's place in the repository
// (`git:<commit>` or `git:<commit>:<subfolder>`), so `blade tasks list` on any machine selects this
// project's runs whatever the checkout's path. Without a key (the file store, a folder outside git, a
// shallow clone, a record written before the key existed) a run is this project's by its path, as before.
// `sameProject` is the one rule every command selecting "this project's runs" uses (tasks, /tasks,
// resume, resume_from, the implicit reconcile); `rootHere` places another clone's run in this checkout.
// Pure: lib/worktree/project_identity.ts runs git and hands its output here.

import { isInside, relative, resolve } from "../path.ts";

/** What git said about a folder (each undefined when the command failed). */
export interface RepositoryFacts {
  /** `git rev-list --max-parents=0 --first-parent HEAD`. */
  roots?: string | undefined;
  /** `git rev-parse --is-shallow-repository --show-prefix`. */
  shallowAndPrefix?: string | undefined;
}

const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * The project key of a folder, or undefined when git's answers give none that every clone would compute
 * alike: not a repository, no commit yet, a shallow clone (its oldest commit is a cut, not the root),
 * or output this function does not recognise.
 */
export function projectKeyOf(facts: RepositoryFacts): string | undefined {
  const roots = facts.roots?.split("\n").filter((l) => l !== "") ?? [];
  const lines = facts.shallowAndPrefix?.split("\n") ?? [];
  // --show-prefix prints an empty line at the repository's root.
  if (roots.length !== 1 || lines.length < 2 || lines[0] !== "false") return undefined;
  const root = roots[0]!;
  if (!COMMIT.test(root)) return undefined;
  const prefix = lines[1]!.replace(/\/+$/, "");
  return prefix === "" ? `git:${root}` : `git:${root}:${prefix}`;
}

/** Where a listing is made: the canonical folder, and its project key when runs are shared. */
export interface ProjectHere {
  path: string;
  key?: string | undefined;
}

/**
 * Whether a run belongs to the project `here`: the same key when both have one (another machine's clone
 * at another path), else the same path (the file store, folders outside git, older records).
 */
export function sameProject(
  run: { parentProjectPath: string; projectKey?: string | undefined },
  here: ProjectHere,
): boolean {
  if (run.projectKey !== undefined && here.key !== undefined) return run.projectKey === here.key;
  return run.parentProjectPath === here.path;
}

/**
 * Where a run of this project (`sameProject`) works in the checkout at `here`: its workspace root as
 * recorded when it was started from this path, else the same place under this checkout (a run another
 * clone started at `/builds/42/api` worked in `/builds/42/api/src`: here that is `<here>/src`).
 * Undefined when its workspace was outside the folder it was started from (a worktree of that
 * checkout): nothing here stands for it.
 */
export function rootHere(
  run: { parentProjectPath: string; workspaceRoot: string },
  here: string,
): string | undefined {
  const from = run.parentProjectPath;
  if (from === here) return run.workspaceRoot;
  if (run.workspaceRoot === from) return here;
  if (!isInside(run.workspaceRoot, from)) return undefined;
  // A record is another machine's word: `..` in it must not lead this checkout's run out of it.
  const placed = resolve(here, relative(from, run.workspaceRoot));
  return isInside(placed, here) ? placed : undefined;
}
