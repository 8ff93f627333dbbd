// Owns `-w, --worktree [name]` of print mode (Claude Code's "create a git worktree for this session"):
// the session runs in a managed git worktree of the folder's repository, made from its HEAD like an
// isolated subagent's (lib/worktree/, docs/reference/worktrees.md: under the storage root, on a
// `blade-worktree-agent+<name>-…` branch, the folder's sub-directory offset kept). At the end a run that
// succeeded and changed and committed nothing loses its worktree; otherwise it is kept and the run says
// where, on which branch and why — never silently.

import type { Ports } from "../sys/mod.ts";
import type { App } from "../app.ts";
import type { Io } from "./io.ts";
import type { WorktreeLease } from "../store/schema.ts";
import { finishWorktree, prepareWorktree } from "../worktree/lifecycle.ts";
import { worktreeDeps } from "../run/isolation.ts";
import { terminalSafe } from "./sanitize.ts";

export interface SessionWorktree extends AsyncDisposable {
  lease: WorktreeLease;
  /** The ports of the session: its working folder is the worktree's. */
  ports: Ports;
  /** Whether the run succeeded (then an unchanged worktree is removed when disposed). */
  succeeded(ok: boolean): void;
}

/** Makes the session's worktree (`name`, or a generated one when `--worktree` came without a name). */
export async function sessionWorktree(app: App, name: string, io: Io): Promise<SessionWorktree> {
  const deps = worktreeDeps(app.ports, app.layout);
  const id = name === "" ? `session-${app.ports.ids.random21().slice(0, 12)}` : name;
  const lease = await prepareWorktree(deps, { workspaceRoot: app.workspace, agentId: id });
  let ok = false;
  return {
    lease,
    ports: { ...app.ports, env: { ...app.ports.env, cwd: () => lease.workspaceRoot } },
    succeeded: (value) => void (ok = value),
    async [Symbol.asyncDispose]() {
      const end = await finishWorktree(deps, lease, ok);
      if (!end.kept) return;
      io.err(
        `blade: the session's worktree is kept: ${terminalSafe(lease.worktreeRoot)} (branch ${
          terminalSafe(lease.branch)
        }): ${terminalSafe(end.reason)}.\n`,
      );
    },
  };
}
