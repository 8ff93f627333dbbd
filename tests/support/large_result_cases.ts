// The scripted sessions of the large-tool-result tests and of the golden comparison with Claude Code
// 2.1.332 (docs/reference/limits.md, "Large tool results"): the model runs `cat big.txt` with Bash (a
// 200,000-character file of numbered lines), then follows the pointer of the result it got with a Read
// of the saved file (lines 3,990 to 3,994), then ends. In the `child` case a subagent does this and
// its parent reports. Handlers answer by the conversation's state, never by request number, so one
// script drives both CLIs. Used by scripts/record_claude_large_result.ts and
// tests/e2e_tool_result_persist_test.ts.

import { type FakeHandler, fakeTurn } from "../../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../../lib/provider/anthropic_wire.ts";
import { resultsSoFar } from "./claude_caching_cases.ts";

interface WireBlock {
  type: string;
  text?: string;
  content?: unknown;
}

export const BIG_CHARS = 200_000;
export const CHILD_PROMPT = "Print big.txt and report its last line.";

/** The file the model prints: lines of 49 characters, `line 000000 xxx…`, 199,999 characters in all. */
export function bigText(chars = BIG_CHARS): string {
  return Array.from(
    { length: Math.ceil(chars / 50) },
    (_, i) => `line ${String(i).padStart(6, "0")} ${"x".repeat(37)}`,
  )
    .join("\n").slice(0, chars);
}

/** The content of every tool result of a request, in order. */
export function toolResults(body: AnthropicRequestBody): string[] {
  return (body.messages ?? []).flatMap((m) => {
    const c = m.content as unknown as string | WireBlock[];
    if (typeof c === "string") return [];
    return c.filter((b) => b.type === "tool_result").map((b) =>
      typeof b.content === "string"
        ? b.content
        : Array.isArray(b.content)
        ? (b.content as WireBlock[]).map((x) => x.text ?? "").join("\n")
        : ""
    );
  });
}

/** The saved file a `<persisted-output>` block points to. */
export function savedPath(content: string): string | undefined {
  return /Full output saved to: (\S+)\n/.exec(content)?.[1];
}

function texts(body: AnthropicRequestBody): string[] {
  return (body.messages ?? []).flatMap((m) => {
    const c = m.content as unknown as string | WireBlock[];
    return typeof c === "string" ? [c] : c.map((b) => b.text ?? "");
  });
}

/** A request of the printing subagent: its conversation holds the delegated prompt. */
export function fromLargeResultChild(body: AnthropicRequestBody): boolean {
  return texts(body).some((t) => t.includes(CHILD_PROMPT));
}

/** The session (or child) that prints the file, then reads back part of what was saved. */
function printer(workspace: string, body: AnthropicRequestBody) {
  const results = toolResults(body);
  if (results.length === 0) {
    return fakeTurn({
      text: "Printing.",
      toolCalls: [{
        name: "Bash",
        input: { command: `cat ${workspace}/big.txt`, description: "Print the file" },
      }],
    });
  }
  const path = savedPath(results[0]!);
  if (results.length === 1 && path !== undefined) {
    return fakeTurn({
      text: "Reading the rest.",
      toolCalls: [{ name: "Read", input: { file_path: path, offset: 3990, limit: 5 } }],
    });
  }
  return fakeTurn({ text: /line 003993/.test(results.at(-1)!) ? "Last part read." : "Could not read it." });
}

/** The fake server of one case. */
export function largeResultHandler(
  o: { workspace: string; child?: boolean },
): FakeHandler<AnthropicRequestBody> {
  return (req) => {
    if (req.path !== "/v1/messages") return new Response("{}", { status: 404 });
    const body = req.body;
    if (o.child !== true || fromLargeResultChild(body)) return printer(o.workspace, body);
    const tool = (body.tools ?? []).some((t) => t.name === "Agent") ? "Agent" : "Task";
    if (resultsSoFar(body) === 0) {
      return fakeTurn({
        text: "Delegating.",
        toolCalls: [{
          name: tool,
          input: { subagent_type: "general-purpose", description: "Print big.txt", prompt: CHILD_PROMPT },
        }],
      });
    }
    return fakeTurn({ text: "The subagent reported." });
  };
}

/**
 * What the golden keeps of one run's requests: the printing session's Bash result as the model got it
 * (the saved file's path as `<PATH>`), where the path is (`pathShape`), and the Read of it.
 */
export function largeResultRecord(bodies: AnthropicRequestBody[], normal: (t: string) => string) {
  const last = bodies.findLast((b) => toolResults(b).length >= 2);
  if (last === undefined) throw new Error("the saved file was never read back");
  const [printed, readBack] = toolResults(last) as [string, string];
  const path = savedPath(printed)!;
  return {
    content: printed.replace(path, "<PATH>"),
    pathShape: normal(path).replace(/[^/]+\.txt$/, "<ID>.txt"),
    readBack: readBack.split("\n").filter((l) => /line 00399[0-4]/.test(l)).length,
  };
}
