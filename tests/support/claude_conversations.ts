// The scripted conversations of the Claude Code golden comparison (plain answer, Read→Edit→answer,
// foreground delegation, background delegation, max-turns, StructuredOutput retries running out, prompt
// cache tokens), as fake-server handlers that answer by the
// state of the conversation, not by request number: Claude Code and Blade send different side requests
// and name the delegation tool differently (`Agent` / `Task`), and the same script must drive both.
// Used by scripts/record_claude_fixtures.ts (records Claude Code) and tests/claude_golden_test.ts; also
// the request helper the Claude compatibility tests share.

import {
  type FakeHandler,
  fakeStatus,
  fakeTurn,
  type RecordedRequest,
} from "../../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../../lib/provider/anthropic_wire.ts";

export interface Conversation {
  name: string;
  prompt: string;
  /** Extra command-line flags (the same for both CLIs). */
  flags: string[];
  /** Files written into the workspace before the run. */
  files: Record<string, string>;
  handler: (workspace: string) => FakeHandler<AnthropicRequestBody>;
  /** Compare the usage and cost values too, not only their names and types. */
  sameUsage?: boolean;
}

interface WireMessage {
  role: string;
  content: string | Array<{ type: string; text?: string; tool_use_id?: string; content?: unknown }>;
}

/** How many tool results the conversation already holds. */
function toolResults(body: AnthropicRequestBody): number {
  const messages = (body.messages ?? []) as unknown as WireMessage[];
  let n = 0;
  for (const m of messages) {
    if (typeof m.content === "string") continue;
    n += m.content.filter((b) => b.type === "tool_result").length;
  }
  return n;
}

