// Owns background commands (docs/reference/tools.md "Bash", "Monitor"): each runs in its own process
// group, keeps a bounded tail of its output, has a time limit, and can be read or stopped by its owner
// through TaskOutput/TaskStop. When one ends by itself its owner gets a notice (shell_notice.ts), and
// its session waits for it like for a background child (pendingFor). Lives for the process that
// started it (not durable).

import type { Ports } from "../sys/mod.ts";
import type { SidecarOwner } from "../store/store.ts";
import type { Delivery, PendingWork } from "../protocol/delivery.ts";
import { isOwnedBy } from "../store/record_ops.ts";
import { endsWithin } from "./ends_within.ts";
import { type AnyTool, denied, type ToolContext, type ToolResult } from "../tools/tool.ts";
import { commandLaunch } from "../tools/command_launch.ts";
import { setAsideCreated } from "../tools/set_aside_created.ts";
import { shellEndNotice } from "./shell_notice.ts";

export const SHELL_TAIL_CHARS = 30_000;
/** A background command's time limit: `timeout` of its call, else this (Claude Code's figures). */
export const SHELL_DEFAULT_TIMEOUT_MS = 600_000;
export const SHELL_MAX_TIMEOUT_MS = 7_200_000;

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
  /** Stopped at its time limit (ms). */
  timedOutAfterMs?: number;
}

/** How a command is started: where, for whom, and what happens with its output and its end. */
export interface ShellStart {
  cwd: string;
  owner: SidecarOwner;
  /** The command's whole environment (tools/command_launch.ts); absent = inherited. */
  env?: Record<string, string>;
  /** The OS sandbox's argv up to the command (tools/command_launch.ts); absent or empty = none. */
  sandbox?: readonly string[];
  /** Protected paths to set aside if the command created them (tools/set_aside_created.ts). */
  watched?: readonly string[];
  /** The tool call that started it (named in its notice). */
  callId?: string;
  /** What its notices call it (the call's description, else the command). */
  label?: string;
  timeoutMs?: number;
  /** Receives its stdout as it arrives (Monitor's events). */
  onStdout?: (text: string) => void;
  /**
   * Called once when it ended by itself or at its time limit (not when stopped); default: a notice to
   * its owner (shellEndNotice).
   */
  onEnd?: (end: { exitCode: number | null; timedOutAfterMs?: number }) => void;
}

interface Notice {
  inboxId: string;
  text: string;
}

function ownerKey(o: SidecarOwner): string {
  return `${o.parentSessionId}\0${o.parentProjectPath}`;
}

export class ShellTasks {
  #ports: Ports;
  #shells = new Map<string, Shell>();
  #notices = new Map<string, Notice[]>();
  #waiters = new Map<string, Set<() => void>>();

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

