// Owns the list of Blade's core tools and their model-facing specs (each tool's JSON Schema). Does not
// decide which tools a session may use: agent filters and the permission gate do that.

import type { ToolSpec } from "../protocol/messages.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { readTool } from "./read.ts";
import type { AnyTool } from "./tool.ts";
import { writeTool } from "./write.ts";
import { notebookEditTool } from "./notebook_edit.ts";
import { webFetchTool } from "./web_fetch.ts";
import { webSearchTool } from "./web_search.ts";

/** The core tools, in a stable order (the order the model sees them). */
export function coreTools(): AnyTool[] {
  return [
    readTool,
    writeTool,
    editTool,
    globTool,
    grepTool,
    bashTool,
    notebookEditTool,
    webFetchTool,
    webSearchTool,
  ];
}

/** The JSON Schema of a tool's input (a copy: a caller may change it without changing the tool's). */
export function inputSchemaOf(tool: AnyTool): Record<string, unknown> {
  return structuredClone(tool.inputSchema);
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
