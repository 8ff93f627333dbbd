// Owns running the top-level session of `blade -p`: opens or continues the session, assembles its
// tool table (core tools, subagent tools, minus --disallowed-tools), builds the system prompt and
// runs one user turn through the agent loop. Never prints: progress goes to the event sink.

import type { App } from "../app.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import { type Message, userText } from "../protocol/messages.ts";
import { AgentLoop, type RunResult } from "./loop.ts";
import { openSession } from "../session/open.ts";
import { buildSystemPrompt } from "../session/system_prompt.ts";
import { parseToolRules } from "../permissions/gate.ts";
import type { AnyTool } from "../tools/tool.ts";
import { coreTools } from "../tools/registry.ts";
import type { TranscriptDiagnostic } from "../session/transcript.ts";

export interface MainRunOptions {
  prompt: string;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  resume?: string;
  continueLatest?: boolean;
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  emit: RuntimeEventSink;
  signal: AbortSignal;
  /** Extra tools (the subagent tools) built for this session. */
  extraTools?: (sessionId: string) => Promise<{ tools: AnyTool[]; agentsText?: string }>;
}

export interface MainRunResult {
  sessionId: string;
  result: RunResult;
  toolNames: string[];
  transcriptDiagnostics: TranscriptDiagnostic[];
}

export function filterTools(tools: readonly AnyTool[], disallowed: readonly string[]): AnyTool[] {
  const deny = new Set(parseToolRules(disallowed).filter((r) => r.spec === undefined).map((r) => r.tool));
  return tools.filter((t) => !deny.has(t.name));
}

export async function runMainSession(app: App, o: MainRunOptions): Promise<MainRunResult> {
  const { ports, config } = app;
  const opened = await openSession(ports, {
    layout: app.layout,
    workspace: app.workspace,
    model: config.model,
    redact: app.redact,
    ...(o.resume === undefined ? {} : { resume: o.resume }),
    ...(o.continueLatest === undefined ? {} : { continueLatest: o.continueLatest }),
  });
  const provider = await app.provider();
  const extra = o.extraTools === undefined ? { tools: [] } : await o.extraTools(opened.sessionId);
  const tools = filterTools([...coreTools(), ...extra.tools], o.disallowedTools ?? []);
  const system = buildSystemPrompt({
    workspaceRoot: app.workspace,
    platform: Deno.build.os,
    date: new Date(ports.clock.now()).toISOString().slice(0, 10),
    trusted: app.trust.trusted,
    mode: config.permissionMode,
    ...(extra.agentsText === undefined || !tools.some((t) => t.name === "Task")
      ? {}
      : { agents: extra.agentsText }),
    ...(o.systemPrompt === undefined ? {} : { override: o.systemPrompt }),
    append: o.appendSystemPrompt === undefined ? [] : [o.appendSystemPrompt],
  });
  o.emit({
    type: "session_started",
    sessionId: opened.sessionId,
    agentType: "main",
    model: config.model,
    depth: 0,
  });
  const loop = new AgentLoop({
    ports,
    provider,
    transcript: opened.transcript,
    tools,
    system,
    model: config.model,
    maxTokens: config.maxTokens,
    meta: { sessionId: opened.sessionId, agentType: "main", depth: 0 },
    trusted: app.trust.trusted,
    mode: config.permissionMode,
    allowed: parseToolRules(o.allowedTools ?? []),
    workspaceRoot: app.workspace,
    storageRoot: app.layout.root,
    emit: o.emit,
    ...(config.maxTurns === undefined ? {} : { maxTurns: config.maxTurns }),
  }, { messages: opened.history.messages, turns: opened.history.turns });
  const input: Message[] = [userText(o.prompt)];
  const result = await loop.run({ messages: input }, o.signal);
  return {
    sessionId: opened.sessionId,
    result,
    toolNames: tools.map((t) => t.name),
    transcriptDiagnostics: opened.diagnostics,
  };
}