  start(command: string, options: ShellStart): string {
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
    const limit = Math.min(options.timeoutMs ?? SHELL_DEFAULT_TIMEOUT_MS, SHELL_MAX_TIMEOUT_MS);
    const stopTimer = this.#ports.clock.timer(limit, () => {
      shell.timedOutAfterMs = limit;
      controller.abort(new Error("time limit"));
    });
    const [program, ...args] = [...options.sandbox ?? [], "bash", "-c", command];
    shell.done = this.#ports.process.run(program!, args, {
      cwd: options.cwd,
      ...(options.env === undefined ? {} : { env: options.env, clearEnv: true }),
      newProcessGroup: true,
      signal: controller.signal,
      maxOutputBytes: 1,
      onOutput: (text, stream) => {
        append(text);
        if (stream === "stdout") options.onStdout?.(text);
      },
    }).then((r) => {
      shell.exitCode = r.code;
      if (shell.status === "running") {
        shell.status = r.aborted && shell.timedOutAfterMs === undefined
          ? "cancelled"
          : r.code === 0 && shell.timedOutAfterMs === undefined
          ? "completed"
          : "failed";
      }
    }, (e) => {
      append(`\n[could not run the command: ${(e as Error).message}]\n`);
      shell.status = "failed";
    }).then(async () => {
      const setAside = await setAsideCreated(this.#ports.fs, options.watched ?? []);
      if (setAside !== undefined) append(`\n${setAside}\n`);
      stopTimer();
      if (shell.status === "cancelled") return this.#wake(options.owner);
      const end = {
        exitCode: shell.exitCode,
        ...(shell.timedOutAfterMs === undefined ? {} : { timedOutAfterMs: shell.timedOutAfterMs }),
      };
      if (options.onEnd !== undefined) options.onEnd(end);
      else {
        this.notify(
          options.owner,
          {
            inboxId: `shell:end:${id}`,
            text: shellEndNotice({
              id,
              ...(options.callId === undefined ? {} : { callId: options.callId }),
              label: options.label ?? command,
              status: shell.status === "completed" ? "completed" : "failed",
              ...end,
            }),
          },
        );
      }
      this.#wake(options.owner);
    });
    this.#shells.set(id, shell);
    return id;
  }

  /** Queues a notice for `owner`'s session (a hidden message; its inbox id starts with `shell:`). */
  notify(owner: SidecarOwner, notice: Notice): void {
    const key = ownerKey(owner);
    const queue = this.#notices.get(key) ?? [];
    queue.push(notice);
    this.#notices.set(key, queue);
    this.#wake(owner);
  }

  #wake(owner: SidecarOwner): void {
    const key = ownerKey(owner);
    const waiters = this.#waiters.get(key);
    this.#waiters.delete(key);
    for (const w of waiters ?? []) w();
  }

  /** `owner`'s commands as background work its session waits for and is told about (settle.ts). */
  pendingFor(owner: SidecarOwner): PendingWork {
    const key = ownerKey(owner);
    const running = () =>
      [...this.#shells.values()].filter((s) => s.status === "running" && isOwnedBy(s.owner, owner)).map((s) =>
        s.id
      );
    return {
      running,
      takeDeliveries: () => {
        const queue = this.#notices.get(key) ?? [];
        this.#notices.delete(key);
        return Promise.resolve(queue.map((n): Delivery => ({
          inboxId: n.inboxId,
          message: { role: "user", content: [{ type: "text", text: n.text }], hidden: true },
          parts: [],
        })));
      },
      acknowledged: () => Promise.resolve(),
      waitForChange: (signal) => {
        if ((this.#notices.get(key)?.length ?? 0) > 0 || signal.aborted) return Promise.resolve();
        return new Promise<void>((resolve) => {
          const set = this.#waiters.get(key) ?? new Set();
          set.add(resolve);
          this.#waiters.set(key, set);
          signal.addEventListener("abort", () => resolve(), { once: true });
        });
      },
      cancelAll: async () => {
        const ids = running();
        await Promise.all(ids.map((id) => this.stop(id)));
        return ids;
      },
    };
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
      const description = typeof input.description === "string" && input.description !== ""
        ? input.description
        : undefined;
      const id = shells.start(String(input.command), {
        cwd: ctx.workspaceRoot,
        owner,
        env: launch.env,
        sandbox: launch.sandbox,
        watched: launch.watched,
        callId: ctx.callId,
        ...(description === undefined ? {} : { label: description }),
        ...(typeof input.timeout === "number" ? { timeoutMs: input.timeout } : {}),
      });
      return {
        content: `Command running in background with ID: ${id}. You will be notified when it completes. ` +
          `To check interim output, use TaskOutput with task_id "${id}" and block: false; stop it with TaskStop.`,
        isError: false,
        metadata: { taskId: id, background: true },
      };
    },
  };
}

/** A session's background work: its children's (durable inbox) and its shells' (in memory), as one. */
export function withShells(children: PendingWork, shells: PendingWork): PendingWork {
  return {
    running: () => [...children.running(), ...shells.running()],
    takeDeliveries: async () => [...await children.takeDeliveries(), ...await shells.takeDeliveries()],
    acknowledged: (ids) => children.acknowledged(ids.filter((id) => !id.startsWith("shell:"))),
    waitForChange: async (signal) => {
      const stop = new AbortController();
      const either = AbortSignal.any([signal, stop.signal]);
      await Promise.race([children.waitForChange(either), shells.waitForChange(either)]);
      stop.abort();
    },
    cancelAll: async (reason) => [...await children.cancelAll(reason), ...await shells.cancelAll(reason)],
  };
}
