// Owns the kinds of tool: what a tool does, which decides how the permission gate treats it
// (lib/permissions/gate.ts) and which tools a read-only mode keeps. Vocabulary only, no I/O.

/**
 * What a tool does, which decides how the permission gate treats it. `external`: a tool of an MCP
 * server, whose effects Blade cannot see (it needs a rule or approval like Bash; see `readOnly`).
 * `network`: a tool that reaches the web (WebFetch, WebSearch): a rule or approval in every mode
 * but yolo, plan mode included, whatever the workspace's trust.
 */
export type ToolKind = "read" | "write" | "execute" | "delegate" | "external" | "network";
