// Owns running git for the worktree lifecycle: every call is `git -C <dir> <args…>` through the
// Process port with an argument array (never a shell string), a cleared environment (so GIT_DIR,
// GIT_WORK_TREE or GIT_INDEX_FILE inherited from a hook cannot redirect it) and no terminal prompts.
// Blade's own git never runs a program the repository configures (docs/reference/worktrees.md "Git
// never runs repository code"): hooks, fsmonitor, pager, external diff and textconv, ssh and
// credential helpers, filter drivers and transports are neutralised on every call, with `-c`, which
// beats every config file, and `GIT_CONFIG_NOSYSTEM`. The pure part (gitCommandLine) is table-tested.
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
  /**
   * `git -C <cwd> <args>`; never throws: a git that cannot start is a failed result. `env` adds
   * variables for this call (GIT_INDEX_FILE: a snapshot's own index, never the user's).
   */
  run(cwd: string, args: readonly string[], options?: { env?: Record<string, string> }): Promise<GitResult>;
}

const GIT_TIMEOUT_MS = 60_000;

/**
 * Config that would make git start a program, set on the command line (which beats the system,
 * global, repository and worktree config files, and their includes) to values that start none.
 * `diff.external` cannot be emptied (git then fails to run ""): diff commands get `--no-ext-diff`.
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.pager=cat",
  "core.sshCommand=false",
  "core.askPass=",
  "core.gitProxy=",
  "core.editor=:",
  "sequence.editor=:",
  "credential.helper=",
  "gpg.program=false",
  "gpg.ssh.program=false",
  "gpg.x509.program=false",
  "log.showSignature=false",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "protocol.allow=never",
  "protocol.file.allow=never",
  "protocol.ext.allow=never",
  "submodule.recurse=false",
  "diff.ignoreSubmodules=all",
  "status.submoduleSummary=false",
  "gc.auto=0",
  "maintenance.auto=false",
];

/** Sub-commands that only read refs or config: no work-tree file goes through a filter driver. */
const REF_ONLY = new Set([
  "rev-parse",
  "symbolic-ref",
  "rev-list",
  "config",
  "init",
  "branch",
  "for-each-ref",
  "show-ref",
  "merge-base",
]);

/** Sub-commands that print diffs: external diff programs and textconv filters are refused. */
const DIFFING = new Set(["diff", "log", "show", "whatchanged", "format-patch"]);

/** The variables git is given: enough to find itself and the user's git config, nothing else. */
export function gitEnvironment(env: Env): Record<string, string> {
  const out: Record<string, string> = {
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_EDITOR: ":",
    GIT_SEQUENCE_EDITOR: ":",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_ALLOW_PROTOCOL: "",
  };
  const path = env.get("PATH");
  const home = env.home();
  if (path !== undefined) out["PATH"] = path;
  if (home !== undefined) out["HOME"] = home;
  return out;
}

/** The index of the sub-command in `args` (after leading `-c name=value` pairs and options). */
function subcommandAt(args: readonly string[]): number {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += args[i] === "-c" || args[i] === "-C" ? 2 : 1;
  return i;
}

/** Whether the call may pass work-tree files through filter drivers (so they must be neutralised). */
export function needsFilterGuard(args: readonly string[]): boolean {
  const at = subcommandAt(args);
  const sub = args[at];
  if (sub === undefined || REF_ONLY.has(sub)) return false;
  if (sub === "worktree") return args[at + 1] !== "list" && args[at + 1] !== "prune";
  return true;
}

/**
 * The filter driver names config defines (`filter.<name>.clean|smudge|process`), from the output of
 * `git config -z --get-regexp ^filter\.` (`<key>\n<value>\0` entries).
 */
export function filterDrivers(configOutput: string): string[] {
  const names = new Set<string>();
  for (const entry of configOutput.split("\0")) {
    const key = entry.split("\n", 1)[0]!.trim();
    const m = /^filter\.(.+)\.([^.]+)$/i.exec(key);
    if (m !== null) names.add(m[1]!);
  }
  return [...names];
}

/**
 * git's arguments for one call: `--no-pager -C <cwd>`, every SAFE_GIT_CONFIG value and the emptied
 * commands of each configured filter driver (an empty command runs nothing), then the call's own
 * arguments, with `--no-ext-diff --no-textconv` after a diffing sub-command. Pure.
 */
export function gitCommandLine(
  cwd: string,
  args: readonly string[],
  filters: readonly string[] = [],
): string[] {
  const config = [
    ...SAFE_GIT_CONFIG,
    ...filters.flatMap((
      name,
    ) => [`filter.${name}.clean=`, `filter.${name}.smudge=`, `filter.${name}.process=`]),
  ].flatMap((c) => ["-c", c]);
  const at = subcommandAt(args);
  const sub = args[at];
  const own = sub !== undefined && DIFFING.has(sub)
    ? [...args.slice(0, at + 1), "--no-ext-diff", "--no-textconv", ...args.slice(at + 1)]
    : [...args];
  return ["--no-pager", "-C", cwd, ...config, ...own];
}

export function processGit(process: Process, env: Env): Git {
  const vars = gitEnvironment(env);
  const options = { env: vars, clearEnv: true, timeoutMs: GIT_TIMEOUT_MS };
  const drivers = async (cwd: string): Promise<string[]> => {
    // Reading config runs nothing; exit 1 means no filter is configured.
    const r = await process.run(
      "git",
      gitCommandLine(cwd, ["config", "-z", "--get-regexp", "^filter\\."]),
      options,
    );
    return r.code === 0 ? filterDrivers(r.stdout) : [];
  };
  return {
    async run(cwd, args, extra) {
      try {
        const filters = needsFilterGuard(args) ? await drivers(cwd) : [];
        const r = await process.run(
          "git",
          gitCommandLine(cwd, args, filters),
          extra?.env === undefined ? options : { ...options, env: { ...vars, ...extra.env } },
        );
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
