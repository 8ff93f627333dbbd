// Owns `blade run <agent> "prompt"`: runs one subagent directly as the child of an ad-hoc parent
// session (useful in CI: `blade run review "…" --output-format json`). Exit 0/1 by the child's success.

import { parseArgs } from "node:util";
import type { Ports } from "../sys/mod.ts";
import { usageError } from "../errors.ts";
import { createApp } from "../app.ts";
import type { Io } from "./io.ts";
import { parseOrUsage, RUN_OPTIONS } from "./main.ts";
import { appFlagsOf, interruptController, listFlag, outputFormatOf, printSink } from "./print_cmd.ts";
import { readStdin } from "../sys/signals.ts";
import { subagentEnv } from "./subagent_wiring.ts";
import { SubagentRuntime } from "../manager/subagents.ts";
import { openSession } from "../session/open.ts";
import { messageEvents } from "../executor/loop.ts";
import { newAgentId } from "../sys/ids.ts";
import { userText } from "../protocol/messages.ts";

const HELP = `Usage: blade run <agent> "prompt" [options]

Runs one subagent directly, as the child of a new parent session, and prints its final answer.
Exit code 0 when the agent succeeded, 1 when it failed.

  --description <text>   the run's short description (default: the first words of the prompt)
  --output-format <f>    text (default) | json | stream-json
  plus the options of blade -p: --model, --provider, --script, --permission-mode, --agents,
  --trust-workspace, --debug (see blade --help)

Examples:
  blade run review "Review the staged changes" --output-format json
  blade run verification "Verify the last change" --trust-workspace
`;

export async function runAgentCommand(argv: string[], ports: Ports, io: Io): Promise<number> {
  const { values, positionals } = parseOrUsage(() =>
    parseArgs({
      args: argv,
      options: { ...RUN_OPTIONS, description: { type: "string" } },
      allowPositionals: true,
      strict: true,
    }), "blade run");
  if (values.help === true) {
    io.out(HELP);
    return 0;
  }
  const [agent, ...words] = positionals;
  if (agent === undefined) {
    throw usageError("blade run needs an agent name.", 'Example: blade run review "check the diff"');
  }
  let prompt = words.join(" ");
  if (prompt.trim() === "" && !ports.env.stdinIsTerminal()) prompt = (await readStdin()).trim();
  if (prompt.trim() === "") throw usageError("No prompt given.", `Example: blade run ${agent} "what to do"`);
  if (values.background === true) {
    throw usageError("blade run --background is not available in this version yet.");
  }
  const format = outputFormatOf(values);
  const app = await createApp(ports, appFlagsOf(values), { debugSink: (l) => io.err(`[debug] ${l}\n`) });
  const parent = await openSession(ports, {
    layout: app.layout,
    workspace: app.workspace,
    model: app.config.model,
    redact: app.redact,
  });
  const sink = printSink(io, format, () => undefined);
  const env = await subagentEnv(app, sink.emit, {
    allowedTools: listFlag(values, "allowed-tools", "allowedTools"),
  });
  env.registry.require(agent);
  const runtime = new SubagentRuntime(env, {
    sessionId: parent.sessionId,
    projectPath: app.workspace,
    workspaceRoot: app.workspace,
    model: app.config.model,
    mode: app.config.permissionMode,
    depth: 0,
  });
  const description = values.description ?? shortDescription(prompt);
  const id = newAgentId(ports.ids);
  const callId = `run_${ports.ids.random21()}`;
  const input = { subagent_type: agent, description, prompt, subagent_session_id: id };
  // The ad-hoc parent's transcript records the delegation like a Task call would.
  await parent.transcript.append([
    { type: "turn_started", data: { turn: 1 } },
    ...messageEvents(ports.ids, userText(`blade run ${agent}`)),
    ...messageEvents(ports.ids, {
      role: "assistant",
      content: [{ type: "tool_call", id: callId, name: "Task", input }],
    }),
  ]);
  const interrupt = interruptController();
  try {
    const result = await runtime.launch(input, {
      ports,
      sessionId: parent.sessionId,
      workspaceRoot: app.workspace,
      storageRoot: app.layout.root,
      trusted: app.trust.trusted,
      mode: app.config.permissionMode,
      callId,
      signal: interrupt.signal,
      emit: sink.emit,
    });
    await parent.transcript.append([
      ...messageEvents(ports.ids, {
        role: "user",
        content: [{ type: "tool_result", callId, content: result.content, isError: result.isError }],
      }, { parts: result.parts ?? [] }),
      result.isError
        ? { type: "turn_aborted", data: { turn: 1, cause: interrupt.interrupted() ? "cancelled" : "failed" } }
        : {
          type: "turn_completed",
          data: {
            turn: 1,
            turns: 0,
            toolCalls: 1,
            durationMs: 0,
            usage: { inputTokens: 0, outputTokens: 0 },
          },
        },
    ]);
    const meta = (result.metadata ?? {}) as {
      stats?: { tokens: number; toolCalls: number; durationMs: number };
    };
    const stats = meta.stats ?? { tokens: 0, toolCalls: 0, durationMs: 0 };
    const record = await env.store.load(id);
    const finalText = record !== null && "record" in record ? record.record.result.message : "";
    const errorText = record !== null && "record" in record ? record.record.result.error : undefined;
    sink.finish({
      sessionId: parent.sessionId,
      status: result.isError ? (interrupt.interrupted() ? "cancelled" : "failed") : "completed",
      result: finalText,
      agentId: id,
      numTurns: 0,
      toolCalls: stats.toolCalls,
      usage: { inputTokens: stats.tokens, outputTokens: 0 },
      durationMs: stats.durationMs,
      subagents: sink.subagents,
      ...(result.isError ? { error: { type: "subagent_failed", message: errorText ?? result.content } } : {}),
    });
    if (interrupt.interrupted()) return 130;
    return result.isError ? 1 : 0;
  } finally {
    interrupt.dispose();
  }
}

function shortDescription(prompt: string): string {
  const flat = prompt.replace(/\s+/g, " ").trim();
  const cut = flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
  return cut.length >= 3 ? cut : `${cut} run`.slice(0, 100);
}
