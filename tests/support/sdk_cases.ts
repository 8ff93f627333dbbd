// The Agent SDK suite's cases (tests/sdk_test.ts): each an SDK program of tests/sdk/programs/ run by
// Node against a CLI, and the fake Anthropic server's answers by the state of the conversation (not
// by request number: Claude Code and Blade send different side requests). Used by the test (against
// Blade) and by scripts/record_sdk_goldens.ts (against Claude Code 2.1.332: tests/fixtures/sdk/).

import { type FakeHandler, type FakeResponse, fakeTurn } from "../../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../../lib/provider/anthropic_wire.ts";

export interface SdkCase {
  name: string;
  /** What the case shows (the test's name). */
  about: string;
  handler: (workspace: string) => FakeHandler<AnthropicRequestBody>;
  /** Variables for the program (besides SDK_CLI, SDK_CWD and MCP_SERVER: the test MCP server's command). */
  env?: (workspace: string) => Record<string, string>;
}

interface WireBlock {
  type: string;
  text?: string;
  content?: unknown;
}

interface WireMessage {
  role: string;
  content: string | WireBlock[];
}

function messages(body: AnthropicRequestBody): WireMessage[] {
  return (body.messages ?? []) as unknown as WireMessage[];
}

function textOf(m: WireMessage | undefined): string {
  if (m === undefined) return "";
  return typeof m.content === "string" ? m.content : m.content.map((b) => b.text ?? "").join("\n");
}

/** The last user message's text, and whether tool results came after it (the model's next step). */
function lastPrompt(body: AnthropicRequestBody): { prompt: string; results: number } {
  const all = messages(body);
  let results = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const m = all[i]!;
    if (m.role !== "user") continue;
    const blocks = typeof m.content === "string" ? [] : m.content;
    const tr = blocks.filter((b) => b.type === "tool_result").length;
    if (
      tr === 0 ||
      blocks.some((b) => b.type === "text" && (b.text ?? "").trim() !== "" && !b.text!.startsWith("<"))
    ) {
      return { prompt: textOf(m), results };
    }
    results += tr;
  }
  return { prompt: "", results };
}

function everything(body: AnthropicRequestBody): string {
  return JSON.stringify(body.messages ?? []);
}

/** Requests without tools are the CLI's own side requests (titles, summaries): a short answer. */
function onTurn(answer: (body: AnthropicRequestBody) => FakeResponse): FakeHandler<AnthropicRequestBody> {
  return (req) => {
    if (req.path !== "/v1/messages") return new Response("{}", { status: 404 });
    if ((req.body.tools ?? []).length === 0) return fakeTurn({ text: "side" });
    return answer(req.body);
  };
}

