// Owns the TaskOutput and TaskStop tools' model-facing contracts (docs/reference/task-tool.md). Looking tasks up, waiting
// and cancelling is lib/run/task_control.ts's job behind TaskControlPort.

import { type AnyTool, fail, type ToolContext, type ToolResult } from "./tool.ts";
import { builtInInput } from "./input_check.ts";
import type { TaskOutputToolInput, TaskStopToolInput } from "./input_zod.ts";

/** What TaskOutput asks for: `offset` is where a long result is read from (characters). */
export interface TaskOutputInput {
  taskId: string;
  block: boolean;
  timeoutMs: number;
  offset?: number;
}

export interface TaskControlPort {
  output(input: TaskOutputInput, ctx: ToolContext): Promise<ToolResult>;
  stop(taskId: string, ctx: ToolContext): Promise<ToolResult>;
}

const OUTPUT_DESCRIPTION = `Read the status and final result of a background task (a subagent started with
run_in_background, or a background Bash command). Blocks while it runs, up to the timeout. You do not
need this to learn that a background agent finished — a completion notice is delivered automatically;
use it when you need the full result or the task's details.`;

const STOP_DESCRIPTION = `Stop a running background task (subagent or background Bash command). The task
ends with status "cancelled" and every process it started is killed.`;

export function taskOutputTool(port: TaskControlPort): AnyTool {
  return {
    name: "TaskOutput",
    description: OUTPUT_DESCRIPTION,
    kind: "delegate",
    ...builtInInput<TaskOutputToolInput>("TaskOutput"),
    run(input: TaskOutputToolInput, ctx: ToolContext) {
      return port.output({
        taskId: input.task_id,
        block: input.block ?? true,
        timeoutMs: input.timeout ?? 30_000,
        ...(input.offset === undefined ? {} : { offset: input.offset }),
      }, ctx);
    },
  };
}

export function taskStopTool(port: TaskControlPort): AnyTool {
  return {
    name: "TaskStop",
    description: STOP_DESCRIPTION,
    kind: "delegate",
    ...builtInInput<TaskStopToolInput>("TaskStop"),
    run(input: TaskStopToolInput, ctx: ToolContext) {
      // KillShell (TaskStop's older name) calls it shell_id.
      const id = input.task_id ?? input.shell_id;
      if (id === undefined) return Promise.resolve(fail("task_id is required: the id of the task to stop."));
      return port.stop(id, ctx);
    },
  };
}
