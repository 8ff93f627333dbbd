// Owns the Task tool's model-facing contract (docs/reference/task-tool.md): input schema and limits, the durable call
// identity (`subagent_session_id` assigned before execution, a running `subtask_ref` persisted with
// the call) and the hand-off to a SubagentLauncher. Running children is the manager's job.

import { z } from "zod";
import type { SubtaskRefPart } from "../protocol/events.ts";
import { newAgentId } from "../sys/ids.ts";
import { type AnyTool, type PreparedCall, type ToolContext, type ToolResult } from "./tool.ts";

/** A prompt longer than this is refused: it would be copied into the child's sidecar and transcript. */
export const MAX_TASK_PROMPT = 200_000;

export const taskInputSchema = z.object({
  subagent_type: z.string().min(1).optional().describe(
    "The type of agent to run (one of the available agent types). Required unless resuming.",
  ),
  description: z.string().min(3).max(100).describe("A short (3-100 character) description of the task."),
  prompt: z.string().min(10).max(MAX_TASK_PROMPT, {
    error: `must be at most ${MAX_TASK_PROMPT} characters: put long material in a file and name its path`,
  }).describe("The complete task for the agent: it does not see this conversation."),
  run_in_background: z.boolean().optional().describe(
    "Run in the background: returns at once; a completion notice arrives later. Do not poll.",
  ),
  isolation: z.enum(["none", "worktree"]).optional().describe(
    "worktree: the agent works in its own git worktree (changes are kept on a branch).",
  ),
  resume_from: z.string().optional().describe("Continue a finished agent run: its agent id."),
  resume: z.string().optional().describe("Alias of resume_from."),
  subagent_session_id: z.string().optional().describe("Assigned by Blade; do not set."),
});

export type TaskInput = z.infer<typeof taskInputSchema>;

/** A validated Task call with its durable child id assigned. */
export type TaskRequest = TaskInput & { subagent_session_id: string };

/** What the manager does with a validated Task call. */
export interface SubagentLauncher {
  /** The text describing available agents for the tool description / errors. */
  agentTypes(): string[];
  /** Lineage and type known before execution, for the running `subtask_ref`. */
  plan(input: TaskRequest): Promise<SubtaskRefPart | undefined>;
  launch(input: TaskRequest, ctx: ToolContext): Promise<ToolResult>;
  /** Prepare for a launch of this agent type (e.g. start its sandbox) while the answer streams. */
  warm?(subagentType: string): void;
}

const DESCRIPTION = `Launch a subagent to handle a self-contained task on its own.

Each agent type has its own instructions and tools (listed in the system prompt). The agent starts
fresh: write a complete prompt with everything it needs, and say what it should return. Several Task
calls in one response run at the same time. The result is the agent's final answer and its agent id;
to continue that agent later, call Task again with resume_from set to the id.

With run_in_background: true the call returns at once with the agent id; a completion notice is
delivered to you automatically when the agent finishes — do not poll for it. Use TaskOutput only when
you need the full result text, and TaskStop to cancel.`;

export function taskTool(launcher: SubagentLauncher): AnyTool {
  return {
    name: "Task",
    description: DESCRIPTION,
    kind: "delegate",
    concurrent: true,
    schema: taskInputSchema,
    warm(input: Record<string, unknown>): void {
      if (typeof input.subagent_type === "string") launcher.warm?.(input.subagent_type);
    },
    async prepare(input: Record<string, unknown>, ctx: ToolContext): Promise<PreparedCall> {
      const id = typeof input.subagent_session_id === "string" && input.subagent_session_id !== ""
        ? input.subagent_session_id
        : newAgentId(ctx.ports.ids);
      const withId = { ...input, subagent_session_id: id };
      const parsed = taskInputSchema.safeParse(withId);
      if (!parsed.success) return { input: withId };
      const ref = await launcher.plan({ ...parsed.data, subagent_session_id: id });
      return ref === undefined
        ? { input: withId }
        : { input: withId, parts: [{ ...ref, callId: ctx.callId }] };
    },
    run(input: TaskInput, ctx: ToolContext): Promise<ToolResult> {
      const id = input.subagent_session_id ?? newAgentId(ctx.ports.ids);
      return launcher.launch({ ...input, subagent_session_id: id }, ctx);
    },
  };
}
