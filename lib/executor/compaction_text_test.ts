import assert from "node:assert/strict";
import {
  compactCommand,
  CONTINUATION_OPENING,
  continuationMessage,
  SUMMARY_SECTIONS,
  summaryOf,
  summaryRequestText,
} from "./compaction_text.ts";

Deno.test("compaction text: the summary request asks for text only, <analysis> then <summary> in nine sections", () => {
  const text = summaryRequestText();
  assert.match(text, /text only/i);
  assert.match(text, /<analysis>[\s\S]*<summary>/);
  let at = 0;
  for (const [i, name] of SUMMARY_SECTIONS.entries()) {
    const next = text.indexOf(`${i + 1}. ${name}:`, at);
    assert.ok(next > at, `section ${name} in order`);
    at = next;
  }
  assert.doesNotMatch(text, /Additional Instructions/);
  assert.match(summaryRequestText("focus on the tests"), /Additional Instructions:\nfocus on the tests\n/);
});

Deno.test("compaction text: the summary is the <summary> block, else the text without its analysis", () => {
  const table: [string, string | undefined][] = [
    ["<analysis>thinking</analysis>\n<summary>\n1. Primary Request: x\n</summary>", "1. Primary Request: x"],
    ["<summary>cut off at the end", "cut off at the end"],
    ["<analysis>only thinking</analysis> plain words", "plain words"],
    ["plain words", "plain words"],
    ["<analysis>only thinking</analysis>", undefined],
    ["  ", undefined],
  ];
  for (const [answer, want] of table) assert.equal(summaryOf(answer), want, answer);
});

Deno.test("compaction text: the continued conversation opens with Claude Code's sentence, the summary and the transcript", () => {
  const m = continuationMessage("S-U-M", {
    transcriptPath: "/t/s.jsonl",
    toolsUsed: ["Read", "Bash"],
    kept: 2,
  });
  assert.equal(m.hidden, true);
  const text = (m.content[0] as { text: string }).text;
  assert.ok(text.startsWith(`${CONTINUATION_OPENING}\n`));
  assert.match(text, /<tools-used-before-summary>Read, Bash<\/tools-used-before-summary>/);
  assert.match(text, /\nSummary:\nS-U-M\n/);
  assert.match(text, /\/t\/s\.jsonl/);
  assert.match(text, /kept word for word/);
  const bare = (continuationMessage("S", { toolsUsed: [], kept: 0 }).content[0] as { text: string }).text;
  assert.doesNotMatch(bare, /tools-used|transcript|word for word/);
});

Deno.test("compaction text: /compact and its instructions, as a prompt", () => {
  const table: [string, ReturnType<typeof compactCommand>][] = [
    ["/compact", {}],
    ["  /compact  ", {}],
    ["/compact focus on the parts", { instructions: "focus on the parts" }],
    ["/compact\nkeep the errors", { instructions: "keep the errors" }],
    ["/compacted", undefined],
    ["please /compact", undefined],
    ["/clear", undefined],
  ];
  for (const [prompt, want] of table) assert.deepEqual(compactCommand(prompt), want, prompt);
});
