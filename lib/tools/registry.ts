// Owns the list of Blade's core tools and their model-facing specs (JSON Schema via zod). Does not
// decide which tools a session may use: agent filters and the permission gate do that.

import { z } from "zod";
import type { ToolSpec } from "../protocol/messages.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { readTool } from "./read.ts";
import type { AnyTool } from "./tool.ts";
import { writeTool } from "./write.ts";
import { taskInputSchema } from "./task.ts";
import { taskOutputSchema, taskStopSchema } from "./task_control.ts";
import { INPUT_SCHEMAS } from "./input_schemas.gen.ts";

/** The six core tools, in a stable order (the order the model sees them). */
export function coreTools(): AnyTool[] {
  return [readTool, writeTool, editTool, globTool, grepTool, bashTool];
}

/** The built-in tools' input schemas by name (their JSON Schemas are input_schemas.gen.ts). */
export function builtInInputSchemas(): [string, z.ZodType][] {
  return [
    ...coreTools().map((t): [string, z.ZodType] => [t.name, t.schema]),
    ["Task", taskInputSchema],
    ["TaskOutput", taskOutputSchema],
    ["TaskStop", taskStopSchema],
  ];
}

let precomputed: Map<z.ZodType, Record<string, unknown>> | undefined;

/**
 * The JSON Schema of a tool's input (what the model sends, so zod's input view), without the
 * `$schema` marker providers do not want. A built-in tool's is precomputed (scripts/tool_schemas.ts),
 * found by its zod schema (so a tool that replaces one with a schema of its own is converted).
 */
export function inputSchemaOf(tool: AnyTool): Record<string, unknown> {
  if (tool.inputSchema !== undefined) return tool.inputSchema;
  precomputed ??= new Map(
    builtInInputSchemas().flatMap(([name, schema]) => {
      const json = INPUT_SCHEMAS[name];
      return json === undefined ? [] : [[schema, json] as const];
    }),
  );
  const known = precomputed.get(tool.schema);
  if (known !== undefined) return structuredClone(known);
  const json = z.toJSONSchema(tool.schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  const { $schema: _, ...schema } = json;
  return schema;
}

export function toolSpecs(tools: readonly AnyTool[]): ToolSpec[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
  }));
}

/** Later tools replace earlier ones of the same name, keeping the first one's position. */
export function mergeTools(...lists: readonly AnyTool[][]): AnyTool[] {
  const byName = new Map<string, AnyTool>();
  for (const list of lists) for (const t of list) byName.set(t.name, t);
  return [...byName.values()];
}
