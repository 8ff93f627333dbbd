// Owns stream-json's task bookkeeping lines for the children of a run, as Claude Code 2.1.332 sends
// them (tests/fixtures/claude/foreground, background): `background_tasks_changed` (the background
// children running now, after one starts or ends), `task_progress` (a child called a tool: what it is
// doing, its tokens, tool calls and time so far), `task_updated` (its end, before its notification)
// and the usage its `task_notification` carries. claude_stream.ts places them among its lines.

import type { RuntimeEvent, SubagentInfo, SubtaskState } from "../protocol/events.ts";

type Line = Record<string, unknown>;

interface Task {
  tokens: number;
  tools: number;
  started: number;
  info: SubagentInfo;
}

export class TaskLines {
  readonly #o: { now: () => number; system: () => Line };
  readonly #tasks = new Map<string, Task>();

  constructor(o: { now: () => number; system: () => Line }) {
    this.#o = o;
  }

  /** A child started: the background set changed when it runs in the background. */
  spawned(info: SubagentInfo): Line[] {
    this.#tasks.set(info.session_id, { tokens: 0, tools: 0, started: this.#o.now(), info });
    return this.#changed(info.background);
  }

  /** A child ended: `task_updated`, the usage for its notification, and the background set without it. */
  completed(
    id: string,
    state: SubtaskState,
  ): { updated: Line; usage?: Record<string, number>; changed: Line[] } {
    const task = this.#tasks.get(id);
    this.#tasks.delete(id);
    const updated = {
      type: "system",
      subtype: "task_updated",
      task_id: id,
      // The Agent SDK's task states: a stopped task is `killed`.
      patch: { status: state === "cancelled" ? "killed" : state, end_time: this.#o.now() },
      ...this.#o.system(),
    };
    return {
      updated,
      ...(task === undefined ? {} : { usage: this.#usage(task) }),
      changed: this.#changed(task?.info.background === true),
    };
  }

  /** One of a child's own events: its tokens are counted; a tool call is a `task_progress` line. */
  progress(id: string, o: { event: RuntimeEvent; toolUseId: string | null }): Line[] {
    const { event, toolUseId } = o;
    const task = this.#tasks.get(id);
    if (task === undefined) return [];
    if (event.type === "assistant_message") {
      task.tokens += (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0);
      return [];
    }
    if (event.type !== "tool_started" || event.sessionId !== id) return [];
    task.tools++;
    return [{
      type: "system",
      subtype: "task_progress",
      task_id: id,
      tool_use_id: toolUseId,
      description: toolActivity(event.name, event.input),
      subagent_type: task.info.subagent_type,
      usage: this.#usage(task),
      last_tool_name: event.name,
      ...this.#o.system(),
    }];
  }

  #usage(task: Task): Record<string, number> {
    return {
      total_tokens: task.tokens,
      tool_uses: task.tools,
      duration_ms: Math.max(0, this.#o.now() - task.started),
    };
  }

  /** `background_tasks_changed` with the background children running now (none for a foreground change). */
  #changed(background: boolean): Line[] {
    if (!background) return [];
    const tasks = [...this.#tasks.entries()].filter(([, t]) => t.info.background).map(([id, t]) => ({
      task_id: id,
      task_type: "local_agent",
      subagent_type: t.info.subagent_type,
      description: t.info.description,
    }));
    return [{ type: "system", subtype: "background_tasks_changed", tasks, ...this.#o.system() }];
  }
}

/** What a child is doing, for `task_progress`: `Read(src/a.ts)`, `Bash(npm test)`, or the tool's name. */
function toolActivity(name: string, input: Record<string, unknown>): string {
  const arg = input.file_path ?? input.command ?? input.pattern ?? input.description;
  const text = typeof arg === "string" ? arg.replace(/\s+/g, " ").trim() : "";
  return text === "" ? name : `${name}(${text.length > 80 ? `${text.slice(0, 79)}…` : text})`;
}
