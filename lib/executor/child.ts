// Owns running one child session (docs/reference/task-tool.md): its own id, transcript (`session_created` with parent,
// relation `subagent`, agent type and lineage), tool table, limits and cancellation. Everything that
// crosses into a child is the serialisable ChildSpec; its I/O goes through the ports. Never throws:
// every failure becomes a ChildOutcome with success false.

import type { Approver } from "../protocol/approval.ts";
import type { Ports } from "../sys/mod.ts";
import type { Provider } from "../protocol/provider.ts";
import type { Lineage, RuntimeEventSink } from "../protocol/events.ts";
import type { Message, ToolSpec } from "../protocol/messages.ts";
import { systemText, totalTokens, userText } from "../protocol/messages.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { ConfigSnapshot } from "../store/schema.ts";
import type { ActiveWorktree, AnyTool, CommandSetup, ToolResult } from "../tools/tool.ts";
import { auditedTool, type AuditPolicy } from "../tools/audited.ts";
import type {
  StructuredOutput,
  StructuredOutputOptions,
  StructuredOutputState,
} from "../tools/structured_output.ts";
import { TranscriptWriter } from "../session/transcript.ts";
import { resolveChildTools } from "../registry/child_tools.ts";
import { sessionLoop } from "./session_loop.ts";
import { type LoopHooks, mergeHooks } from "./hooks.ts";
import { structuredOutputHooks, structuredRetries } from "./structured_hooks.ts";
import type { RuleSet, ToolRule } from "../protocol/tool_rule.ts";
import { isMcpToolName } from "../protocol/mcp_names.ts";
import { limitsOf, rulesOf, type RuleTexts } from "../permissions/run_rules.ts";
import { childRulesOf } from "../permissions/ceiling.ts";
import { describeError } from "../errors.ts";
import { storageWriteFailed } from "../store/storage_root.ts";
import type { WebAccess } from "../protocol/web.ts";
import { childBlocks, type ChildContext, childSkillTools, preloadedSkills } from "./child_context.ts";
import { NarrowingGate } from "./narrowing_gate.ts";
import type { CompactionSettings } from "./compaction_policy.ts";

/** What a child needs to run: plain data, safe to send to a Worker or another process. */
export interface ChildSpec {
  id: string;
  subagentType: string;
  description: string;
  prompt: string;
  config: ConfigSnapshot;
  parentSessionId: string;
  parentProjectPath: string;
  workspaceRoot: string;
  trusted: boolean;
  /** Nesting depth of the child (1 for a child of the top-level session). */
  depth: number;
  lineage: Lineage;
  /** Conversation copied from a resumed source; the prompt is appended after it. */
  initialMessages?: Message[];
  /**
   * The child's effective rules (permissions/ceiling.ts childRulesOf): the run's, with the deny rules and
   * `tools` limits of every agent above it and its own; deny beats allow. Frozen in `config.rules`.
   */
  rules?: RuleTexts;
  /** The delegating session's tool names (the capability ceiling): the child gets none outside them. */
  toolCeiling?: string[];
  /** What the agent asked for beyond its parent and did not get; recorded in session_created. */
  capped?: string[];
  /** The child's tools as the model sees them, computed by the parent (the child may load its tools later). */
  toolSpecs?: ToolSpec[];
  /** Environment and shell of the child's commands, prepared by the main thread (permissions/child_env.ts). */
  commands?: CommandSetup;
  /** The run's `--add-dir` folders (canonical): the child's tools and Deno grant extend to them. */
  additionalDirs?: string[];
  /** The git worktree the child is isolated in: its writes and Bash folders must stay inside it. */
  worktree?: ActiveWorktree;
  /** A read-only auditor (the verification agents): writes refused, Bash limited (tools/audited.ts). */
  audit?: AuditPolicy;
  /** The child returns one object matching this schema through StructuredOutput (a verdict). */
  structuredOutput?: StructuredOutputOptions;
  /** Its run's memory and skills, as this agent gets them (child_context.ts). */
  context?: ChildContext;
  /** What SubagentStart hooks added for the child (docs/guides/hooks.md): a system turn after its task. */
  hookContext?: string[];
}

export interface ChildStats {
  tokens: number;
  toolCalls: number;
  durationMs: number;
}

export interface ChildOutcome {
  success: boolean;
  /** The child's final text (or the failure text). */
  message: string;
  error?: string;
  errorType?: string;
  cancelled: boolean;
  messages: Message[];
  stats: ChildStats;
  toolResults: { name: string; input: Record<string, unknown>; result: ToolResult }[];
  /** What came of spec.structuredOutput: accepted (with the object), rejected, or still pending. */
  structuredOutput?: StructuredOutputState;
}

