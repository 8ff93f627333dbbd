// Owns the Bash tool: one shell command in the workspace root through the Process port, in the OS
// sandbox of the session (command_launch.ts) and its own process group, so a timeout or an abort kills
// everything it started (through the sandbox's PID namespace: setsid, nohup and double forks too).
// Refused in untrusted workspaces. Does not keep a shell between calls; background commands are
// run/shells.ts's.

import { join } from "../path.ts";
import { describeError } from "../errors.ts";
import { fsErrorCode } from "../sys/errors.ts";
import type { Ports } from "../sys/mod.ts";
import { untrustedExecution } from "./paths.ts";
import { worktreeCwdRefusal } from "./worktree_guard.ts";
import { loadBashParser } from "../shell/bash_parser.ts";
import { commandLaunch } from "./command_launch.ts";
import { setAsideCreated } from "./set_aside_created.ts";
import { denied, fail, ok, type Tool } from "./tool.ts";
import { bashResponse } from "./hook_response.ts";
import {
  BASH_DEFAULT_TIMEOUT_MS,
  BASH_MAX_OUTPUT_CHARS,
  BASH_MAX_TIMEOUT_MS,
  bashLimits,
} from "../config/bash_limits.ts";
import { builtInInput } from "./input_check.ts";
import type { BashInput } from "./input_zod.ts";

export type { BashInput };

/** Bytes collected per stream before the rest is dropped (memory guard; the cap above is what the model sees). */
const COLLECT_LIMIT_BYTES = 8 * 1024 * 1024;
/** BASH_MAX_OUTPUT_LENGTH's ceiling, as in Claude Code: a larger value counts as this. */
export const BASH_OUTPUT_CEILING = 150_000;

/** What the model sees of a command that printed nothing (Claude Code's words, tests/fixtures/claude/hooks_tool_response). */
export const BASH_NO_OUTPUT = "(Bash completed with no output)";

const DESCRIPTION = `Executes a bash command and returns its output.

Usage:
- Each call runs in a fresh shell whose working folder is the workspace root; \`cd\` and exported variables do not carry over to the next call. Chain dependent commands with && (e.g. \`cd sub && npm test\`), and quote paths that contain spaces.
- timeout is in milliseconds: default ${BASH_DEFAULT_TIMEOUT_MS} (2 minutes), at most ${BASH_MAX_TIMEOUT_MS} (10 minutes). When it expires the command and every process it started are killed.
- Output (stdout, then stderr) longer than ${BASH_MAX_OUTPUT_CHARS} characters is saved to a file: you get its first 2 KB and the file's path, which you can Read (with offset and limit) or Grep.
- A non-zero exit code is reported as an error together with the output.
- Commands cannot read input: anything interactive fails or hangs until the timeout.
- Prefer the dedicated tools: Glob to find files, Grep to search contents, Read to view files, Edit and Write to change them. Use Bash for builds, tests, git and other programs.
- run_in_background: true starts the command as a background task and returns its id at once; read its output with TaskOutput and stop it with TaskStop.
- Give a short description (5-10 words) of what the command does.`;

/**
 * Errors that make a PATH entry no place to find bash, so the search goes on, as execvp(3) does: the
 * folder is not a folder, may not be searched (EACCES), or is a stale or unreachable mount. Anything else
 * (EIO, ELOOP, …) is a broken environment and is thrown, never taken for "no bash there".
 */
const SKIPPED_PATH_ERRORS: ReadonlySet<string> = new Set([
  "ENOTDIR",
  "EACCES",
  "ESTALE",
  "ENODEV",
  "ETIMEDOUT",
]);

/** bash from PATH (or the usual folders), else sh. */
export async function findShell(ports: Pick<Ports, "env" | "fs">): Promise<string> {
  const dirs = (ports.env.get("PATH") ?? "").split(":").filter((d) => d !== "");
  for (const dir of [...dirs, "/bin", "/usr/bin"]) {
    const candidate = join(dir, "bash");
    let info;
    try {
      info = await ports.fs.stat(candidate); // null: no bash in this folder
    } catch (e) {
      if (SKIPPED_PATH_ERRORS.has(fsErrorCode(e) ?? "")) continue;
      throw new Error(`Cannot look for bash at ${candidate}: ${describeError(e)}`, { cause: e });
    }
    if (info?.isFile) return candidate;
  }
  return "sh";
}

