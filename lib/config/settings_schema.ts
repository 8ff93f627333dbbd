// Owns the schema of Blade's settings files (user config.json, project .blade/settings.json;
// docs/guides/configuration.md). Imported by config.ts only when a file exists, so a run without one
// does not load zod.

import { z } from "zod";

export const settingsSchema = z.object({
  model: z.string().min(1).optional(),
  provider: z.enum(["anthropic", "openai", "scripted"]).optional(),
  script: z.string().min(1).optional(),
  models: z.record(z.string(), z.string().min(1)).optional(),
  /** The models a subagent may be given (aliases or ids; lib/manager/child_model.ts), as in Claude Code. */
  availableModels: z.array(z.string().min(1)).optional(),
  permissionMode: z.string().optional(),
  maxTurns: z.number().int().min(1).max(1000).optional(),
  maxSubagentDepth: z.number().int().min(0).max(10).optional(),
  maxConcurrentSubagents: z.number().int().min(1).max(200).optional(),
  requestTimeoutMs: z.number().int().min(1).optional(),
  streamIdleTimeoutMs: z.number().int().min(1).optional(),
  subagentStallTimeoutMs: z.number().int().min(1).optional(),
  maxTokens: z.number().int().min(1).optional(),
  /** MCP servers (Claude Code's format); read and validated by lib/mcp/sources.ts and config.ts. */
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  // Claude Code's keys, read the same way as in .claude/settings.json (claude_settings.ts).
  permissions: z.unknown().optional(),
  env: z.unknown().optional(),
  /** The commands' OS sandbox (docs/reference/permissions.md): `required` refuses commands where none can run. */
  /**
   * The shared store (`nats://…`, docs/guides/remote.md) and its `.creds`/nkey file. Honoured from the
   * user's config.json only: a repository's settings must not choose where the records go.
   */
  store: z.string().min(1).optional(),
  storeCreds: z.string().min(1).optional(),
  sandbox: z.object({ required: z.boolean().optional() }).strict().optional(),
}).strict();

export type Settings = z.infer<typeof settingsSchema>;
