// Owns assembling one session's agent loop, the same way for the top-level session, a child and
// `blade run`'s child: the system prompt (environment, trust, mode, the agent list when Task is
// offered, the agent's own prompt or the --system-prompt flags), and the AgentLoop over the
// session's transcript, tools and rules. Announces the session (`session_started`).

import type { Ports } from "../sys/mod.ts";
import type { Provider } from "../protocol/provider.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import type { Message, ToolSpec } from "../protocol/messages.ts";
import type { TranscriptWriter } from "../session/transcript.ts";
import { buildSystemPrompt } from "../session/system_prompt.ts";
import type { AnyTool, LiveTools } from "../tools/tool.ts";
import { AgentLoop } from "./loop.ts";
import type { PendingWork } from "../protocol/delivery.ts";
import type { ToolPolicy } from "./tool_runner.ts";
import { hookPoints, type LoopHooks } from "./hooks.ts";
import type { Approver } from "../protocol/approval.ts";

/** One session's loop: the loop's options plus its prompt and announcement; hook points pass through. */
export interface SessionLoopOptions extends ToolPolicy, LoopHooks {
  ports: Ports;
  provider: Provider;
  transcript: TranscriptWriter;
  /** A promise while the tool modules still load (a Worker child); `specs` then describe them. */
  tools: readonly AnyTool[] | PromiseLike<readonly AnyTool[]>;
  specs?: ToolSpec[];
  /** Tools that can change between model requests (MCP servers). */
  live?: LiveTools;
  sessionId: string;
  /** `main` for the top-level session, else the child's agent type. */
  agentType: string;
  depth: number;
  model: string;
  maxTokens: number;
  platform: string;
  emit: RuntimeEventSink;
  prompt: {
    /** The agent list, when the session is offered the Task tool. */
    agents?: string;
    /** Replaces the base prompt (--system-prompt). */
    override?: string;
    /** Appended: the agent's own prompt, or --append-system-prompt. */
    append: readonly string[];
  };
  /** Memory and the skills listing, opening the first user message of every request (LoopOptions.context). */
  context?: readonly string[];
  /** Top-level sessions announce the tool names, subagent types and permission mode they start with. */
  announce?: {
    tools: string[];
    agents: string[];
    permissionMode: string;
    mcpServers?: { name: string; status: string }[];
  };
  maxTurns?: number;
  pending?: PendingWork;
  /** The interactive session's approvals (LoopOptions.approve). */
  approve?: Approver;
}

export function sessionLoop(
  o: SessionLoopOptions,
  history: { messages: Message[]; turns: number },
): AgentLoop {
  const system = buildSystemPrompt({
    workspaceRoot: o.workspaceRoot,
    ...(o.additionalDirs === undefined || o.worktree !== undefined
      ? {}
      : { additionalDirs: o.additionalDirs }),
    platform: o.platform,
    date: new Date(o.ports.clock.now()).toISOString().slice(0, 10),
    trusted: o.trusted,
    mode: o.mode,
    ...(o.prompt.agents === undefined ? {} : { agents: o.prompt.agents }),
    ...(o.prompt.override === undefined ? {} : { override: o.prompt.override }),
    append: o.prompt.append,
  });
  o.emit({
    type: "session_started",
    sessionId: o.sessionId,
    agentType: o.agentType,
    model: o.model,
    depth: o.depth,
    ...o.announce,
  });
  return new AgentLoop({
    ports: o.ports,
    provider: o.provider,
    transcript: o.transcript,
    tools: o.tools,
    ...(o.specs === undefined ? {} : { specs: o.specs }),
    ...(o.live === undefined ? {} : { live: o.live }),
    system,
    ...(o.context === undefined ? {} : { context: o.context }),
    model: o.model,
    maxTokens: o.maxTokens,
    meta: { sessionId: o.sessionId, agentType: o.agentType, depth: o.depth },
    trusted: o.trusted,
    mode: o.mode,
    ...(o.extraEnv === undefined ? {} : { extraEnv: o.extraEnv }),
    rules: o.rules,
    ...(o.limits === undefined ? {} : { limits: o.limits }),
    workspaceRoot: o.workspaceRoot,
    ...(o.additionalDirs === undefined ? {} : { additionalDirs: o.additionalDirs }),
    storageRoot: o.storageRoot,
    emit: o.emit,
    ...(o.maxTurns === undefined ? {} : { maxTurns: o.maxTurns }),
    ...(o.pending === undefined ? {} : { pending: o.pending }),
    ...hookPoints(o),
    ...(o.approve === undefined ? {} : { approve: o.approve }),
    ...(o.worktree === undefined ? {} : { worktree: o.worktree }),
    ...(o.commands === undefined ? {} : { commands: o.commands }),
  }, history);
}
