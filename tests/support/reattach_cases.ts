// The scripted session of the re-attach test and of its golden comparison with Claude Code 2.1.332
// (docs/reference/limits.md, "Compaction"): the model reads seven small files one by one, then ends;
// `/compact` follows (`-p --continue`), then a new prompt. The fake server answers by the
// conversation's state, so one script drives both CLIs. Used by scripts/record_claude_reattach.ts and
// tests/e2e_compaction_reattach_test.ts.

import { type FakeHandler, fakeTurn } from "../../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../../lib/provider/anthropic_wire.ts";
import { resultsSoFar } from "./claude_caching_cases.ts";
import { isSummaryRequest } from "./claude_compaction_cases.ts";

export const REATTACH_FILES = ["f1.txt", "f2.txt", "f3.txt", "f4.txt", "f5.txt", "f6.txt", "f7.txt"];
export const NEXT_PROMPT = "What next?";
/** The three runs, in order: the reading, the compaction, the next prompt. */
export const REATTACH_RUNS = [["-p", "Read the files."], ["-p", "--continue", "/compact"], [
  "-p",
  "--continue",
  NEXT_PROMPT,
]];

export function reattachFiles(): Record<string, string> {
  return Object.fromEntries(REATTACH_FILES.map((f) => [f, `content of ${f}\n`.repeat(5)]));
}

export function reattachHandler(workspace: string): FakeHandler<AnthropicRequestBody> {
  return (req) => {
    if (req.path !== "/v1/messages") return new Response("{}", { status: 404 });
    if (isSummaryRequest(req.body)) {
      return fakeTurn({ text: "<analysis>a</analysis>\n<summary>SUMMARY-MARK</summary>" });
    }
    if (JSON.stringify(req.body.messages).includes(NEXT_PROMPT)) return fakeTurn({ text: "Nothing." });
    const done = resultsSoFar(req.body);
    if (done < REATTACH_FILES.length) {
      return fakeTurn({
        text: "Reading.",
        toolCalls: [{ name: "Read", input: { file_path: `${workspace}/${REATTACH_FILES[done]}` } }],
      });
    }
    return fakeTurn({ text: "Read them all." });
  };
}

interface WireBlock {
  type: string;
  text?: string;
}

/**
 * What the golden keeps of the request after the compaction: the files re-attached, in order, each
 * as Claude Code words it — the Read call's input, then "Result of calling the Read tool:" — with the
 * workspace as /WORKSPACE.
 */
export function reattachRecord(body: AnthropicRequestBody, workspace: string) {
  const texts = (body.messages ?? []).filter((m) => m.role === "user").flatMap((m) => {
    const c = m.content as unknown as string | WireBlock[];
    return typeof c === "string" ? [c] : c.filter((b) => b.type === "text").map((b) => b.text ?? "");
  }).map((t) => t.replaceAll(workspace, "/WORKSPACE").trim());
  const calls = texts.filter((t) => t.includes("Called the Read tool with the following input"));
  const results = texts.filter((t) => t.includes("Result of calling the Read tool:"));
  return {
    files: calls.map((t) => /"file_path":"([^"]+)"/.exec(t)?.[1] ?? ""),
    call: calls[0] ?? null,
    result: results[0] ?? null,
  };
}