export const SDK_CASES: SdkCase[] = [
  {
    name: "mcp_servers",
    about:
      "an MCP server in the SDK's mcpServers (default delivery: its initialize request) is started and called",
    handler: () =>
      onTurn((body) =>
        lastPrompt(body).results === 0
          ? fakeTurn({ toolCalls: [{ name: "mcp__test__echo", input: { text: "hi" } }] })
          : fakeTurn({ text: "Done." })
      ),
  },
  {
    name: "sdk_mcp_server",
    about: "an in-process createSdkMcpServer tool runs through mcp_message control requests",
    handler: () =>
      onTurn((body) =>
        lastPrompt(body).results === 0
          ? fakeTurn({ toolCalls: [{ name: "mcp__calc__add", input: { a: 2, b: 3 } }] })
          : fakeTurn({ text: "The sum is 5." })
      ),
  },
  {
    name: "hooks",
    about: "a PreToolUse hook callback sees each call and its deny refuses one",
    handler: () =>
      onTurn((body) => {
        switch (lastPrompt(body).results) {
          case 0:
            return fakeTurn({
              toolCalls: [{ name: "Bash", input: { command: "echo made > made.txt", description: "make" } }],
            });
          case 1:
            return fakeTurn({
              toolCalls: [{ name: "Bash", input: { command: "rm made.txt", description: "clean" } }],
            });
          default:
            return fakeTurn({ text: "Cleaned up as far as allowed." });
        }
      }),
  },
  {
    name: "hooks_stop_post",
    about:
      "PostToolUse and Stop hook callbacks: the call's context reaches the model, a Stop block forces one more answer",
    handler: () =>
      onTurn((body) => {
        const all = everything(body);
        if (all.includes("Say DONE in capitals.")) return fakeTurn({ text: "DONE" });
        // Any tool result so far (the hook's context may follow it in the same message).
        if (!all.includes('"tool_result"')) {
          return fakeTurn({
            toolCalls: [{ name: "Bash", input: { command: "echo made", description: "make" } }],
          });
        }
        return fakeTurn({
          text: all.includes("Remember to say DONE.") ? "done, context seen" : "done, no context",
        });
      }),
  },
  {
    name: "can_use_tool",
    about: "canUseTool: a deny's message is the tool result, an allow's updatedInput is what runs",
    handler: () =>
      onTurn((body) =>
        lastPrompt(body).results === 0
          ? fakeTurn({
            toolCalls: [
              { name: "Bash", input: { command: "touch one.txt", description: "one" } },
              { name: "Bash", input: { command: "touch two.txt", description: "two" } },
            ],
          })
          : fakeTurn({ text: "Done." })
      ),
  },
  {
    name: "set_permission_mode",
    about: "setPermissionMode widens the running session: a refused write runs after acceptEdits",
    handler: (workspace) =>
      onTurn((body) => {
        const { prompt, results } = lastPrompt(body);
        const file = /second/.test(prompt) ? "second.txt" : "first.txt";
        return results === 0
          ? fakeTurn({
            toolCalls: [{ name: "Write", input: { file_path: `${workspace}/${file}`, content: "x\n" } }],
          })
          : fakeTurn({ text: `Tried ${file}.` });
      }),
  },
  {
    name: "interrupt",
    about: "interrupt() stops the turn under way and the session answers the next message",
    handler: () =>
      onTurn((body) =>
        /long time/.test(lastPrompt(body).prompt) && !/Say hello/.test(everything(body))
          // Some text, then silence until the request is cancelled.
          ? fakeTurn({
            text: "Thinking about it, step by step and at length.",
            chunks: 4,
            stallAfterEvents: 5,
          })
          : fakeTurn({ text: "Hello." })
      ),
  },
  {
    name: "resume",
    about: "resume continues a session: the model sees the earlier turn",
    handler: () =>
      onTurn((body) => {
        const { prompt } = lastPrompt(body);
        if (/Remember the word/.test(prompt)) return fakeTurn({ text: "OK." });
        return fakeTurn({
          text: /cherry/.test(everything(body)) ? "You asked me to remember cherry." : "I do not know.",
        });
      }),
  },
  {
    name: "max_thinking_tokens",
    about:
      "setMaxThinkingTokens() sets the thinking of the next turns: a budget, off, a display, back to the default",
    // The answer is the request's thinking and max_tokens: what the program compares.
    handler: () =>
      onTurn((body) => {
        const t = (body.thinking ?? {}) as { type?: string; budget_tokens?: number; display?: string };
        return fakeTurn({
          text: `${t.type ?? "none"} ${t.budget_tokens ?? "-"} ${t.display ?? "-"} ${body.max_tokens}`,
        });
      }),
  },
  {
    name: "stop_task",
    about: "stopTask() stops a background agent still at work; an unknown id is no error",
    handler: () =>
      onTurn((body) => {
        if (/CHILD TASK/.test(JSON.stringify(messages(body)[0] ?? ""))) {
          // The child keeps working (silence until the request is cancelled).
          return fakeTurn({ text: "Working on it, step by step.", chunks: 4, stallAfterEvents: 5 });
        }
        const { results } = lastPrompt(body);
        const started = messages(body).some((m) => m.role === "assistant" && textOf(m).includes("Started."));
        if (results === 0 && !started) {
          return fakeTurn({
            toolCalls: [{
              name: "Agent",
              input: {
                description: "Long job",
                prompt: "CHILD TASK: work for a long time.",
                subagent_type: "general-purpose",
                run_in_background: true,
              },
            }],
          });
        }
        return fakeTurn({ text: started ? "Noted." : "Started." });
      }),
  },
];
