// Owns assembling one session's agent loop, the same way for the top-level session, a child and
// `blade run`'s child: the system prompt (environment, trust, mode, the agent list when Task is
// offered, the agent's own prompt or the --system-prompt flags), and the AgentLoop over the
// session's transcript, tools and rules. Announces the session (`session_started`).

import type { Ports } from "../sys/mod.ts";
import type { Provider } from "../protocol/provider.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import type { Message, ToolSpec } from "../protocol/messages.ts";
import type { TranscriptWriter } from "../session/transcript.ts";
import { buildSystemPrompt, type SystemPromptOptions } from "../session/system_prompt.ts";
import type { AnyTool, LiveTools } from "../tools/tool.ts";
import { AgentLoop } from "./loop.ts";
import type { PendingWork } from "../protocol/delivery.ts";
import type { BeforeToolCall, ToolPolicy } from "./tool_runner.ts";
import type { Approver } from "../protocol/approval.ts";

export interface SessionLoopOptions extends ToolPolicy {
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
    /** The output style (the main session's only). */
    style?: SystemPromptOptions["style"];
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
  /** See LoopOptions.followUp (StructuredOutput's corrective retries). */
  followUp?: () => string | undefined;
  /** See LoopOptions.exhausted (StructuredOutput's attempts ran out). */
  exhausted?: () => string | undefined;
  beforeToolCall?: BeforeToolCall;
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
    ...(o.prompt.style === undefined ? {} : { style: o.prompt.style }),
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
    web: o.web,
    workspaceRoot: o.workspaceRoot,
    ...(o.additionalDirs === undefined ? {} : { additionalDirs: o.additionalDirs }),
    storageRoot: o.storageRoot,
    emit: o.emit,
    ...(o.maxTurns === undefined ? {} : { maxTurns: o.maxTurns }),
    ...(o.pending === undefined ? {} : { pending: o.pending }),
    ...(o.followUp === undefined ? {} : { followUp: o.followUp }),
    ...(o.exhausted === undefined ? {} : { exhausted: o.exhausted }),
    ...(o.beforeToolCall === undefined ? {} : { beforeToolCall: o.beforeToolCall }),
    ...(o.approve === undefined ? {} : { approve: o.approve }),
    ...(o.worktree === undefined ? {} : { worktree: o.worktree }),
    ...(o.commands === undefined ? {} : { commands: o.commands }),
  }, history);
}
