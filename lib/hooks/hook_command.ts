// Owns how a command hook starts (docs/guides/hooks.md "Under which permissions"): with the shell of
// the session whose event it serves, in that session's OS sandbox and environment (never more: the
// same launch its Bash commands get, tools/command_launch.ts), in the project folder, with
// `$CLAUDE_PROJECT_DIR` set, its JSON input on stdin, its timeout, and its output redacted (hook
// output is data). Where the session's commands would be refused (the sandbox is required and
// missing), the hook is refused too and reported.

import { commandLaunch } from "../tools/command_launch.ts";
import { findShell } from "../tools/bash.ts";
import type { ToolContext } from "../tools/tool.ts";
import type { HookCommandRunner } from "./hook_engine.ts";

/** Output collected per stream (a hook printing more is cut; its answer is what came first). */
export const HOOK_OUTPUT_LIMIT_BYTES = 1024 * 1024;

/** Runs command hooks for the session of `ctx` (its sandbox, environment and shell). */
export function hookCommandRunner(
  ctx: ToolContext,
  o: { projectDir: string; redact: (text: string) => string },
): HookCommandRunner {
  return async (command, run) => {
    const launch = await commandLaunch(ctx, o.projectDir);
    if ("refusal" in launch) return { failed: launch.refusal };
    const shell = ctx.shell ?? await findShell(ctx.ports);
    const [program, ...args] = [...launch.sandbox, shell, "-c", command];
    const result = await ctx.ports.process.run(program!, args, {
      cwd: o.projectDir,
      env: { ...launch.env, CLAUDE_PROJECT_DIR: o.projectDir },
      clearEnv: true,
      stdin: run.stdin,
      timeoutMs: run.timeoutMs,
      signal: run.signal,
      newProcessGroup: true,
      maxOutputBytes: HOOK_OUTPUT_LIMIT_BYTES,
    });
    return {
      code: result.code,
      stdout: o.redact(result.stdout),
      stderr: o.redact(result.stderr),
      ...(result.timedOut ? { timedOut: true } : {}),
    };
  };
}