export interface ChildDeps {
  ports: Ports;
  provider: Provider;
  layout: StorageLayout;
  /**
   * Every tool a child at `depth` could have (core tools, plus subagent tools below the depth limit).
   * A promise when the tool modules are still loading (a Worker child).
   */
  toolsFor: (child: ChildSpec) => AnyTool[] | PromiseLike<AnyTool[]>;
  /** Receives the child's own events (the caller wraps them for the parent). */
  emit: RuntimeEventSink;
  maxTokens: number;
  platform: string;
  /** When the child compacts its conversation (the session's settings; absent: never). */
  compaction?: CompactionSettings | undefined;
  /** Removes secrets from transcript lines. */
  redact?: ((text: string) => string) | undefined;
  /** A foreground child of an interactive session asks the person (through its parent); others refuse. */
  approve?: Approver | undefined;
  /** How the child's web tools reach the web: the main thread's, or in a Worker a proxy to it. */
  web?: WebAccess | undefined;
  /**
   * The hook points of a child's loop, built for its spec where the child runs (this thread, or its
   * Worker: child/child_worker.ts), so they see the spec, not the parent's objects. A child that must
   * return an object adds StructuredOutput's retries (structured_hooks.ts) after them.
   */
  hooks?: ((spec: ChildSpec) => LoopHooks | undefined) | undefined;
}

/**
 * The child's tool table: its allow and deny lists applied to `available`, wrapped for a read-only
 * auditor, then `extras` (the StructuredOutput tool of a child that must return an object).
 */
export function childTools(
  spec: ChildSpec,
  available: readonly AnyTool[],
  extras: readonly AnyTool[] = [],
): AnyTool[] {
  const set = new Set(childToolNames(spec, available.map((t) => t.name)));
  const tools = available.filter((t) => set.has(t.name));
  const audit = spec.audit;
  return [...(audit === undefined ? tools : tools.map((t) => auditedTool(t, audit))), ...extras];
}

/** The StructuredOutput of a child that must return an object (loaded only then: it brings zod). */
async function structuredOutputOf(spec: ChildSpec): Promise<StructuredOutput | undefined> {
  if (spec.structuredOutput === undefined) return undefined;
  const { StructuredOutput } = await import("../tools/structured_output.ts");
  return new StructuredOutput(spec.structuredOutput);
}

/** The child's tool names among `available`: its definition's lists, within its parent's tools. */
export function childToolNames(spec: ChildSpec, available: readonly string[]): string[] {
  const ceiling = spec.toolCeiling;
  // MCP tools have their own ceiling (the parent's MCP tools, run/child_mcp.ts).
  const offered = ceiling === undefined
    ? available
    : available.filter((t) => ceiling.includes(t) || isMcpToolName(t));
  return resolveChildTools(
    { tools: spec.config.tools, disallowedTools: spec.config.disallowedTools },
    offered,
  )
    .allowed;
}

/**
 * The child's rules: its effective rules as the launch plan computed them (the run's, narrowed by every
 * agent above it and its own, permissions/ceiling.ts), with its own definition applied once more (which
 * adds nothing to a planned spec) so a spec built without them still gets its agent's limits.
 */
function childRules(spec: ChildSpec): { rules: RuleSet; limits: ToolRule[][] } {
  const texts = childRulesOf(spec.rules, spec.config);
  return { rules: rulesOf(texts), limits: limitsOf(texts) };
}

function childTranscript(deps: ChildDeps, spec: ChildSpec): TranscriptWriter {
  const { ports } = deps;
  return new TranscriptWriter({
    fs: ports.fs,
    clock: ports.clock,
    ids: ports.ids,
    path: deps.layout.transcriptPath(spec.parentProjectPath, spec.id),
    sessionId: spec.id,
    projectPath: spec.parentProjectPath,
    ...(deps.redact === undefined ? {} : { redact: deps.redact }),
    // Its parent's project folder, where its lease was taken before it runs (run/child_run.ts).
    folderExists: true,
  });
}

/** The child's tool table; lazy on purpose: a Worker child's tools start loading only when first awaited (see child_worker.ts). */
function lazyChildTools(
  deps: ChildDeps,
  o: { spec: ChildSpec; extras: readonly AnyTool[]; skills: readonly AnyTool[] },
): readonly AnyTool[] | PromiseLike<readonly AnyTool[]> {
  const { spec, extras, skills } = o;
  const available = deps.toolsFor(spec);
  if (Array.isArray(available)) return childTools(spec, [...available, ...skills], extras);
  return {
    then: (ok, error) =>
      Promise.resolve(available).then((all) => childTools(spec, [...all, ...skills], extras)).then(ok, error),
  };
}

/**
 * StructuredOutput's retries for a child that must return an object; an `agent` hook's verifier
 * (`endAtAnswer`) also ends at the accepted object and fails once its attempts ran out.
 */
function structuredHooksOf(spec: ChildSpec, structured: StructuredOutput | undefined): LoopHooks | undefined {
  if (structured === undefined) return undefined;
  if (spec.structuredOutput?.endAtAnswer !== true) return structuredRetries(structured);
  return structuredOutputHooks({
    followUp: () => structured.followUp(),
    exhausted: () => structured.exhausted(),
    accepted: () => structured.state.status === "accepted",
  });
}

