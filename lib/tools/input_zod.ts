// Owns the zod schemas of the built-in tools' inputs: the one source of their input contracts. Not
// loaded at run time: scripts/tool_schemas.ts converts them to JSON Schema (lib/tools/input_schemas.gen.ts),
// which the model is sent and the tools are checked with (input_check.ts, compared with these schemas by
// its test); the tools import only the input types from here, and the limits both state from
// input_limits.ts.

import { z } from "zod";
import { EFFORTS } from "../protocol/effort.ts";
import { BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS } from "../config/bash_limits.ts";
import {
  GREP_DEFAULT_HEAD_LIMIT,
  MAX_TASK_PROMPT,
  READ_DEFAULT_LIMIT,
  TASK_PROMPT_TOO_LONG,
} from "./input_limits.ts";

export const readInput = z.object({
  file_path: z.string().min(1).describe(
    "The path of the file to read (absolute, or relative to the workspace root)",
  ),
  offset: z.number().int().min(0).optional().describe(
    "The line number to start reading from (1-based). Only provide if the file is too large to read at once",
  ),
  limit: z.number().int().min(1).optional().describe(
    `The number of lines to read (default ${READ_DEFAULT_LIMIT}). Only provide if the file is too large to read at once`,
  ),
});

export const writeInput = z.object({
  file_path: z.string().min(1).describe(
    "The path of the file to write (absolute, or relative to the workspace root)",
  ),
  content: z.string().describe("The full content to write to the file"),
});

export const editInput = z.object({
  file_path: z.string().min(1).describe(
    "The path of the file to modify (absolute, or relative to the workspace root)",
  ),
  old_string: z.string().describe("The exact text to replace"),
  new_string: z.string().describe("The text to replace it with (must be different from old_string)"),
  replace_all: z.boolean().optional().describe("Replace every occurrence of old_string (default false)"),
});

export const globInput = z.object({
  pattern: z.string().min(1).describe("The glob pattern to match files against"),
  path: z.string().optional().describe(
    'The folder to search in (default: the workspace root). Omit it to use the default; do not pass "undefined" or "null"',
  ),
});

export const grepInput = z.object({
  pattern: z.string().min(1).describe(
    "The regular expression to search for in file contents (ripgrep's syntax: Rust regular expressions)",
  ),
  path: z.string().optional().describe("File or folder to search in (default: the workspace root)"),
  glob: z.string().optional().describe(
    'Glob that file paths must match, e.g. "*.js" or "*.{ts,tsx}" (rg --glob; several separated by spaces or commas)',
  ),
  output_mode: z.enum(["content", "files_with_matches", "count"]).optional().describe(
    'Output mode: "content" (matching lines), "files_with_matches" (file paths, the default) or "count" (matching lines per file)',
  ),
  "-B": z.number().int().min(0).optional().describe("Lines to show before each match (content mode only)"),
  "-A": z.number().int().min(0).optional().describe("Lines to show after each match (content mode only)"),
  "-C": z.number().int().min(0).optional().describe("Alias for context."),
  context: z.number().int().min(0).optional().describe(
    "Lines to show before and after each match (content mode only)",
  ),
  "-n": z.boolean().optional().describe("Show line numbers (content mode only; default true)"),
  "-i": z.boolean().optional().describe("Case-insensitive search"),
  "-o": z.boolean().optional().describe(
    "Print only the matched parts of each matching line, one a line (content mode only)",
  ),
  type: z.string().optional().describe("File type to search (rg --type), e.g. js, py, rust, go, java"),
  head_limit: z.number().int().min(0).optional().describe(
    `Keep only the first N lines (content) or entries (files_with_matches, count); default ${GREP_DEFAULT_HEAD_LIMIT}, 0 for no limit`,
  ),
  offset: z.number().int().min(0).optional().describe("Skip the first N lines or entries before head_limit"),
  multiline: z.boolean().optional().describe(
    "Patterns may span lines and . matches newlines (rg -U --multiline-dotall)",
  ),
});

export const notebookEditInput = z.object({
  notebook_path: z.string().min(1).describe(
    "The path of the Jupyter notebook (.ipynb) to edit (absolute, or relative to the workspace root)",
  ),
  cell_id: z.string().optional().describe(
    'The id of the cell to change, as Read shows it (<cell id="…">). With edit_mode insert the new cell goes after it, or first when it is left out.',
  ),
  new_source: z.string().describe("The new source of the cell"),
  cell_type: z.enum(["code", "markdown"]).optional().describe(
    "The cell's type (code or markdown): default the cell's own; required with edit_mode insert",
  ),
  edit_mode: z.enum(["replace", "insert", "delete"]).optional().describe(
    "replace (the default), insert or delete",
  ),
});

export const webFetchInput = z.object({
  url: z.string().min(1).describe("The URL to fetch (http or https; http is upgraded to https)"),
  prompt: z.string().min(1).describe("What to find out from the page: the request answered over its content"),
  offset: z.number().int().min(0).optional().describe(
    "Where to start reading a page too long for one call, in characters: the value the previous result gave",
  ),
});

export const webSearchInput = z.object({
  query: z.string().min(2).describe("The search query"),
  allowed_domains: z.array(z.string()).optional().describe("Only include results from these domains"),
  blocked_domains: z.array(z.string()).optional().describe("Never include results from these domains"),
});

