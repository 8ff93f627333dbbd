// Owns what makes an `agent` hook's verifier a child run like any other (docs/guides/hooks.md): its
// agent definition (the hook's instructions, read-only tools, the hook's model or the session's) seen
// by the launch plan beside the registry's, and the read-only auditor and StructuredOutput answer its
// spec gets. The launch plan computes its grant from the session's (never more than the parent's);
// SubagentRuntime.verifyHook runs it in the foreground, as a Worker child when children run in Workers.

import type { AgentDefinition } from "../registry/schema.ts";
import type { RegistryView } from "../launch/launch_plan.ts";
import type { ChildSpec } from "../executor/child.ts";
import { type AgentHookRequest, VERIFIER_AGENT, VERIFIER_RETRIES } from "../hooks/agent_hook.ts";

/** The verifier's definition for one hook run. */
export function verifierDefinition(request: AgentHookRequest): AgentDefinition {
  return {
    name: VERIFIER_AGENT,
    description: "Judges an agent hook's condition and answers {ok, reason}.",
    systemPrompt: request.system,
    tools: [...request.tools],
    disallowedTools: [],
    model: request.model ?? "inherit",
    permissionMode: "inherit",
    maxTurns: null,
    isolation: "none",
    background: false,
    color: null,
    skills: [],
    source: "builtin",
    path: "builtin:hook-verifier",
  };
}

/** `registry` with the verifier's definition beside its own (the verifier is not offered to the model). */
export function withVerifier(registry: RegistryView, definition: AgentDefinition): RegistryView {
  return {
    get: (name) => name === VERIFIER_AGENT ? definition : registry.get(name),
    require: (name) => name === VERIFIER_AGENT ? definition : registry.require(name),
    names: () => [...registry.names(), VERIFIER_AGENT],
    describeForModel: () => registry.describeForModel(),
  };
}

/**
 * The verifier's spec as planned, made a read-only auditor (writes refused, Bash limited to read-only
 * commands) whose answer is one object matching the hook's schema; its run ends at that answer.
 */
export function verifierSpec(
  spec: ChildSpec,
  o: { request: AgentHookRequest; commandEnv: Record<string, string> },
): ChildSpec {
  return {
    ...spec,
    audit: { commandEnv: o.commandEnv },
    structuredOutput: {
      schema: o.request.schema,
      maxRetries: VERIFIER_RETRIES,
      purpose: "your result",
      endAtAnswer: true,
    },
  };
}
