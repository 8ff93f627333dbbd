// Owns assembling one session's agent loop, the same way for the top-level session, a child and
// `blade run`'s child: the system prompt (environment, trust, mode, the agent list when Task is
// offered, the agent's own prompt or the --system-prompt flags), and the AgentLoop over the
// session's transcript, tools and rules. Announces the session (`session_started`).

import type { Message } from "../protocol/messages.ts";
import { buildSystemPrompt, type SystemPromptOptions } from "../session/system_prompt.ts";
import { AgentLoop, type LoopOptions } from "./loop.ts";

/**
 * One session's loop: the loop's own options (LoopOptions, passed through as they are) but its system
 * prompt and request meta, which are built here from the prompt parts and the session's identity.
 */
export interface SessionLoopOptions extends Omit<LoopOptions, "system" | "meta"> {
  sessionId: string;
  /** `main` for the top-level session, else the child's agent type. */
  agentType: string;
  depth: number;
  platform: string;
  prompt: {
    /** The agent list, when the session is offered the Task tool. */
    agents?: string | undefined;
    /** Replaces the base prompt (--system-prompt). */
    override?: string | undefined;
    /** Appended: the agent's own prompt, or --append-system-prompt. */
    append: readonly string[];
    /** The output style (the main session's only). */
    style?: SystemPromptOptions["style"];
  };
  /** Top-level sessions announce the tool names, subagent types and permission mode they start with. */
  announce?: {
    tools: string[];
    agents: string[];
    permissionMode: string;
    mcpServers?: { name: string; status: string }[];
  };
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
    ...o,
    system,
    meta: { sessionId: o.sessionId, agentType: o.agentType, depth: o.depth },
  }, history);
}