export const monitorInput = z.object({
  description: z.string().min(1).describe(
    "Short description of what you are monitoring (it is in every notice).",
  ),
  timeout_ms: z.number().int().min(1000).max(3_600_000).optional().describe(
    "Stop the monitor after this many milliseconds (default 300000; above 600000 counts as 600000). You are notified at expiry and can re-arm.",
  ),
  command: z.string().optional().describe(
    "Shell command or script. Each stdout line is an event; its exit ends the watch.",
  ),
});

export const bashInput = z.object({
  command: z.string().min(1).describe("The command to execute"),
  // Capped at run time by BASH_MAX_TIMEOUT_MS (default 10 minutes).
  timeout: z.number().int().min(1).optional().describe(
    `Optional timeout in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, max ${BASH_MAX_TIMEOUT_MS})`,
  ),
  description: z.string().optional().describe(
    'Clear, concise description of what this command does in 5-10 words, e.g. "Run the unit tests"',
  ),
  run_in_background: z.boolean().optional().describe(
    "Run the command as a background task (read it with TaskOutput, stop it with TaskStop)",
  ),
});

export const agentInput = z.object({
  subagent_type: z.string().min(1).optional().describe(
    "The type of agent to run (one of the available agent types). Required unless resuming.",
  ),
  description: z.string().min(3).max(100).describe("A short (3-100 character) description of the task."),
  prompt: z.string().min(10).max(MAX_TASK_PROMPT, { error: TASK_PROMPT_TOO_LONG }).describe(
    "The complete task for the agent: it does not see this conversation.",
  ),
  run_in_background: z.boolean().optional().describe(
    "Run in the background: returns at once; a completion notice arrives later. Do not poll.",
  ),
  isolation: z.enum(["none", "worktree", "remote"]).optional().describe(
    "worktree: the agent works in its own git worktree (changes are kept on a branch). " +
      "remote: the agent runs in the background on a worker machine (needs a shared store).",
  ),
  model: z.string().min(1).optional().describe(
    'The model the agent runs on: "sonnet", "opus", "haiku", a model id, or "inherit" (this session\'s model). ' +
      "Omit it to use the agent definition's model. Never more than this session may use.",
  ),
  effort: z.enum(EFFORTS).optional().describe(
    "How hard the agent works (low, medium, high, xhigh, max). Set it only when the user or instructions " +
      "ask for a level; omit it and the agent runs at its definition's effort, else this session's.",
  ),
  resume_from: z.string().optional().describe("Continue a finished agent run: its agent id."),
  resume: z.string().optional().describe("Alias of resume_from."),
});

export const taskOutputInput = z.object({
  task_id: z.string().min(1).describe("The agent id (or background shell id) to read."),
  block: z.boolean().optional().describe("Wait while the task is still running (default true)."),
  timeout: z.number().int().min(0).max(600_000).optional().describe(
    "How long to wait in milliseconds (default 30000, at most 600000; 0 = no limit).",
  ),
  offset: z.number().int().min(0).optional().describe(
    "Where to start reading a long result, in characters (default 0); a cut result gives next_offset.",
  ),
});

export const taskStopInput = z.object({
  task_id: z.string().min(1).optional().describe("The agent id (or background shell id) to stop."),
  shell_id: z.string().min(1).optional().describe("Deprecated: use task_id (KillShell's name for it)."),
});

export const skillInput = z.object({
  skill: z.string().min(1).describe(
    "The name of a skill from the listing, without a leading slash. Do not guess names.",
  ),
  args: z.string().optional().describe("Optional arguments for the skill"),
});

export type ReadInput = z.infer<typeof readInput>;
export type WriteInput = z.infer<typeof writeInput>;
export type EditInput = z.infer<typeof editInput>;
export type GlobInput = z.infer<typeof globInput>;
export type GrepInput = z.infer<typeof grepInput>;
export type BashInput = z.infer<typeof bashInput>;
export type NotebookEditInput = z.infer<typeof notebookEditInput>;
export type MonitorInput = z.infer<typeof monitorInput>;
export type WebFetchInput = z.infer<typeof webFetchInput>;
export type WebSearchInput = z.infer<typeof webSearchInput>;
export type TaskInput = z.infer<typeof agentInput>;
export type TaskOutputToolInput = z.infer<typeof taskOutputInput>;
export type TaskStopToolInput = z.infer<typeof taskStopInput>;
export type SkillInput = z.infer<typeof skillInput>;

/** Every built-in tool's input schema by tool name, in the order the model sees the tools. */
export const BUILT_IN_INPUTS: readonly (readonly [string, z.ZodType])[] = [
  ["Read", readInput],
  ["Write", writeInput],
  ["Edit", editInput],
  ["Glob", globInput],
  ["Grep", grepInput],
  ["Bash", bashInput],
  ["NotebookEdit", notebookEditInput],
  ["WebFetch", webFetchInput],
  ["WebSearch", webSearchInput],
  ["Agent", agentInput],
  ["TaskOutput", taskOutputInput],
  ["TaskStop", taskStopInput],
  ["Monitor", monitorInput],
  ["Skill", skillInput],
];
