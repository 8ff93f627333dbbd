// The scripted sessions of the prompt-caching comparison with Claude Code 2.1.332 (docs/reference/limits.md,
// "Prompt caching"): a main session reading files over several requests, a subagent doing the same, and
// the 20-request session of the bench's `caching` group. Handlers answer by the state of the
// conversation (tool results so far), never by request number, so one script drives both CLIs.
// Used by scripts/record_claude_caching.ts (records Claude Code), tests/claude_caching_golden_test.ts
// and scripts/bench_caching.ts. `cacheUsage` lets the fake server report what a prompt cache would.

import { type FakeHandler, type FakeTurn, fakeTurn } from "../../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../../lib/provider/anthropic_wire.ts";

export interface CachingCase {
  name: string;
  prompt: string;
  files: Record<string, string>;
  handler: (
    workspace: string,
    usage?: (body: AnthropicRequestBody) => FakeTurn["usage"],
  ) => FakeHandler<AnthropicRequestBody>;
}

interface WireBlock {
  type: string;
  text?: string;
}

/** Tool results in the request's conversation. */
export function resultsSoFar(body: AnthropicRequestBody): number {
  let n = 0;
  for (const m of body.messages ?? []) {
    const content = m.content as unknown as string | WireBlock[];
    if (typeof content !== "string") n += content.filter((b) => b.type === "tool_result").length;
  }
  return n;
}

export const DELEGATED = "Read the note and report what it says in one sentence.";

/** Whether the request is the subagent's: its conversation holds the delegated prompt. */
export function fromChild(body: AnthropicRequestBody): boolean {
  const first = body.messages?.[0]?.content as unknown as string | WireBlock[] | undefined;
  if (first === undefined) return false;
  const text = typeof first === "string" ? first : first.map((b) => b.text ?? "").join("\n");
  return text.includes(DELEGATED);
}

/** The delegation tool of the CLI that sent the request (Claude Code: `Agent`, Blade: `Task` or `Agent`). */
function delegationTool(body: AnthropicRequestBody): string {
  const names = (body.tools ?? []).map((t) => t.name);
  return names.includes("Agent") ? "Agent" : "Task";
}

const notFound = () => new Response("{}", { status: 404 });

/** A session of `reads` Read calls, one per request, then an answer: `reads + 1` requests. */
function reader(files: (workspace: string) => string[]): CachingCase["handler"] {
  return (workspace, usage) => (req) => {
    if (req.path !== "/v1/messages") return notFound();
    const list = files(workspace);
    const done = resultsSoFar(req.body);
    const cost = usage?.(req.body);
    if (done < list.length) {
      return fakeTurn({
        text: `Reading part ${done + 1}.`,
        toolCalls: [{ name: "Read", input: { file_path: list[done]! } }],
        ...(cost === undefined ? {} : { usage: cost }),
      });
    }
    return fakeTurn({ text: "All parts read.", ...(cost === undefined ? {} : { usage: cost }) });
  };
}

/** A text of about `kb` kilobytes, different per `seed` (a large tool result). */
export function bulkText(seed: number, kb: number): string {
  const lines: string[] = [];
  for (let i = 0; lines.join("\n").length < kb * 1024; i++) {
    lines.push(
      `part ${seed} line ${i}: the quick brown fox jumps over the lazy dog ${(seed * 7919 + i) % 1000}`,
    );
  }
  return lines.join("\n") + "\n";
}

const BENCH_READS = 19;

export const CACHING_CASES: CachingCase[] = [
  {
    name: "main",
    prompt: "Read the three notes.",
    files: { "a.txt": "alpha\n", "b.txt": "bravo\n", "c.txt": "charlie\n" },
    handler: reader((w) => [`${w}/a.txt`, `${w}/b.txt`, `${w}/c.txt`]),
  },
  {
    name: "subagent",
    prompt: "Ask a subagent what the note says.",
    files: { "note.txt": "The note says hello.\n" },
    handler: (workspace) => (req) => {
      if (req.path !== "/v1/messages") return notFound();
      const done = resultsSoFar(req.body);
      if (fromChild(req.body)) {
        if (done === 0) {
          return fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: `${workspace}/note.txt` } }] });
        }
        return fakeTurn({ text: "The note says hello." });
      }
      if (done === 0) {
        return fakeTurn({
          text: "Delegating.",
          toolCalls: [{
            name: delegationTool(req.body),
            input: { subagent_type: "general-purpose", description: "Read the note", prompt: DELEGATED },
          }],
        });
      }
      return fakeTurn({ text: "The subagent read it." });
    },
  },
  {
    // The bench's session: 20 requests, each after a large tool result (about 6 kB).
    name: "bench_20",
    prompt: `Read the ${BENCH_READS} parts.`,
    files: Object.fromEntries(
      Array.from({ length: BENCH_READS }, (_, i) => [`part${i}.txt`, bulkText(i, 6)]),
    ),
    handler: reader((w) => Array.from({ length: BENCH_READS }, (_, i) => `${w}/part${i}.txt`)),
  },
];

/** What a request's breakpoints look like, without its text: the golden's unit. */
export interface RequestShape {
  /** Whose request: the session's or its subagent's. */
  from: "main" | "child";
  /** Per system block: whether it carries a breakpoint. */
  system: boolean[];
  tools: number;
  toolBreakpoints: number;
  /** Per message: its role and, per block, its type and whether it carries a breakpoint. */
  messages: { role: string; blocks: { type: string; cache: boolean }[] }[];
}

interface CacheMarked {
  type?: string;
  cache_control?: unknown;
}

export function requestShape(body: AnthropicRequestBody): RequestShape {
  const marked = (b: CacheMarked) => b.cache_control !== undefined;
  const system = body.system as unknown as string | CacheMarked[] | undefined;
  return {
    from: fromChild(body) ? "child" : "main",
    system: system === undefined ? [] : typeof system === "string" ? [false] : system.map(marked),
    tools: (body.tools ?? []).length,
    toolBreakpoints: (body.tools ?? []).filter((t) => marked(t as CacheMarked)).length,
    messages: (body.messages ?? []).map((m) => {
      const content = m.content as unknown as string | CacheMarked[];
      return {
        role: m.role,
        blocks: typeof content === "string"
          ? [{ type: "text", cache: false }]
          : content.map((b) => ({ type: b.type ?? "?", cache: marked(b) })),
      };
    }),
  };
}

/**
 * Where the breakpoints are, counted from the end: system blocks (1 = the last), tools, and
 * [message, block] pairs of the conversation. Claude Code's rule reads `{system: [2, 1], tools: 0,
 * messages: [[1, 1]]}`: the last two system blocks and the last block of the last message.
 */
export function breakpointPlacement(shape: RequestShape): {
  system: number[];
  tools: number;
  messages: [number, number][];
} {
  const n = shape.system.length;
  const messages: [number, number][] = [];
  shape.messages.forEach((m, i) =>
    m.blocks.forEach((b, j) => {
      if (b.cache) messages.push([shape.messages.length - i, m.blocks.length - j]);
    })
  );
  return {
    system: shape.system.flatMap((cache, i) => cache ? [n - i] : []),
    tools: shape.toolBreakpoints,
    messages,
  };
}
