// Owns what a session's project context adds to it (docs/guides/memory.md): text blocks opening the
// first user message of every request (memory, the skills listing), the change it makes to the
// session's tools (nested memory after Read/Edit/Write, the Skill tool), a prompt's expansion (a custom
// slash command) and the further check of each call its `allowed-tools` bring. Built by the CLI's wiring
// (cli/context_wiring.ts) from lib/memory, lib/skills and lib/commands; the session only applies it.

import type { AnyTool, ToolResult } from "../tools/tool.ts";
import type { BeforeToolCall } from "./tool_runner.ts";
import type { ChildContext } from "./child_context.ts";

/** Runs one tool call through the session's permission gate and tools, outside the conversation. */
export type ToolCaller = (
  name: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<ToolResult>;

/** A prompt as the model gets it: its text blocks, and the model its command chose. */
export interface PromptExpansion {
  blocks: string[];
  model?: string;
}

export interface SessionContext {
  /** Text blocks opening the first user message of every request; never persisted. */
  blocks: readonly string[];
  /** Tools the context adds (Skill); the run's rules and `--tools` apply to them as to the others. */
  tools?: readonly AnyTool[];
  /** A session tool as the context changes it (Read followed by nested memory); absent = unchanged. */
  wrap?: (tool: AnyTool) => AnyTool;
  /**
   * A new user prompt: a custom command's expansion, or undefined to send it as typed. Also where a
   * turn's narrowing (a command's allowed-tools) is set. Throws a BladeError when the command cannot run.
   */
  expand?: (prompt: string, call: ToolCaller, signal: AbortSignal) => Promise<PromptExpansion | undefined>;
  /** A further check of every call: the allowed-tools of the turn's command or of a loaded skill. */
  beforeToolCall?: BeforeToolCall;
  /** What subagents get of it (their runtime takes it: executor/child_context.ts). */
  child?: ChildContext;
  /** The output style of the session (lib/styles), applied by the system prompt. */
  style?: { name: string; body: string; keepCodingInstructions: boolean };
}
