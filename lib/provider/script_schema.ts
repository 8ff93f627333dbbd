// Owns the scripted provider's script format: the one zod schema, its types, and loadScript (YAML or
// JSON text → a validated Script, or a BladeError listing every problem with its path). Does not own
// replaying a script (scripted.ts).

import { parse } from "yaml";
import { z } from "zod";
import { BladeError } from "../errors.ts";
import type { ProviderErrorKind } from "../protocol/provider.ts";
import { matchSources } from "./script_placeholders.ts";

const ERROR_KINDS = [
  "rate_limit",
  "overloaded",
  "server",
  "network",
  "timeout",
  "stream",
  "auth",
  "invalid_request",
  "aborted",
  "script",
] as const satisfies readonly ProviderErrorKind[];

function compiles(source: string): string | undefined {
  try {
    new RegExp(source);
    return undefined;
  } catch (error) {
    return `not a valid regular expression (${error instanceof Error ? error.message : String(error)})`;
  }
}

const regex = z.string().superRefine((source, ctx) => {
  const problem = compiles(source);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

/** Strings that may carry `{{match:REGEX}}` placeholders: each REGEX must compile. */
const template = z.string().superRefine((text, ctx) => {
  for (const source of matchSources(text)) {
    const problem = compiles(source);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: `{{match:${source}}}: ${problem}` });
  }
});

const json: z.ZodType<unknown> = z.lazy(() =>
  z.union([template, z.number(), z.boolean(), z.null(), z.array(json), z.record(z.string(), json)])
);

const toolCall = z.strictObject({
  name: z.string().min(1),
  input: z.record(z.string(), json).optional(),
  raw_arguments: z.string().optional(),
  id: z.string().min(1).optional(),
}).refine((c) => c.input === undefined || c.raw_arguments === undefined, {
  message: "give either input or raw_arguments, not both",
});

const turn = z.strictObject({
  text: template.optional(),
  chunks: z.int().min(1).optional(),
  delay_ms: z.int().min(0).optional(),
  tool_calls: z.array(toolCall).optional(),
  error: z.strictObject({
    kind: z.enum(ERROR_KINDS).optional(),
    message: z.string().min(1),
    status: z.int().optional(),
  }).optional(),
  usage: z.strictObject({
    input_tokens: z.int().min(0).optional(),
    output_tokens: z.int().min(0).optional(),
  }).optional(),
});

const entry = z.strictObject({
  match: regex.optional(),
  repeat_last: z.boolean().optional(),
  turns: z.array(turn).min(1),
});

export const scriptSchema = z.strictObject({
  description: z.string().optional(),
  agents: z.record(z.string().min(1), z.array(entry).min(1)),
});

export type Script = z.infer<typeof scriptSchema>;
export type ScriptEntry = z.infer<typeof entry>;
export type ScriptTurn = z.infer<typeof turn>;
export type ScriptToolCall = z.infer<typeof toolCall>;

const HINT = "See docs/guides/scripted-provider.md for the script format.";

/** Parse and validate a script. `sourceName` (usually the file path) names it in errors. */
export function loadScript(text: string, sourceName: string): { script: Script } | BladeError {
  let raw: unknown;
  try {
    raw = parse(text, { logLevel: "error" });
  } catch (error) {
    const message = error instanceof Error ? error.message.trim() : String(error);
    return invalid(sourceName, [`not valid YAML or JSON: ${message}`]);
  }
  if (raw === null || raw === undefined) {
    return invalid(sourceName, ["the script is empty; it needs an `agents:` mapping"]);
  }
  const result = scriptSchema.safeParse(raw);
  if (!result.success) return invalid(sourceName, result.error.issues.map(describeIssue));
  return { script: result.data };
}

function invalid(sourceName: string, problems: string[]): BladeError {
  const list = problems.map((p) => `\n  - ${p}`).join("");
  return new BladeError("script_invalid", `Invalid script ${sourceName}:${list}`, {
    hint: HINT,
    exitCode: 1,
  });
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path
    .map((p, i) => typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)
    .join("");
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}
