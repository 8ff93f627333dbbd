// Owns background Bash commands (docs/reference/task-tool.md: "background Bash shells share TaskOutput"): each runs in
// its own process group, keeps a bounded tail of its output, and can be read or stopped by its
// owner through TaskOutput/TaskStop. Lives for the process that started it (not durable).

import type { Ports } from "../sys/mod.ts";
import type { SidecarOwner } from "../store/store.ts";
import { isOwnedBy } from "../store/record_ops.ts";
import { endsWithin } from "./ends_within.ts";
import { type AnyTool, denied, type ToolContext, type ToolResult } from "../tools/tool.ts";
import { commandLaunch } from "../tools/command_launch.ts";

export const SHELL_TAIL_CHARS = 30_000;

interface Shell {
  id: string;
  owner: SidecarOwner;
  command: string;
  startedAt: number;
  tail: string;
  dropped: number;
  status: "running" | "completed" | "failed" | "cancelled";
  exitCode: number | null;
  controller: AbortController;
  done: Promise<void>;
}

export class ShellTasks {
  #ports: Ports;
  #shells = new Map<string, Shell>();

  constructor(ports: Ports) {
    this.#ports = ports;
  }

  owns(id: string, owner: SidecarOwner): boolean {
    const s = this.#shells.get(id);
    return s !== undefined && isOwnedBy(s.owner, owner);
  }

  /** This owner's commands, oldest first (the interactive /tasks). */
  list(owner: SidecarOwner): { id: string; command: string; status: Shell["status"]; startedAt: number }[] {
    return [...this.#shells.values()].filter((s) => isOwnedBy(s.owner, owner)).map((s) => ({
      id: s.id,
      command: s.command,
      status: s.status,
      startedAt: s.startedAt,
    }));
  }

  /** Starts `command` under bash, inside `sandbox` (the OS sandbox's argv up to the command) when given. */
  start(
    command: string,
    options: { cwd: string; owner: SidecarOwner; env?: Record<string, string>; sandbox?: readonly string[] },
  ): string {
    const id = `shell-${this.#ports.ids.random21()}`;
    const controller = new AbortController();
    const shell: Shell = {
      id,
      owner: options.owner,
      command,
      startedAt: this.#ports.clock.now(),
      tail: "",
      dropped: 0,
      status: "running",
      exitCode: null,
      controller,
      done: Promise.resolve(),
    };
    const append = (text: string) => {
      shell.tail += text;
      if (shell.tail.length > SHELL_TAIL_CHARS) {
        shell.dropped += shell.tail.length - SHELL_TAIL_CHARS;
        shell.tail = shell.tail.slice(-SHELL_TAIL_CHARS);
      }
    };
    const [program, ...args] = [...options.sandbox ?? [], "bash", "-c", command];
    shell.done = this.#ports.process.run(program!, args, {
      cwd: options.cwd,
      ...(options.env === undefined ? {} : { env: options.env, clearEnv: true }),
      newProcessGroup: true,
      signal: controller.signal,
      maxOutputBytes: 1,
      onOutput: append,
    }).then((r) => {
      shell.exitCode = r.code;
      if (shell.status === "running") {
        shell.status = r.aborted ? "cancelled" : r.code === 0 ? "completed" : "failed";
      }
    }, (e) => {
      append(`\n[could not run the command: ${(e as Error).message}]\n`);
      shell.status = "failed";
    });
    this.#shells.set(id, shell);
    return id;
  }

  async output(
    input: { taskId: string; block: boolean; timeoutMs: number },
    signal: AbortSignal,
  ): Promise<ToolResult> {
    const shell = this.#shells.get(input.taskId)!;
    let retrieval = "success";
    if (shell.status === "running" && input.block) {
      const ended = await endsWithin(shell.done, {
        clock: this.#ports.clock,
        timeoutMs: input.timeoutMs,
        signal,
      });
      if (!ended) retrieval = "timeout";
    } else if (shell.status === "running") retrieval = "not_ready";
    return {
      isError: false,
      content: JSON.stringify(
        {
          task_id: shell.id,
          task_type: "local_bash",
          retrieval_status: retrieval,
          status: shell.status,
          command: shell.command,
          exit_code: shell.exitCode,
          output: shell.dropped > 0
            ? `[first ${shell.dropped} characters dropped]\n${shell.tail}`
            : shell.tail,
        },
        null,
        2,
      ),
    };
  }

  async stop(id: string): Promise<ToolResult> {
    const shell = this.#shells.get(id)!;
    if (shell.status !== "running") {
      return {
        content: `Task ${id} is not running (status: ${shell.status}); nothing to stop.`,
        isError: false,
      };
    }
    shell.status = "cancelled";
    shell.controller.abort();
    await shell.done;
    return { content: `Stopped background command ${id}: status cancelled.`, isError: false };
  }

  /** Kills every running command (process exit). */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.#shells.values()].filter((s) => s.status === "running").map((s) => this.stop(s.id)),
    );
  }
}

/** Bash with `run_in_background` support: background commands become tasks of `owner`. */
export function backgroundCapableBash(bash: AnyTool, shells: ShellTasks, owner: SidecarOwner): AnyTool {
  return {
    ...bash,
    async run(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
      if (input.run_in_background !== true) return bash.run(input, ctx);
      // The same sandbox and environment as a foreground command (tools/command_launch.ts).
      const launch = await commandLaunch(ctx, ctx.workspaceRoot);
      if ("refusal" in launch) return denied(launch.refusal);
      const id = shells.start(String(input.command), {
        cwd: ctx.workspaceRoot,
        owner,
        env: launch.env,
        sandbox: launch.sandbox,
      });
      return {
        content: JSON.stringify({
          task_id: id,
          status: "running",
          message: "Started in the background. Read its output with TaskOutput; stop it with TaskStop.",
        }),
        isError: false,
        metadata: { taskId: id, background: true },
      };
    },
  };
}
