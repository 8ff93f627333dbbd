// Owns running one tool call outside the conversation (a custom command's `!`command``:
// docs/guides/memory.md) exactly as the session would run it: the same tool, validation, permission
// gate (trust, mode, rules) and further checks, through a ToolRunner of its own. Nothing is written
// to the transcript and no tool event is emitted: the result becomes part of the prompt instead.

import type { Ports } from "../sys/mod.ts";
import type { AnyTool } from "../tools/tool.ts";
import type { ToolCaller } from "./session_context.ts";
import { type BeforeToolCall, type ToolPolicy, ToolRunner } from "./tool_runner.ts";

export function toolCaller(
  tools: readonly AnyTool[],
  o: ToolPolicy & { ports: Ports; sessionId: string; beforeToolCall?: BeforeToolCall },
): ToolCaller {
  const runner = new ToolRunner({ ...o, tools, emit: () => {} });
  let n = 0;
  return async (name, input, signal) => {
    const call = { type: "tool_call" as const, id: `prompt_${++n}`, name, input };
    const prepared = await runner.prepare({ role: "assistant", content: [call] }, signal);
    const [result] = await prepared.run();
    return result ?? { content: `${name} did not run.`, isError: true };
  };
}
