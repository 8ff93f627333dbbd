// Owns the contract every tool implements and the context the loop hands it. Tools never print and
// never throw for a user-level failure: they return an error result the model can read.

import type { RuntimeEventSink, TranscriptPart } from "../protocol/events.ts";
import type { Ports } from "../sys/mod.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import type { ToolKind } from "../protocol/tool_kind.ts";
import type { InputSchema } from "./input_check.ts";
import type { WebAccess } from "../protocol/web.ts";
import type { PathRules } from "../permissions/write_scope.ts";

/** The git worktree a session is isolated in (docs/guides/isolation.md); all paths canonical. */
export interface ActiveWorktree {
  /** The session's workspace inside the worktree (its root plus the parent's sub-directory offset). */
  workspaceRoot: string;
  worktreeRoot: string;
  /** The parent's repository root: readable, never writable, for this session. */
  parentCheckout: string;
}

export interface ToolContext {
  ports: Ports;
  sessionId: string;
  /** Canonical (real) absolute path of the session's workspace root (the worktree when isolated). */
  workspaceRoot: string;
  /** Canonical `--add-dir` folders: written like the workspace (not by a session in a worktree). */
  additionalDirs?: readonly string[];
  /** Canonical storage root (writes there are allowed even in untrusted workspaces). */
  storageRoot: string;
  trusted: boolean;
  mode: PermissionMode;
  /** The provider's tool call id, durable before execution. */
  callId: string;
  signal: AbortSignal;
  emit: RuntimeEventSink;
  /** Set while the session works in its own git worktree: writes and Bash folders must stay inside it. */
  worktree?: ActiveWorktree;
  /** The complete environment of commands the session runs (a read-only auditor's minimal one); absent = inherited. */
  commandEnv?: Record<string, string>;
  /** Variables added to the inherited environment of commands (settings `env`); not Blade's own. */
  extraEnv?: Record<string, string>;
  /** The session's commands may reach the network from their sandbox (yolo, or a rule allowing all of Bash). */
  commandNetwork?: boolean;
  /**
   * The command may write nothing, whatever the session's mode: a read-only auditor's, or a read-only
   * command allowed without a rule (docs/reference/tools.md); in the OS sandbox it gets the read-only profile.
   */
  readOnlyCommands?: boolean;
  /**
   * The session's deny rules and its agents' `tools` layers: its commands' writable folders narrow to
   * what they name (permissions/write_scope.ts). Absent = the whole writable roots.
   */
  pathRules?: PathRules;
  /**
   * The shell Bash runs commands with, resolved by the main thread (a child in a Worker can neither
   * read PATH nor stat /bin/bash); absent = found from PATH.
   */
  shell?: string;
  /** How the session reaches the web (WebFetch, WebSearch); absent = it cannot. */
  web?: WebAccess | undefined;
  /**
   * The files this session has read (real path → modification time when read, null when unknown):
   * NotebookEdit changes only a notebook read since it last changed (docs/reference/tools.md).
   */
  readFiles?: Map<string, number | null>;
  /**
   * Why `tool` may not read or list the real path `path` that a search (Grep, Glob) met below the
   * path it was approved for: a deny or ask rule such as `Read(./secrets/**)`; undefined = allowed.
   */
  pathRefusal?: (tool: string, path: string) => string | undefined;
  /**
   * Model requests the session may still make (its `--max-turns` or agent `maxTurns` less those made);
   * a child it starts gets no more. Absent = no limit.
   */
  turnsLeft?: number;
}

/** How a session's commands run: their whole environment and the shell program (both optional). */
export interface CommandSetup {
  env?: Record<string, string>;
  shell?: string;
}

