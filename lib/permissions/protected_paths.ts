// Owns the folders whose contents change what later runs do (docs/guides/permissions.md "Protected
// paths"): `.blade/` and `.claude/` (agent definitions and settings the next session loads) and `.git/`
// (hooks and config that git, which Blade runs, executes). Writing them needs permission mode yolo or
// an explicit allow rule; the gate asks this module. Blade's storage root is protected by the write
// path rules (tools/paths.ts). Pure: paths arrive real and absolute.

import { relative, sep } from "node:path";

const PROTECTED: Readonly<Record<string, string>> = {
  ".blade": "it is inside .blade/, whose agent definitions and settings later sessions load",
  ".claude": "it is inside .claude/, whose agent definitions and settings later sessions load",
  ".git": "it is inside .git/, whose hooks and config git runs (and Blade runs git)",
};

/** Why a write to `path` is protected, or undefined when it is not. */
export function protectedPathReason(path: string, workspaceRoot: string): string | undefined {
  const rel = relative(workspaceRoot, path);
  const parts = rel.startsWith("..") ? path.split(sep) : rel.split(sep);
  // The last part is the file itself: a file named `.git` (a worktree's pointer) is protected too.
  for (const part of parts) {
    if (Object.hasOwn(PROTECTED, part)) return PROTECTED[part];
  }
  return undefined;
}
