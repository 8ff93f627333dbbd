// Owns turning a model's raw tool-call arguments into a ToolCallBlock input. Invalid JSON is not a
// provider failure: the call gets `input: {}` and an `inputError` the loop answers with a tool error.
// Does not own the tool's own schema validation (that is the tool's).

import type { ToolCallBlock } from "../protocol/messages.ts";
import type { ProviderEvent } from "../protocol/provider.ts";

/** Parse accumulated argument text. Empty text means no arguments (`{}`). */
export function parseToolArguments(
  raw: string,
  toolName: string,
): Pick<ToolCallBlock, "input" | "inputError"> {
  if (raw.trim() === "") return { input: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      input: {},
      inputError: `The arguments for tool "${toolName}" are not valid JSON (${reason}): ${preview(raw)}`,
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      input: {},
      inputError: `The arguments for tool "${toolName}" must be a JSON object, got: ${preview(raw)}`,
    };
  }
  return { input: value as Record<string, unknown> };
}

/**
 * The complete string fields a tool call's arguments open with, read from their partial text while
 * they still stream: `{"subagent_type": "Explore", "prompt": "Find…` gives `{subagent_type:
 * "Explore"}`. Stops at the first field whose value is not a complete string (or not a string), so a
 * key inside a later value is never read. A hint for getting ready early, never the call's input.
 */
export function leadingStringFields(partial: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const rest = /^\s*\{/.exec(partial);
  if (rest === null) return fields;
  const pair = /\s*("(?:[^"\\]|\\.)*")\s*:\s*("(?:[^"\\]|\\.)*")\s*(,|\})/y;
  pair.lastIndex = rest[0].length;
  for (let m = pair.exec(partial); m !== null; m = pair.exec(partial)) {
    try {
      fields[JSON.parse(m[1]!) as string] = JSON.parse(m[2]!) as string;
    } catch {
      break; // an escape JSON does not accept: the full parse will say so
    }
    if (m[3] === "}") break;
  }
  return fields;
}

/** Partial arguments are read for hints only while this short: a long first value is not re-read. */
export const HINT_WINDOW = 1024;

/**
 * The hint of a call's partial arguments `json` when they open with more complete string fields than
 * the `known` ones already hinted: those fields; else undefined.
 */
export function argumentHint(json: string, known: number): Record<string, string> | undefined {
  if (json.length > HINT_WINDOW) return undefined;
  const fields = leadingStringFields(json);
  return Object.keys(fields).length > known ? fields : undefined;
}

/**
 * A call's arguments grew to `text`: `tool_call_started` when their leading string fields did (the
 * count hinted so far is kept in `call.hinted`), else nothing. Shared by the providers' stream folds.
 */
export function hintFor(
  call: { id: string; name: string; hinted: number },
  text: string,
): Extract<ProviderEvent, { type: "tool_call_started" }>[] {
  const fields = argumentHint(text, call.hinted);
  if (fields === undefined) return [];
  call.hinted = Object.keys(fields).length;
  return [{ type: "tool_call_started", id: call.id, name: call.name, fields }];
}

/** A tool call block; `inputError` is present only when set. */
export function toolCallBlock(
  fields: Omit<ToolCallBlock, "type" | "inputError"> & { inputError?: string | undefined },
): ToolCallBlock {
  const call: ToolCallBlock = { type: "tool_call", id: fields.id, name: fields.name, input: fields.input };
  if (fields.inputError !== undefined) call.inputError = fields.inputError;
  return call;
}

function preview(raw: string): string {
  return raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
}
