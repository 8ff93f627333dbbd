// The scripted sessions of the compaction tests and of the golden comparison with Claude Code 2.1.332
// (docs/reference/limits.md, "Compaction"): a session reads `parts` files, one per request. The fake
// server answers a summary request (Blade's or Claude Code's) with a summary that says how many parts
// were read before it, so the session goes on where it stopped; "too long" answers 400 "prompt is too
// long" once the conversation holds three tool results and no summary (reactive compaction); "full"
// reports a context of 9,000 tokens from the second result on (auto-compaction with a 42,000-token
// window: threshold 9,000). A subagent may do the reading (`child`). Handlers answer by the conversation's state, never
// by request number, so one script drives both CLIs. Used by scripts/record_claude_compaction.ts and
// tests/e2e_compaction_test.ts.

import { type FakeHandler, fakeStatus, fakeTurn } from "../../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../../lib/provider/anthropic_wire.ts";
import { resultsSoFar } from "./claude_caching_cases.ts";

interface WireBlock {
  type: string;
  text?: string;
  content?: unknown;
}

export const PART_LINES = 60;

/** The text of part `i` (a few kB, so tool results are large next to the prompt). */
export function partText(i: number): string {
  return Array.from({ length: PART_LINES }, (_, n) => `part ${i} line ${n}: lorem ipsum dolor sit amet`).join(
    "\n",
  ) +
    "\n";
}

export const SUMMARY_MARK = "SUMMARY-OF-CONVERSATION";
export const CHILD_PROMPT = "Read the parts and report how many you read.";

function texts(body: AnthropicRequestBody): string[] {
  return (body.messages ?? []).flatMap((m) => {
    const c = m.content as unknown as string | WireBlock[];
    return typeof c === "string"
      ? [c]
      : c.map((b) => b.text ?? (typeof b.content === "string" ? b.content : ""));
  });
}

/** Whether the request asks for a summary (Blade's words or Claude Code's). */
export function isSummaryRequest(body: AnthropicRequestBody): boolean {
  // The last user message (Claude Code may send a system message after it).
  const last = (body.messages ?? []).findLast((m) => m.role === "user")?.content as unknown as
    | string
    | WireBlock[]
    | undefined;
  const text = typeof last === "string" ? last : (last ?? []).map((b) => b.text ?? "").join("\n");
  return /Write a detailed summary of the conversation|Please provide your summary/.test(text);
}

/** Parts a summary in the conversation says were read before it (0 without one). */
function summarised(body: AnthropicRequestBody): number {
  for (const t of texts(body)) {
    const m = new RegExp(`${SUMMARY_MARK}: read (\\d+) parts`).exec(t);
    if (m !== null) return Number(m[1]);
  }
  return 0;
}

/** A request of the reading subagent: its prompt, or (once compacted) its summary, is in the conversation. */
export function fromCompactionChild(body: AnthropicRequestBody): boolean {
  return texts(body).some((t) => t.includes(CHILD_PROMPT) || t.includes(SUMMARY_MARK));
}

export interface CompactionCase {
  /** "too long": 400 prompt is too long at three results; "full": usage near a 42,000-token window. */
  trigger: "too long" | "full";
  parts: number;
  /** A subagent does the reading; the session delegates to it and reports its answer. */
  child?: boolean;
}

const notFound = () => new Response("{}", { status: 404 });

/** The reading session (or child) of one case. */
function reader(c: CompactionCase, workspace: string, body: AnthropicRequestBody) {
  const here = resultsSoFar(body);
  const before = summarised(body);
  if (isSummaryRequest(body)) {
    return fakeTurn({
      text: `<analysis>The parts so far.</analysis>\n<summary>${SUMMARY_MARK}: read ${
        before + here
      } parts</summary>`,
      usage: { inputTokens: 1_000, outputTokens: 30 },
    });
  }
  if (c.trigger === "too long" && before === 0 && here >= 3) {
    return fakeStatus(400, { message: "prompt is too long: 210000 tokens > 200000 maximum" });
  }
  // "full": the context nears the window once two results are in (before any summary).
  const usage = c.trigger === "full" && before === 0 && here >= 2
    ? { inputTokens: 9_000, outputTokens: 10 }
    : { inputTokens: 500, outputTokens: 10 };
  // A summary covers the conversation before the kept tail: its count and the tail's add up.
  const read = before + here;
  if (read < c.parts) {
    return fakeTurn({
      text: `Reading part ${read}.`,
      toolCalls: [{ name: "Read", input: { file_path: `${workspace}/part${read}.txt` } }],
      usage,
    });
  }
  return fakeTurn({ text: `Read all ${c.parts} parts.`, usage });
}

/** The fake server of one case. */
export function compactionHandler(c: CompactionCase, workspace: string): FakeHandler<AnthropicRequestBody> {
  return (req) => {
    if (req.path !== "/v1/messages") return notFound();
    const body = req.body;
    if (c.child !== true || fromCompactionChild(body)) return reader(c, workspace, body);
    const tool = (body.tools ?? []).some((t) => t.name === "Agent") ? "Agent" : "Task";
    if (resultsSoFar(body) === 0) {
      return fakeTurn({
        text: "Delegating.",
        toolCalls: [{
          name: tool,
          input: { subagent_type: "general-purpose", description: "Read the parts", prompt: CHILD_PROMPT },
        }],
      });
    }
    return fakeTurn({ text: "The subagent reported." });
  };
}

/** The files of a case's workspace. */
export function compactionFiles(c: CompactionCase): Record<string, string> {
  return Object.fromEntries(Array.from({ length: c.parts }, (_, i) => [`part${i}.txt`, partText(i)]));
}
