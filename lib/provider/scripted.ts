// Owns the scripted provider: a deterministic, network-free model that replays a Script. Replies are
// keyed on who is asking (request.meta.agentType), an optional regex on the first user message, and
// the turn index (= assistant messages already in the request), so it is stateless and works across
// restarts, resumes and children. Does not own the script format (script_schema.ts).

import {
  type ContentBlock,
  emptyUsage,
  textOf,
  type ToolCallBlock,
  type Usage,
} from "../protocol/messages.ts";
import type { ModelRequest, Provider, ProviderEvent, StreamOptions } from "../protocol/provider.ts";
import type { Clock } from "../sys/clock.ts";
import type { Script, ScriptEntry, ScriptToolCall, ScriptTurn } from "./script_schema.ts";
import {
  expandText,
  expandValue,
  type PlaceholderContext,
  placeholderContext,
} from "./script_placeholders.ts";
import { parseToolArguments, toolCallBlock } from "./tool_arguments.ts";

// Not re-exported here: loadScript (script_schema.ts) brings zod and yaml, which a child Worker, whose
// graph names this module, would otherwise load and compile for nothing.
export type { Script } from "./script_schema.ts";

export interface ScriptedProviderOptions {
  clock: Clock;
}

interface CompiledEntry {
  entry: ScriptEntry;
  match: RegExp | undefined;
}

interface Run {
  agents: Map<string, CompiledEntry[]>;
  clock: Clock;
  signal: AbortSignal | undefined;
}

/** Replays `script`, which should come from loadScript (it checks every regex compiles). */
export function scriptedProvider(script: Script, options: ScriptedProviderOptions): Provider {
  const agents = new Map<string, CompiledEntry[]>();
  for (const [agentType, entries] of Object.entries(script.agents)) {
    agents.set(agentType, entries.map((entry) => ({ entry, match: compile(entry.match) })));
  }
  return {
    name: "scripted",
    stream(request: ModelRequest, streamOptions: StreamOptions = {}): AsyncIterable<ProviderEvent> {
      return replay(request, { agents, clock: options.clock, signal: streamOptions.signal });
    },
  };
}

/** One reply; ends with exactly one terminal event, `aborted` as soon as the signal fires. */
async function* replay(request: ModelRequest, run: Run): AsyncGenerator<ProviderEvent> {
  const { signal } = run;
  try {
    for await (const event of play(request, run)) {
      if (signal?.aborted) break;
      yield event;
      if (event.type === "done" || event.type === "error") return;
    }
  } catch (error) {
    if (!signal?.aborted) {
      const message = `Scripted provider failed: ${error instanceof Error ? error.message : String(error)}`;
      yield { type: "error", error: { kind: "script", message }, stopReason: "error", usage: emptyUsage() };
      return;
    }
  }
  yield {
    type: "error",
    error: { kind: "aborted", message: "Scripted request was cancelled" },
    stopReason: "aborted",
    usage: emptyUsage(),
  };
}

async function* play(request: ModelRequest, run: Run): AsyncGenerator<ProviderEvent> {
  yield { type: "request_started", attempt: 1 };
  const picked = pickTurn(run.agents, request);
  if (typeof picked === "string") {
    yield {
      type: "error",
      error: { kind: "script", message: picked },
      stopReason: "error",
      usage: emptyUsage(),
    };
    return;
  }
  const { turn, turnIndex } = picked;
  if (turn.delay_ms !== undefined && turn.delay_ms > 0) await run.clock.sleep(turn.delay_ms, run.signal);
  const context = placeholderContext(request.messages);
  const text = expandText(turn.text ?? "", context);
  const usage = usageOf(turn, { request, text });
  for (const piece of chunk(text, turn.chunks)) yield { type: "text_delta", text: piece };
  if (turn.error !== undefined) {
    const { kind = "script", message, status } = turn.error;
    yield {
      type: "error",
      error: status === undefined ? { kind, message } : { kind, message, status },
      stopReason: kind === "aborted" ? "aborted" : "error",
      usage,
    };
    return;
  }
  const calls = (turn.tool_calls ?? []).map((call, i) => {
    const id = call.id ?? `call_${request.meta.agentType}_${turnIndex}_${i}`.replace(/[^A-Za-z0-9_-]/g, "_");
    return toolCall(call, { id, context });
  });
  for (const call of calls) yield { type: "tool_call", call };
  const content: ContentBlock[] = text === "" ? [...calls] : [{ type: "text", text }, ...calls];
  yield {
    type: "done",
    message: { role: "assistant", content },
    stopReason: calls.length > 0 ? "tool_use" : "end_turn",
    usage,
  };
}