function toolNames(body: AnthropicRequestBody): string[] {
  return ((body.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
}

/** The delegation tool of the CLI that sent the request (Claude Code: `Agent`, Blade: `Task`). */
function delegationTool(body: AnthropicRequestBody): string {
  return toolNames(body).includes("Agent") ? "Agent" : "Task";
}

const DELEGATED_PROMPT = "Find the answer to the question and report it in one sentence.";

/** Whether the request comes from the subagent: its conversation starts with the delegated prompt. */
function fromSubagent(body: AnthropicRequestBody): boolean {
  const first = ((body.messages ?? []) as unknown as WireMessage[])[0];
  if (first === undefined) return false;
  const text = typeof first.content === "string"
    ? first.content
    : first.content.map((b) => b.text ?? "").join("\n");
  return text.includes(DELEGATED_PROMPT);
}

const notFound = () => new Response("{}", { status: 404 });

function delegation(background: boolean): FakeHandler<AnthropicRequestBody> {
  return (req) => {
    if (req.path !== "/v1/messages") return notFound();
    if (fromSubagent(req.body)) return fakeTurn({ text: "The answer from the subagent is 42." });
    const tool = delegationTool(req.body);
    if (toolResults(req.body) === 0) {
      return fakeTurn({
        text: "I will delegate this.",
        toolCalls: [{
          name: tool,
          input: {
            subagent_type: "general-purpose",
            description: "Find the answer",
            prompt: DELEGATED_PROMPT,
            ...(background ? { run_in_background: true } : {}),
          },
        }],
      });
    }
    return fakeTurn({
      text: background ? "The subagent is working in the background." : "The answer is 42.",
    });
  };
}

export const CONVERSATIONS: Conversation[] = [
  {
    name: "plain",
    prompt: "Say hello.",
    flags: [],
    files: {},
    handler: () => (req) =>
      req.path === "/v1/messages" ? fakeTurn({ text: "Hello from the fake model." }) : notFound(),
  },
  {
    name: "read_edit",
    prompt: "Fix the typo in notes.txt.",
    flags: ["--permission-mode", "acceptEdits"],
    files: { "notes.txt": "Helo world\n" },
    handler: (workspace) => (req) => {
      if (req.path !== "/v1/messages") return notFound();
      const file_path = `${workspace}/notes.txt`;
      switch (toolResults(req.body)) {
        case 0:
          return fakeTurn({ text: "Reading the file.", toolCalls: [{ name: "Read", input: { file_path } }] });
        case 1:
          return fakeTurn({
            toolCalls: [{ name: "Edit", input: { file_path, old_string: "Helo", new_string: "Hello" } }],
          });
        default:
          return fakeTurn({ text: "Fixed the typo." });
      }
    },
  },
  {
    name: "foreground",
    prompt: "Ask a subagent for the answer.",
    flags: [],
    files: {},
    handler: () => delegation(false),
  },
  {
    name: "background",
    prompt: "Ask a background subagent for the answer.",
    flags: [],
    files: {},
    handler: () => delegation(true),
  },
  {
    name: "max_turns",
    prompt: "Read notes.txt forever.",
    flags: ["--max-turns", "1"],
    files: { "notes.txt": "Helo world\n" },
    handler: (workspace) => (req) =>
      req.path === "/v1/messages"
        ? fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: `${workspace}/notes.txt` } }] })
        : notFound(),
  },
  {
    // --json-schema with a model that never sends a valid object: the run ends after Claude Code's limit.
    name: "structured_retries",
    prompt: "What is 2+2?",
    flags: [
      "--json-schema",
      JSON.stringify({ type: "object", properties: { answer: { type: "integer" } }, required: ["answer"] }),
    ],
    files: {},
    handler: () => (req) => {
      if (req.path !== "/v1/messages") return notFound();
      if (!toolNames(req.body).includes("StructuredOutput")) return fakeTurn({ text: "side request" });
      return fakeTurn({ toolCalls: [{ name: "StructuredOutput", input: { answer: "four" } }] });
    },
  },
  {
    // A call the run's rules do not allow: refused, with stream-json's system/permission_denied line
    // before its result (the allowed Write keeps the run a success in both).
    name: "permission_denied",
    prompt: "Write notes.txt, then touch made.txt.",
    flags: ["--allowedTools", "Write"],
    files: {},
    handler: (workspace) => (req) => {
      if (req.path !== "/v1/messages") return notFound();
      if (toolResults(req.body) > 0) return fakeTurn({ text: "Wrote the notes; the touch was refused." });
      return fakeTurn({
        toolCalls: [
          { name: "Write", input: { file_path: `${workspace}/notes.txt`, content: "notes\n" } },
          { name: "Bash", input: { command: "touch made.txt", description: "touch" } },
        ],
      });
    },
  },
  {
    // The API refuses the request (400): a synthetic `API Error: 400 …` answer, terminal_reason api_error.
    name: "api_error",
    prompt: "Say hello.",
    flags: [],
    files: {},
    handler: () => (req) =>
      req.path === "/v1/messages"
        ? fakeStatus(400, { message: "max_tokens: 999999 > 128000, which is the maximum allowed" })
        : notFound(),
  },
  {
    // Prompt-cache reads and writes are reported apart from input tokens, in usage and in the cost.
    name: "cache_tokens",
    prompt: "Say hello.",
    flags: [],
    files: {},
    sameUsage: true,
    handler: () => (req) =>
      req.path === "/v1/messages"
        ? fakeTurn({
          text: "Hello from the fake model.",
          usage: {
            inputTokens: 10,
            cacheCreationInputTokens: 1000,
            cacheReadInputTokens: 2000,
            outputTokens: 7,
          },
        })
        : notFound(),
  },
];

export type AnthropicRequest = RecordedRequest<AnthropicRequestBody>;

/** The tool results in the last message of a request the fake Anthropic server received, joined. */
export function lastToolResults(req: AnthropicRequest): string {
  const last = (req.body.messages ?? []).at(-1) as unknown as {
    content: { type: string; content?: string }[];
  };
  return last.content.filter((b) => b.type === "tool_result").map((b) => String(b.content)).join("\n");
}
