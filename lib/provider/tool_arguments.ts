// Owns turning a model's raw tool-call arguments into a ToolCallBlock input. Invalid JSON is not a
// provider failure: the call gets `input: {}` and an `inputError` the loop answers with a tool error.
// Does not own the tool's own schema validation (that is the tool's).

import type { ToolCallBlock } from "../protocol/messages.ts";

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