/** The turn to play, or a message saying why there is none. */
function pickTurn(
  agents: Map<string, CompiledEntry[]>,
  request: ModelRequest,
): { turn: ScriptTurn; turnIndex: number } | string {
  const agentType = request.meta.agentType;
  const prompt = textOf(request.messages.find((m) => m.role === "user") ?? { role: "user", content: [] });
  const turnIndex = request.messages.filter((m) => m.role === "assistant").length;
  const where = `agent type "${agentType}", prompt ${quote(prompt)}, turn ${turnIndex}`;
  const candidates = [...agents.get(agentType) ?? [], ...agentType === "*" ? [] : agents.get("*") ?? []];
  if (candidates.length === 0) {
    return `Script has no entries for this request (${where}): add an "agents" key "${agentType}" or "*"`;
  }
  const found = candidates.find((c) => c.match === undefined || c.match.test(prompt));
  if (found === undefined) {
    return `No script entry matches this request (${where}): no "match" of "${agentType}" or "*" fits the prompt`;
  }
  const { turns, repeat_last } = found.entry;
  const turn = turns[turnIndex] ?? (repeat_last ? turns.at(-1) : undefined);
  if (turn === undefined) {
    return `Script ran out of turns (${where}): the matching entry has ${turns.length}; ` +
      `add turns or set repeat_last: true`;
  }
  return { turn, turnIndex };
}

function toolCall(call: ScriptToolCall, options: { id: string; context: PlaceholderContext }): ToolCallBlock {
  const parsed = call.raw_arguments !== undefined
    ? parseToolArguments(call.raw_arguments, call.name)
    : { input: expandValue(call.input ?? {}, options.context) as Record<string, unknown> };
  return toolCallBlock({ id: options.id, name: call.name, ...parsed });
}

/** `count` pieces (default one per ~20 characters), never splitting a surrogate pair. */
function chunk(text: string, count?: number): string[] {
  const chars = [...text];
  if (chars.length === 0) return [];
  const n = Math.max(1, Math.min(chars.length, count ?? Math.ceil(chars.length / 20)));
  const size = Math.ceil(chars.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces;
}

function usageOf(turn: ScriptTurn, { request, text }: { request: ModelRequest; text: string }): Usage {
  return {
    inputTokens: turn.usage?.input_tokens ?? Math.ceil(requestChars(request) / 4),
    outputTokens: turn.usage?.output_tokens ?? Math.ceil(text.length / 4),
  };
}

function requestChars(request: ModelRequest): number {
  let chars = request.system.length + JSON.stringify(request.tools).length;
  for (const message of request.messages) for (const block of message.content) chars += blockChars(block);
  return chars;
}

function blockChars(block: ContentBlock): number {
  switch (block.type) {
    case "text":
      return block.text.length;
    case "tool_result":
      return block.content.length;
    case "tool_call":
      return block.name.length + JSON.stringify(block.input).length;
    case "thinking":
      return block.thinking.length;
    case "redacted_thinking":
      return block.data.length;
  }
}

function compile(source: string | undefined): RegExp | undefined {
  return source === undefined ? undefined : new RegExp(source);
}

function quote(prompt: string): string {
  return JSON.stringify(prompt.length > 80 ? `${prompt.slice(0, 80)}…` : prompt);
}
