// Owns the strict `--agents '<json>'` parser (docs/reference/registry.md): session-only agent definitions given on the
// command line, never persisted. Throws BladeError (usage, exit 2) with the exact texts of the spec.
// Does not merge them with other sources (load.ts does).

import { BladeError } from "../errors.ts";
import { parsePermissionMode, PERMISSION_MODE_NAMES } from "../protocol/permission_mode.ts";
import { isReservedAgentName, reservedNameMessage, strictNameProblem } from "./names.ts";
import { type AgentDefinition, agentDefinitionSchema, MAX_TURNS_LIMIT } from "./schema.ts";
import { EFFORTS, isEffort } from "../protocol/effort.ts";

export const AGENTS_FLAG_LIMITS = {
  agents: 64,
  description: 4096,
  prompt: 100_000,
  toolNames: 128,
} as const;

const FIELDS = [
  "description",
  "prompt",
  "tools",
  "disallowedTools",
  "model",
  "permissionMode",
  "maxTurns",
  "isolation",
  "effort",
  "background",
  "skills",
  "mcpServers",
];

const EXAMPLE = `--agents '{"reviewer": {"description": "Reviews diffs", "prompt": "You review code…"}}'`;

function invalid(message: string, hint: string): BladeError {
  return new BladeError("invalid_agents", message, { exitCode: 2, hint });
}

/** Shows a name in an error message: quoted, escaped, and cut when very long. */
function quoteName(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

/** Parses the `--agents` value into definitions with source "flag" and path "--agents". */
export function parseAgentsFlag(json: string): AgentDefinition[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw invalid("Invalid JSON provided to --agents", `${why}. Pass one JSON object, e.g. ${EXAMPLE}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("--agents must be a JSON object", `Key each definition by its agent name, e.g. ${EXAMPLE}`);
  }
  const entries = Object.entries(value);
  if (entries.length > AGENTS_FLAG_LIMITS.agents) {
    throw invalid(
      `Too many agents in --agents: ${entries.length} (at most ${AGENTS_FLAG_LIMITS.agents})`,
      "Put the other agents in Markdown files under .blade/agents instead",
    );
  }
  return entries.map(([name, entry]) => parseEntry(name, entry));
}

function parseEntry(name: string, entry: unknown): AgentDefinition {
  const nameProblem = strictNameProblem(name);
  if (nameProblem !== undefined) {
    throw invalid(
      `Invalid --agents name ${quoteName(name)}: ${nameProblem}`,
      'Use a name such as "code-reviewer"',
    );
  }
  if (isReservedAgentName(name)) {
    throw invalid(
      reservedNameMessage(name),
      "Choose another name; the built-in verification agents cannot be replaced",
    );
  }
  const bad = (
    why: string,
    hint = `Allowed fields: ${FIELDS.join(", ")}; "description" and "prompt" are required`,
  ) => invalid(`Invalid --agents definition for ${quoteName(name)}: ${why}`, hint);
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw bad("must be a JSON object");
  const fields = entry as Record<string, unknown>;
  const unknown = Object.keys(fields).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) throw bad(`unknown field ${JSON.stringify(unknown)}`);

  const description = requiredText(fields, "description", AGENTS_FLAG_LIMITS.description, bad);
  const prompt = requiredText(fields, "prompt", AGENTS_FLAG_LIMITS.prompt, bad);
  const input: Record<string, unknown> = {
    name,
    description,
    systemPrompt: prompt,
    source: "flag",
    path: "--agents",
  };
  for (const key of ["tools", "disallowedTools"] as const) {
    if (fields[key] !== undefined) input[key] = toolNames(fields[key], key, bad);
  }
  const { model, permissionMode, maxTurns, isolation } = fields;
  if (model !== undefined) {
    if (typeof model !== "string" || model.trim() === "") {
      throw bad(
        '"model" must be a non-empty string',
        'Use an alias (sonnet, opus, haiku), a model id, or "inherit"',
      );
    }
    input["model"] = model.trim();
  }
  if (permissionMode !== undefined) {
    if (
      typeof permissionMode !== "string" ||
      (permissionMode !== "inherit" && !parsePermissionMode(permissionMode))
    ) {
      throw bad(
        `"permissionMode" must be one of ${PERMISSION_MODE_NAMES.join(", ")}, inherit`,
        "Leave it out to inherit the parent's mode",
      );
    }
    input["permissionMode"] = permissionMode;
  }
  if (maxTurns !== undefined) {
    if (
      typeof maxTurns !== "number" || !Number.isInteger(maxTurns) || maxTurns < 1 ||
      maxTurns > MAX_TURNS_LIMIT
    ) {
      throw bad(`"maxTurns" must be an integer from 1 to ${MAX_TURNS_LIMIT}`);
    }
    input["maxTurns"] = maxTurns;
  }
  if (isolation !== undefined) {
    if (isolation !== "none" && isolation !== "worktree" && isolation !== "remote") {
      throw bad('"isolation" must be "none", "worktree" or "remote"');
    }
    input["isolation"] = isolation;
  }
  Object.assign(input, laterFields(fields, bad));
  const result = agentDefinitionSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw bad(`${JSON.stringify(String(issue?.path[0] ?? ""))} ${issue?.message ?? "is invalid"}`);
  }
  return result.data;
}

/** Claude Code's later entry fields: `effort`, and `background`, `skills`, `mcpServers` (checked by the schema). */
function laterFields(
  fields: Record<string, unknown>,
  bad: (why: string, hint?: string) => BladeError,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // The Agent SDK's AgentDefinition also allows a number, which Claude Code accepts: the run's effort then.
  if (isEffort(fields.effort)) out["effort"] = fields.effort;
  else if (fields.effort !== undefined && typeof fields.effort !== "number") {
    throw bad(`"effort" must be one of ${EFFORTS.join(", ")}`, "Leave it out for the run's effort");
  }
  for (const key of ["background", "skills", "mcpServers"] as const) {
    if (fields[key] !== undefined) out[key] = fields[key];
  }
  return out;
}

function requiredText(
  fields: Record<string, unknown>,
  key: string,
  max: number,
  bad: (why: string) => BladeError,
): string {
  const value = fields[key];
  if (value === undefined) throw bad(`${JSON.stringify(key)} is required`);
  const text = typeof value === "string" ? value.trim() : undefined;
  if (text === undefined || text.length < 1 || text.length > max) {
    throw bad(`${JSON.stringify(key)} must be a string of 1–${max.toLocaleString("en-US")} characters`);
  }
  return text;
}

function toolNames(value: unknown, key: string, bad: (why: string) => BladeError): string[] {
  if (!Array.isArray(value) || value.length > AGENTS_FLAG_LIMITS.toolNames) {
    throw bad(
      `${JSON.stringify(key)} must be an array of at most ${AGENTS_FLAG_LIMITS.toolNames} tool names`,
    );
  }
  const names: string[] = [];
  for (const item of value) {
    if (typeof item !== "string" || item.trim() === "") {
      throw bad(`${JSON.stringify(key)} must contain only non-empty tool names`);
    }
    if (!names.includes(item.trim())) names.push(item.trim());
  }
  return names;
}
