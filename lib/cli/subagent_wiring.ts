// Owns building the subagent tools (Task, TaskOutput, TaskStop) for a top-level session.
import type { App } from "../app.ts";
import type { AnyTool } from "../tools/tool.ts";

export function subagentToolsFor(_app: App, _sessionId: string): Promise<{ tools: AnyTool[]; agentsText?: string }> {
  return Promise.resolve({ tools: [] });
}
