// Owns the TaskOutput and TaskStop tools' model-facing contracts (docs/reference/task-tool.md). Looking tasks up, waiting
// and cancelling is the manager's job behind TaskControlPort.

import { z } from "zod";
import type { AnyTool, ToolContext, ToolResult } from "./tool.ts";

export const taskOutputSchema = z.object({
  task_id: z.string().min(1).describe("The agent id (or background shell id) to read."),
  block: z.boolean().optional().describe("Wait while the task is still running (default true)."),
  timeout: z.number().int().min(0).max(600_000).optional().describe(
    "How long to wait in milliseconds (default 30000, at most 600000; 0 = no limit).",
  ),
  offset: z.number().int().min(0).optional().describe(
    "Where to start reading a long result, in characters (default 0); a cut result gives next_offset.",
  ),
});

export const taskStopSchema = z.object({
  task_id: z.string().min(1).describe("The agent id (or background shell id) to stop."),
});

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
    schema: taskOutputSchema,
    run(input: z.infer<typeof taskOutputSchema>, ctx: ToolContext) {
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
    schema: taskStopSchema,
    run(input: z.infer<typeof taskStopSchema>, ctx: ToolContext) {
      return port.stop(input.task_id, ctx);
    },
  };
}
