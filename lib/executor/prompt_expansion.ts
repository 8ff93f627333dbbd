// Owns turning a new user prompt into what the model gets (docs/guides/memory.md): a prompt naming a
// custom command is expanded by the session's context before the session runs it, its `!`command``s
// run through the core tools under the session's own gate (trust, mode, rules, narrowing).

import type { Message } from "../protocol/messages.ts";
import { NO_RULES } from "../protocol/tool_rule.ts";
import { coreTools } from "../tools/registry.ts";
import type { RuleSet } from "../protocol/tool_rule.ts";
import type { Ports } from "../sys/mod.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import type { PromptExpansion, SessionContext } from "./session_context.ts";
import { toolCaller } from "./tool_caller.ts";

/** What expanding needs of the session's composition (an App, or main_runner's MainSessionDeps). */
export interface ExpansionDeps {
  ports: Ports;
  workspace: string;
  additionalDirs: readonly string[];
  layout: { root: string };
  trust: { trusted: boolean };
  config: { permissionMode: PermissionMode };
  claude?: { env: Record<string, string> };
}

/**
 * A prompt naming a custom command, expanded by the session's context (undefined: send it as typed).
 * Its `!`command``s run through the core tools under the session's gate: trust, mode, rules, narrowing.
 */
export function expandPrompt(
  app: ExpansionDeps,
  o: { context?: SessionContext; rules?: RuleSet },
  prompt: string,
  signal: AbortSignal,
): Promise<PromptExpansion | undefined> {
  const expand = o.context?.expand;
  if (expand === undefined || !prompt.trimStart().startsWith("/")) return Promise.resolve(undefined);
  const call = toolCaller(coreTools(), {
    ports: app.ports,
    sessionId: "prompt",
    workspaceRoot: app.workspace,
    ...(app.additionalDirs.length === 0 ? {} : { additionalDirs: app.additionalDirs }),
    storageRoot: app.layout.root,
    trusted: app.trust.trusted,
    mode: app.config.permissionMode,
    ...(app.claude === undefined || Object.keys(app.claude.env).length === 0
      ? {}
      : { extraEnv: app.claude.env }),
    rules: o.rules ?? NO_RULES,
    ...(o.context?.beforeToolCall === undefined ? {} : { beforeToolCall: o.context.beforeToolCall }),
  });
  return expand(prompt, call, signal);
}

export function userBlocks(blocks: readonly string[]): Message {
  return { role: "user", content: blocks.map((text) => ({ type: "text", text })) };
}