function combine(stdout: string, stderr: string): string {
  const out = stdout.replace(/\n+$/, "");
  const err = stderr.replace(/\n+$/, "");
  return out === "" ? err : err === "" ? out : `${out}\n${err}`;
}

export const bashTool: Tool<BashInput> = {
  name: "Bash",
  description: DESCRIPTION,
  kind: "execute",
  ...builtInInput<BashInput>("Bash"),
  async run(input, ctx) {
    if (input.run_in_background === true) {
      return fail(
        "run_in_background is not available in this session (no task manager). Run the command in the foreground with a timeout.",
      );
    }
    const refusal = untrustedExecution(ctx, "Bash");
    if (refusal !== undefined) return denied(refusal);
    if (ctx.signal.aborted) return fail("Command was interrupted before it started.");
    if (ctx.worktree !== undefined) {
      await loadBashParser();
      const outside = await worktreeCwdRefusal(ctx.ports.fs, ctx.worktree, ctx.workspaceRoot, input.command);
      if (outside !== undefined) return denied(`Permission denied: ${outside}`);
    }

    const limits = bashLimits(ctx.ports.env);
    const timeoutMs = Math.min(input.timeout ?? limits.defaultTimeoutMs, limits.maxTimeoutMs);
    const shell = ctx.shell ?? await findShell(ctx.ports);
    const launch = await commandLaunch(ctx, ctx.workspaceRoot);
    if ("refusal" in launch) return denied(launch.refusal);
    const [program, ...args] = [...launch.sandbox, shell, "-c", input.command];
    let result;
    try {
      result = await ctx.ports.process.run(program!, args, {
        cwd: ctx.workspaceRoot,
        timeoutMs,
        signal: ctx.signal,
        newProcessGroup: true,
        maxOutputBytes: COLLECT_LIMIT_BYTES,
        env: launch.env,
        clearEnv: true,
      });
    } catch (e) {
      return fail(`Could not run the command with ${shell} in ${ctx.workspaceRoot}: ${describeError(e)}`);
    }

    const setAside = await setAsideCreated(ctx.ports.fs, launch.watched);
    // Output past BASH_MAX_OUTPUT_LENGTH is saved whole to a file and the model gets its head and the
    // file's path (executor/result_persistence.ts), as in Claude Code.
    const combined = combine(result.stdout, result.stderr);
    // A write the rules' narrowing refused says which rule did (the OS only says "Read-only file system").
    const narrowed = launch.rulesNote !== undefined && /Read-only file system/.test(combined)
      ? launch.rulesNote
      : undefined;
    const notes = [launch.warning, setAside, narrowed].filter((n) => n !== undefined);
    let output = [combined, ...notes].join("\n").trimStart();
    if (result.truncated) {
      output += `\n(Output beyond ${COLLECT_LIMIT_BYTES} bytes per stream was not collected.)`;
    }
    const meta = {
      exitCode: result.code,
      signal: result.signal,
      timedOut: result.timedOut,
      interrupted: result.aborted,
      truncated: result.truncated,
      ...(input.description === undefined ? {} : { description: input.description }),
    };
    const body = output === "" ? "" : `\n${output}`;
    const killed = result.killFailure === undefined
      ? launch.sandbox.length > 0
        ? "it and every process it started were killed"
        : "it and every process of its process group were killed (one that left the group may still run)"
      : `the command was killed, but ${result.killFailure}; processes it started may still run`;
    const maxChars = Math.min(limits.maxOutputChars, BASH_OUTPUT_CEILING);
    if (result.timedOut) {
      return { ...fail(`Command timed out after ${timeoutMs} ms; ${killed}.${body}`, meta), maxChars };
    }
    if (result.aborted) return { ...fail(`Command was interrupted; ${killed}.${body}`, meta), maxChars };
    if (result.code !== 0) {
      const by = result.signal === null ? "" : ` (killed by ${result.signal})`;
      return { ...fail(`Exit code ${result.code}${by}${body}`, meta), maxChars };
    }
    return {
      ...ok(output === "" ? BASH_NO_OUTPUT : output, meta),
      maxChars,
      response: bashResponse(output.trimEnd(), { command: input.command, interrupted: false }),
    };
  },
};
