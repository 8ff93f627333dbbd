// Owns the one schema of an agent definition (docs/reference/registry.md) and the AgentDefinition type inferred from it.
// Input is a frontmatter record (Claude Code field names, YAML or lenient values) plus the body, source
// and path; output is the normalised definition. Does not read files or decide precedence.

import { z } from "zod";
import {
  parsePermissionMode,
  PERMISSION_MODE_NAMES,
  type PermissionMode,
} from "../protocol/permission_mode.ts";
import { MAX_AGENT_NAME_LENGTH, splitNameList } from "./names.ts";
import { hooksOf } from "../protocol/hook_config.ts";
import { EFFORTS } from "../protocol/effort.ts";

/** Where a definition came from, in precedence order (later wins by name). */
export const AGENT_SOURCES = ["builtin", "user-claude", "project-claude", "user", "project", "flag"] as const;
export type AgentSource = (typeof AGENT_SOURCES)[number];

/** A permission mode, or "inherit": the child runs in its parent's mode. */
export type AgentPermissionMode = PermissionMode | "inherit";

export const MAX_TURNS_LIMIT = 1000;

const nameList = z
  .union([z.string(), z.array(z.string())], { error: "must be a list of names or a comma-separated string" })
  .transform((value) => splitNameList(value));

/**
 * No C0/C1 control, DEL, bidi override or zero-width character: names and model ids are shown on terminals,
 * sent to the model and matched exactly, where such characters hide or reorder what a person reads.
 */
// deno-lint-ignore no-control-regex
const NO_CONTROLS = /^[^\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]*$/;

const text = (what: string) =>
  z.string({ error: `must be ${what}` }).trim().min(1, { error: `must not be empty` });

export const agentDefinitionSchema = z.object({
  name: text("text").max(MAX_AGENT_NAME_LENGTH, {
    error: `must be at most ${MAX_AGENT_NAME_LENGTH} characters`,
  })
    .regex(NO_CONTROLS, { error: "must not contain control or invisible characters" }),
  description: text("text"),
  /** The Markdown body, trimmed. */
  systemPrompt: z.string(),
  /** null = inherit every tool of the parent; [] = no tools. `*` alone means inherit. */
  tools: nameList.transform((list) => list.length === 1 && list[0] === "*" ? null : list).nullable().default(
    null,
  ),
  disallowedTools: nameList.default([]),
  /** Alias (`sonnet`, `opus`, `haiku`), model id, or `inherit`. */
  model: text('a model alias, a model id or "inherit"')
    .regex(NO_CONTROLS, { error: "must not contain control or invisible characters" })
    .default("inherit"),
  permissionMode: z
    .string({ error: "must be text" })
    .trim()
    .transform((value, ctx): AgentPermissionMode => {
      const mode = value === "inherit" ? "inherit" : parsePermissionMode(value);
      if (mode !== undefined) return mode;
      ctx.issues.push({
        code: "custom",
        input: value,
        message: `"${value}" is not a permission mode (known: ${PERMISSION_MODE_NAMES.join(", ")}, inherit)`,
      });
      return z.NEVER;
    })
    .default("inherit"),
  maxTurns: z
    .union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)], {
      error: `must be a whole number from 1 to ${MAX_TURNS_LIMIT}`,
    })
    .pipe(
      z.number().int({ error: `must be a whole number from 1 to ${MAX_TURNS_LIMIT}` })
        .min(1, { error: `must be a whole number from 1 to ${MAX_TURNS_LIMIT}` })
        .max(MAX_TURNS_LIMIT, { error: `must be a whole number from 1 to ${MAX_TURNS_LIMIT}` }),
    )
    .nullable()
    .default(null),
  isolation: z.enum(["none", "worktree", "remote"], { error: 'must be "none", "worktree" or "remote"' })
    .default("none"),
  /** How hard the agent's model works (its requests' `output_config.effort`); absent = the run's. */
  effort: z.enum(EFFORTS, { error: `must be one of ${EFFORTS.join(", ")}` }).optional(),
  /** true = always run in the background. */
  background: z
    .union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")], {
      error: "must be true or false",
    })
    .default(false),
  color: text("a color name").nullable().default(null),
  skills: nameList.default([]),
  /**
   * MCP servers this agent's runs get instead of the parent's: names of configured servers, or inline
   * definitions `{<name>: {command|url, …}}` (Claude Code's field). A map `{<name>: {…}}` is read as one
   * inline entry per server. Absent = the parent's MCP tools.
   */
  mcpServers: z
    .union([
      z.array(z.union([z.string().trim().min(1), z.record(z.string(), z.unknown())])),
      z.record(z.string(), z.unknown()).transform((map) => Object.entries(map).map(([k, v]) => ({ [k]: v }))),
    ], { error: "must be a list of server names or {name: definition} entries" })
    .optional(),
  /**
   * Claude Code's `hooks` (lib/protocol/hook_config.ts), run for this agent's runs only (docs/guides/hooks.md).
   * A malformed entry skips the file: an agent must not run without a policy its file asks for. An
   * event Blade does not fire is a warning (addAdvice).
   */
  hooks: z.record(z.string(), z.unknown(), { error: "must be a map of hook events to hook lists" })
    .superRefine((value, ctx) => {
      const problem = agentHookProblems(value).malformed[0];
      if (problem !== undefined) ctx.addIssue({ code: "custom", input: value, message: problem });
    })
    .optional(),
  source: z.enum(AGENT_SOURCES),
  /** File path, `builtin:<file>`, or `--agents`. */
  path: z.string(),
});

export type AgentDefinition = z.output<typeof agentDefinitionSchema>;

/** An agent's `hooks` problems: malformed entries (the file is skipped), and events Blade does not fire. */
export function agentHookProblems(hooks: unknown): { malformed: string[]; unknownEvents: string[] } {
  const { problems } = hooksOf(hooks, { source: "agent", where: "" });
  const said = problems.map((p) => p.replace(/^: /, "").replace(/; ignored$/, ""));
  const unknown = (p: string) => / is not an event Blade fires$/.test(p);
  return { malformed: said.filter((p) => !unknown(p)), unknownEvents: said.filter(unknown) };
}

/** The frontmatter fields Blade reads (the schema keys that do not come from the file's position). */
export const AGENT_FIELDS: readonly string[] = Object.keys(agentDefinitionSchema.shape)
  .filter((k) => k !== "systemPrompt" && k !== "source" && k !== "path");