export interface ToolResult {
  content: string;
  isError: boolean;
  /** Structured data for callers (files touched, exit code, child lineage…); never sent to the model. */
  metadata?: Record<string, unknown>;
  /**
   * What PostToolUse hooks read as `tool_response`: Claude Code's object for a built-in tool
   * (tools/hook_response.ts); absent = the result as the model sees it. Never sent to the model.
   */
  response?: Record<string, unknown>;
  /** Extra transcript parts written with the result (e.g. a terminal `subtask_ref`). */
  parts?: TranscriptPart[];
  /** The tool refused the call for a permission reason (untrusted folder, outside the workspace…). */
  denied?: boolean;
  /** This result's own size limit when it depends on the call (Bash: BASH_MAX_OUTPUT_LENGTH); else the tool's. */
  maxChars?: number;
  /**
   * Text blocks sent after the tool results in the same user message (a skill's instructions, the
   * memory of a folder first reached: docs/guides/memory.md). Persisted with the results.
   */
  context?: string[];
  /**
   * Texts a hook adds after the step's results (Claude Code's PostToolUse additionalContext): a system
   * turn of their own after the results' message, as Claude Code 2.1.332 sends them.
   */
  systemContext?: string[];
}

export interface PreparedCall {
  /** The input as it will be persisted and executed (e.g. with an assigned `subagent_session_id`). */
  input: Record<string, unknown>;
  /** Parts persisted together with the call, before it executes (e.g. a running `subtask_ref`). */
  parts?: TranscriptPart[];
}

export interface Tool<I = Record<string, unknown>> {
  readonly name: string;
  /** Model-facing description. */
  readonly description: string;
  readonly kind: ToolKind;
  /** Checks an input before the tool runs: a built-in tool's compiled validator (input_check.ts) or a zod schema. */
  readonly schema: InputSchema<I>;
  /** The input's JSON Schema, what the model is sent (a built-in tool's is generated from its zod schema). */
  readonly inputSchema: Record<string, unknown>;
  /** An external tool its server marks read-only (`readOnlyHint`): the only kind plan mode allows. */
  readonly readOnly?: boolean;
  /** Calls of a concurrent tool in one model response run at the same time (docs/reference/sessions.md: Task). */
  readonly concurrent?: boolean;
  /**
   * A result longer than this is saved to a file and the model gets a preview with its path
   * (tools/persisted_output.ts); default and ceiling MAX_RESULT_CHARS, Infinity = never (Read).
   */
  readonly maxResultChars?: number;
  /**
   * Folders this tool's results send the model to (a skill's folder, whose files are the skill's to use):
   * Read, Grep and Glob there run without asking, as in the workspace (executor/tool_runner.ts).
   */
  readonly readableDirs?: readonly string[];
  /**
   * A hint that a call is coming: with the string fields its arguments open with while they still
   * stream (model_turn.ts), then with its whole input. May come several times per call; never fails.
   */
  warm?(input: Record<string, unknown>): void;
  /**
   * Gives the call its durable identity before anything executes; the loop persists the returned
   * input with the call. Receives the raw (unvalidated) input.
   */
  prepare?(input: Record<string, unknown>, ctx: ToolContext): PreparedCall | Promise<PreparedCall>;
  run(input: I, ctx: ToolContext): Promise<ToolResult>;
}

// deno-lint-ignore no-explicit-any
export type AnyTool = Tool<any>;

export function ok(content: string, metadata?: Record<string, unknown>): ToolResult {
  return metadata === undefined ? { content, isError: false } : { content, isError: false, metadata };
}

/** A refusal for a permission reason: an error result that print mode lists in `permission_denials`. */
export function denied(content: string): ToolResult {
  return { content, isError: true, denied: true };
}

export function fail(content: string, metadata?: Record<string, unknown>): ToolResult {
  return metadata === undefined ? { content, isError: true } : { content, isError: true, metadata };
}

/** Tools that may change while a session runs (MCP servers' lists); the loop asks again when `version` moves. */
export interface LiveTools {
  version(): number;
  tools(): readonly AnyTool[];
  /**
   * A tool the model may still call although it is no longer offered (its server crashed): running
   * it gives the clear error of why. Undefined for names that never were this source's.
   */
  gone?(name: string): AnyTool | undefined;
}
