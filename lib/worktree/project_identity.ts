// Owns reading a folder's project key from git (two read-only calls through the worktree's safe Git,
// which starts no program the repository configures); lib/store/project_key.ts decides what the
// answers mean. Never throws: a folder git cannot describe has no key (its runs go by path).

import { projectKeyOf } from "../store/project_key.ts";
import type { Git } from "./git.ts";

/** The project key of `workspace`, or undefined (not a repository, no commit, a shallow clone). */
export async function readProjectKey(git: Git, workspace: string): Promise<string | undefined> {
  const [roots, shallowAndPrefix] = await Promise.all([
    git.run(workspace, ["rev-list", "--max-parents=0", "--first-parent", "HEAD"]),
    git.run(workspace, ["rev-parse", "--is-shallow-repository", "--show-prefix"]),
  ]);
  return projectKeyOf({
    roots: roots.ok ? roots.stdout : undefined,
    shallowAndPrefix: shallowAndPrefix.ok ? shallowAndPrefix.stdout : undefined,
  });
}