/** The outcome of a child whose loop ran to its end (completed, failed or cancelled). */
function childOutcome(
  run: Awaited<ReturnType<ReturnType<typeof sessionLoop>["run"]>>,
  structured: StructuredOutput | undefined,
  durationMs: number,
): ChildOutcome {
  const stats = { tokens: totalTokens(run.usage), toolCalls: run.toolCalls, durationMs };
  const toolResults = run.toolResults.map((r) => ({
    name: r.call.name,
    input: r.call.input,
    result: r.result,
  }));
  const shaped = structured === undefined ? {} : { structuredOutput: structured.state };
  if (run.status === "completed") {
    return {
      success: true,
      message: run.finalText,
      cancelled: false,
      messages: run.messages,
      stats,
      toolResults,
      ...shaped,
    };
  }
  return {
    success: false,
    message: run.finalText,
    error: run.error?.message ?? "the child run did not complete",
    errorType: run.error?.type ?? "failed",
    cancelled: run.status === "cancelled",
    messages: run.messages,
    stats,
    toolResults,
    ...shaped,
  };
}

export async function runChild(deps: ChildDeps, spec: ChildSpec, signal: AbortSignal): Promise<ChildOutcome> {
  const { ports } = deps;
  const started = ports.clock.now();
  const failed = (message: string, errorType: string): ChildOutcome => ({
    success: false,
    message,
    error: message,
    errorType,
    cancelled: false,
    messages: spec.initialMessages ?? [],
    stats: { tokens: 0, toolCalls: 0, durationMs: ports.clock.now() - started },
    toolResults: [],
  });
  try {
    const transcript = childTranscript(deps, spec);
    const structured = await structuredOutputOf(spec);
    // A loaded skill's allowed-tools narrow the rest of the child's turn, as in a top-level session.
    const gate = new NarrowingGate();
    const skills = childSkillTools(spec.context, ports.fs, gate);
    const tools = lazyChildTools(deps, {
      spec,
      extras: structured === undefined ? [] : [structured.tool()],
      skills,
    });
    const blocks = childBlocks(spec.context);
    const loop = sessionLoop({
      ports,
      provider: deps.provider,
      transcript,
      tools,
      specs: spec.toolSpecs,
      sessionId: spec.id,
      agentType: spec.subagentType,
      depth: spec.depth,
      model: spec.config.model,
      maxTokens: deps.maxTokens,
      modelOptions: spec.config.effort === undefined ? undefined : { effort: spec.config.effort },
      platform: deps.platform,
      workspaceRoot: spec.workspaceRoot,
      storageRoot: deps.layout.root,
      trusted: spec.trusted,
      mode: spec.config.permissionMode,
      ...childRules(spec),
      web: deps.web,
      emit: deps.emit,
      prompt: { append: [spec.config.systemPrompt] },
      maxTurns: spec.config.maxTurns ?? undefined,
      compaction: deps.compaction,
      approve: deps.approve,
      worktree: spec.worktree,
      commands: spec.commands,
      additionalDirs: spec.additionalDirs,
      ...(blocks.length === 0 ? {} : { context: blocks }),
      ...mergeHooks(
        deps.hooks?.(spec),
        { beforeToolCall: gate.check },
        structuredHooksOf(spec, structured),
      ),
    }, { messages: spec.initialMessages ?? [], turns: 0 });
    // session_created goes in the same durable batch as the first turn (one fsync fewer per child).
    const run = await loop.run({
      messages: await firstMessages(spec, ports),
      prelude: [{
        type: "session_created",
        data: {
          agentType: spec.subagentType,
          model: spec.config.model,
          parentSessionId: spec.parentSessionId,
          relation: "subagent",
          lineage: spec.lineage,
          depth: spec.depth,
          ...(spec.capped === undefined ? {} : { capped: spec.capped }),
        },
      }],
    }, signal);
    return childOutcome(run, structured, ports.clock.now() - started);
  } catch (e) {
    // A write the machine refused (its transcript on a full disk) is said as such, naming the file.
    const storage = storageWriteFailed(e);
    if (storage !== undefined) return failed(`${storage.message} ${storage.hint}`, storage.code);
    return failed(`The child run stopped unexpectedly: ${describeError(e)}`, "internal");
  }
}

/** The first turn's messages: the task (with its skills), then what SubagentStart hooks added. */
async function firstMessages(spec: ChildSpec, ports: ChildDeps["ports"]): Promise<Message[]> {
  return [await firstMessage(spec, ports), ...(spec.hookContext ?? []).map(systemText)];
}

/** The task, then (on a fresh run) the definition's `skills:` as Claude Code loads them. */
async function firstMessage(spec: ChildSpec, ports: ChildDeps["ports"]): Promise<Message> {
  const skills = spec.initialMessages === undefined
    ? await preloadedSkills(spec.config.skills ?? [], spec.context, ports.fs)
    : [];
  if (skills.length === 0) return userText(spec.prompt);
  return { role: "user", content: [spec.prompt, ...skills].map((text) => ({ type: "text", text })) };
}
