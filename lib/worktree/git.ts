// Owns running git for the worktree lifecycle: every call is `git -C <dir> <args…>` through the
// Process port with an argument array (never a shell string), a cleared environment (so GIT_DIR,
// GIT_WORK_TREE or GIT_INDEX_FILE inherited from a hook cannot redirect it) and no terminal prompts.
// Does not decide anything about worktrees (lifecycle.ts does).

import type { Env } from "../sys/env.ts";
import type { Process } from "../sys/process.ts";

export interface GitResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

export interface Git {
  /** `git -C <cwd> <args>`; never throws: a git that cannot start is a failed result. */
  run(cwd: string, args: readonly string[]): Promise<GitResult>;
}

const GIT_TIMEOUT_MS = 60_000;

/** The variables git is given: enough to find itself and the user's git config, nothing else. */
export function gitEnvironment(env: Env): Record<string, string> {
  const out: Record<string, string> = { GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0" };
  const path = env.get("PATH");
  const home = env.home();
  if (path !== undefined) out["PATH"] = path;
  if (home !== undefined) out["HOME"] = home;
  return out;
}

export function processGit(process: Process, env: Env): Git {
  const vars = gitEnvironment(env);
  return {
    async run(cwd, args) {
      try {
        const r = await process.run("git", ["-C", cwd, ...args], {
          env: vars,
          clearEnv: true,
          timeoutMs: GIT_TIMEOUT_MS,
        });
        return { ok: r.code === 0 && !r.timedOut, code: r.code, stdout: r.stdout, stderr: r.stderr };
      } catch (e) {
        return { ok: false, code: -1, stdout: "", stderr: e instanceof Error ? e.message : String(e) };
      }
    },
  };
}

/** git's own explanation of a failed call, on one line, for error messages. */
export function gitReason(r: GitResult): string {
  const text = (r.stderr.trim() || r.stdout.trim()).split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const line = text.find((l) => l.startsWith("fatal:") || l.startsWith("error:")) ?? text[0] ?? "";
  return line === "" ? `git exited with code ${r.code}` : line.replace(/^(fatal|error): /, "");
}

/** NUL-separated output (`-z`) as a list, without the empty tail. */
export function nulList(text: string): string[] {
  return text.split("\0").filter((s) => s !== "");
}
