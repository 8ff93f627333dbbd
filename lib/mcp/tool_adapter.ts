// Owns turning an MCP tool into a Blade tool: its name and description for the model, the server's
// JSON Schema as the input schema, `external` kind for the permission gate (read-only when the server
// says so), and the call result as text. The text is tool output like any other: untrusted data for
// the model, redacted of secrets by the transcript writer. Does not connect or decide permissions.

import { ANY_OBJECT_INPUT } from "../tools/input_check.ts";
import type { AnyTool, ToolResult } from "../tools/tool.ts";
import type { McpCallResult, McpContent } from "./client.ts";

/** What a Blade tool needs to know about an MCP tool (plain data: it crosses into Worker children). */
export interface McpToolShape {
  bladeName: string;
  server: string;
  /** The tool's name on its server. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
  /** The cap of one result's text (MAX_MCP_OUTPUT_TOKENS, read by the main thread); MAX_RESULT_CHARS if unset. */
  maxResultChars?: number;
}

/** Runs one call: the main thread calls its connection, a Worker child asks the main thread. */
export type McpInvoke = (
  bladeName: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<McpCallResult>;

/**
 * The default cap on one result's text, so one call cannot flood the context: Claude Code's default
 * MAX_MCP_OUTPUT_TOKENS (25,000) at 4 characters a token.
 */
export const MAX_RESULT_CHARS = 100_000;
const MAX_DESCRIPTION_CHARS = 2_000;

export function mcpTool(shape: McpToolShape, invoke: McpInvoke): AnyTool {
  return {
    name: shape.bladeName,
    description: describe(shape),
    kind: "external",
    readOnly: shape.readOnly,
    schema: ANY_OBJECT_INPUT,
    inputSchema: objectSchema(shape.inputSchema),
    async run(input: Record<string, unknown>, ctx): Promise<ToolResult> {
      const result = await invoke(shape.bladeName, input, ctx.signal);
      return {
        content: resultText(result, shape.maxResultChars),
        isError: result.isError,
        metadata: { mcpServer: shape.server, mcpTool: shape.name },
      };
    },
  };
}

function describe(shape: McpToolShape): string {
  const own = shape.description.trim();
  const text = own.length > MAX_DESCRIPTION_CHARS ? `${own.slice(0, MAX_DESCRIPTION_CHARS)}…` : own;
  return `${text === "" ? `Tool "${shape.name}"` : text} (MCP server "${shape.server}")`;
}

/** Providers want an object schema; a server's schema without `type: object` is wrapped as one. */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _, ...rest } = schema;
  return rest.type === "object" ? rest : { properties: {}, ...rest, type: "object" };
}

/** The result as text: text items as they are, other items described, structured content as JSON. */
export function resultText(result: McpCallResult, maxChars = MAX_RESULT_CHARS): string {
  const parts = result.content.map(contentText);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const text = parts.join("\n");
  if (text.length <= maxChars) return text === "" ? "(no output)" : text;
  // Claude Code 2.1.332's words for a result past MAX_MCP_OUTPUT_TOKENS (its limit in tokens).
  return `${text.slice(0, maxChars)}\n\n${TRUNCATED_OPENING}${
    Math.ceil(maxChars / 4)
  } token limit]\n\n${TRUNCATED_NOTE}`;
}

const TRUNCATED_OPENING = "[OUTPUT TRUNCATED - exceeded ";
const TRUNCATED_NOTE =
  "The tool output was truncated. If this MCP server provides pagination or filtering tools, use " +
  "them to retrieve specific portions of the data. If pagination is not available, inform the user that you " +
  "are working with truncated output and results may be incomplete.";

function contentText(item: McpContent): string {
  switch (item.type) {
    case "text":
      return String(item.text ?? "");
    case "image":
    case "audio":
      return `[${item.type} ${String(item.mimeType ?? "")}, ${
        String(item.data ?? "").length
      } base64 characters not shown]`;
    case "resource_link":
      return `[resource ${String(item.uri ?? "")}${
        item.name === undefined ? "" : ` (${String(item.name)})`
      }]`;
    case "resource": {
      const r = (item.resource ?? {}) as Record<string, unknown>;
      return typeof r.text === "string"
        ? r.text
        : `[resource ${String(r.uri ?? "")}, binary content not shown]`;
    }
    default:
      return `[${item.type} content not shown]`;
  }
}
