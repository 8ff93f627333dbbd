// Owns the Task tool's model-facing contract (docs/reference/task-tool.md): input schema and limits, the durable call
// identity (`subagent_session_id`, assigned by Blade before execution and never taken from the model —
// lib/protocol/assigned_input.ts —, and a running `subtask_ref` persisted with the call) and the
// hand-off to a SubagentLauncher. Running children is the job of lib/run/ (subagents.ts).

import type { SubtaskRefPart } from "../protocol/events.ts";
import { AGENT_TOOL } from "../protocol/tool_names.ts";
import { CHILD_ID_KEY } from "../protocol/assigned_input.ts";
import { isValidSessionId } from "../protocol/ids.ts";
import { newAgentId } from "../sys/ids.ts";
import { type AnyTool, type PreparedCall, type ToolContext, type ToolResult } from "./tool.ts";
import { builtInInput, type InputSchema } from "./input_check.ts";
import { TASK_PROMPT_TOO_LONG } from "./input_limits.ts";
import type { TaskInput } from "./input_zod.ts";

export { MAX_TASK_PROMPT } from "./input_limits.ts";
export type { TaskInput };

/** A validated Task call with its durable child id assigned. */
export type TaskRequest = TaskInput & { subagent_session_id: string };

/** What lib/run/ does with a validated Task call. */
export interface SubagentLauncher {
  /** The text describing available agents for the tool description / errors. */
  agentTypes(): string[];
  /** Lineage and type known before execution, for the running `subtask_ref`. */
  plan(input: TaskRequest): Promise<SubtaskRefPart | undefined>;
  launch(input: TaskRequest, ctx: ToolContext): Promise<ToolResult>;
  /** Prepare for this call's launch (e.g. start its sandbox) while the answer still streams. */
  warm?(call: WarmCall): void;
}

/** What a Task call that may be prepared for says, read from its input before it is validated. */
export interface WarmCall {
  subagentType: string;
  /** The call's own isolation (else its agent's). */
  isolation?: "none" | "worktree" | "remote";
}

const DESCRIPTION = `Launch a subagent to handle a self-contained task on its own.

Each agent type has its own instructions and tools (listed in the system prompt). The agent starts
fresh: write a complete prompt with everything it needs, and say what it should return. Several Agent
calls in one response run at the same time. The result is the agent's final answer and its agent id;
to continue that agent later, call Agent again with resume_from set to the id.

With run_in_background: true the call returns at once with the agent id; a completion notice is
delivered to you automatically when the agent finishes — do not poll for it. Use TaskOutput only when
you need the full result text, and TaskStop to cancel.`;

/** The Task input's check, with the prompt limit's own message (as its zod schema in input_zod.ts). */
export const taskInput = builtInInput<TaskInput>(AGENT_TOOL, { prompt: { maxLength: TASK_PROMPT_TOO_LONG } });

/**
 * What the Task tool runs: the model's input (checked by `taskInput`) with the child id `prepare()`
 * assigned. The model's schema has no id; the tool runner refuses a call whose model input sets one.
 */
export const taskRequestInput: InputSchema<TaskRequest> = {
  safeParse(input: unknown) {
    const parsed = taskInput.schema.safeParse(input);
    if (!parsed.success) return parsed;
    const id = (input as Record<string, unknown>)[CHILD_ID_KEY];
    if (!isValidSessionId(id)) {
      const message = "the call has no child id assigned by Blade";
      return { success: false, error: { issues: [{ path: [CHILD_ID_KEY], message }] } };
    }
    return { success: true, data: { ...parsed.data, subagent_session_id: id } };
  },
};

export function taskTool(launcher: SubagentLauncher): AnyTool {
  return {
    name: AGENT_TOOL,
    description: DESCRIPTION,
    kind: "delegate",
    concurrent: true,
    inputSchema: taskInput.inputSchema,
    schema: taskRequestInput,
    warm(input: Record<string, unknown>): void {
      // A resumed run's grant follows its source's record, read only at launch: nothing to guess now.
      // While the arguments stream this sees their leading fields (`subagent_type` comes first in the
      // schema): a later `isolation` or `resume_from` makes this Worker one the launch does not use,
      // which ends when idle; the launch always derives its own grant.
      if (typeof input.subagent_type !== "string" || "resume_from" in input || "resume" in input) return;
      const isolation =
        input.isolation === "none" || input.isolation === "worktree" || input.isolation === "remote"
          ? input.isolation
          : undefined;
      launcher.warm?.({
        subagentType: input.subagent_type,
        ...(isolation === undefined ? {} : { isolation }),
      });
    },
    async prepare(input: Record<string, unknown>, ctx: ToolContext): Promise<PreparedCall> {
      // Always a fresh id of Blade's: the runner has refused a call whose model input names one.
      const id = newAgentId(ctx.ports.ids);
      const withId = { ...input, [CHILD_ID_KEY]: id };
      const parsed = taskInput.schema.safeParse(withId);
      if (!parsed.success) return { input: withId };
      const ref = await launcher.plan({ ...parsed.data, subagent_session_id: id });
      return ref === undefined
        ? { input: withId }
        : { input: withId, parts: [{ ...ref, callId: ctx.callId }] };
    },
    run(input: TaskRequest, ctx: ToolContext): Promise<ToolResult> {
      return launcher.launch(input, ctx);
    },
  };
}
