// Owns the AgentLoop the executor's unit tests run (lib/executor/loop_test.ts, turn_opening_test.ts):
// a main session over the given ports, provider and transcript, with the real core tools, no rules
// and a trusted workspace `dir`. Not a mock: the loop and its tools run unchanged. Never imported by main.ts.

import type { Ports } from "../sys/mod.ts";
import type { Provider } from "../protocol/provider.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import type { TranscriptLog } from "../session/transcript.ts";
import { coreTools } from "../tools/registry.ts";
import { NO_RULES } from "../protocol/tool_rule.ts";
import { AgentLoop, type LoopOptions } from "../executor/loop.ts";

export function testLoop(
  w: { ports: Ports; provider: Provider; transcript: TranscriptLog; dir: string; events: RuntimeEvent[] },
  extra: Partial<LoopOptions> = {},
): AgentLoop {
  return new AgentLoop({
    ports: w.ports,
    provider: w.provider,
    transcript: w.transcript,
    tools: coreTools(),
    system: "You are a test.",
    model: "test-model",
    maxTokens: 1000,
    meta: { sessionId: w.transcript.sessionId, agentType: "main", depth: 0 },
    trusted: true,
    mode: "default",
    rules: NO_RULES,
    workspaceRoot: w.dir,
    storageRoot: `${w.dir}/storage`,
    emit: (e) => w.events.push(e),
    ...extra,
  }, { messages: [], turns: 0 });
}
