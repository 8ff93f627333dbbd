// Owns the words of a compaction (docs/reference/limits.md, "Compaction"): the request that asks the
// model for a summary, the summary taken from its answer, and the message that opens the compacted
// conversation. The structure follows Claude Code 2.1.332's (recorded in tests/fixtures/claude/
// compaction/): text only, an <analysis> then a <summary> in nine numbered sections, the user's own
// instructions after them; the continued conversation opens with Claude Code's sentence, the summary,
// where the full transcript is, and a note on the messages kept verbatim. Pure.

import type { Message } from "../protocol/messages.ts";

/** The nine sections a summary has, in order (Claude Code's). */
export const SUMMARY_SECTIONS = [
  "Primary Request and Intent",
  "Key Technical Concepts",
  "Files and Code Sections",
  "Errors and fixes",
  "Problem Solving",
  "All user messages",
  "Pending Tasks",
  "Current Work",
  "Optional Next Step",
] as const;

/** The first words of the compacted conversation: Claude Code's, so models trained on it know them. */
export const CONTINUATION_OPENING =
  "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.";

/** The text that asks for the summary, appended after the conversation it summarises. */
export function summaryRequestText(instructions?: string): string {
  const sections = SUMMARY_SECTIONS.map((name, i) => `${i + 1}. ${name}:\n   [${SECTION_HINTS[i]}]`).join(
    "\n\n",
  );
  return [
    "IMPORTANT: answer with text only. Do not call any tool: every call is refused, and this is your only turn.",
    "",
    "Write a detailed summary of the conversation so far. It replaces the conversation: the work will go on from it alone, so keep every detail needed to continue — what the user asked for, what you did and decided, file names, code, errors and how they were fixed.",
    "",
    "First think it through in <analysis> tags: go through the conversation in order and note, for each part, the user's requests, your approach, the decisions, the files, functions and code involved, the errors and the user's feedback. Then write the summary in <summary> tags with these sections:",
    "",
    sections,
    "",
    "The Current Work and Optional Next Step sections must quote the most recent messages where the work stopped, so it resumes exactly there; list a next step only if it is what the user asked for.",
    ...(instructions === undefined || instructions.trim() === ""
      ? []
      : ["", "Additional Instructions:", instructions.trim()]),
    "",
    "REMINDER: text only — an <analysis> block, then a <summary> block. No tool calls.",
  ].join("\n");
}

const SECTION_HINTS = [
  "what the user asked for, in detail",
  "technologies, concepts and patterns that matter",
  "each file looked at, changed or created: why it matters, what changed, the important code",
  "each error met, how it was fixed, and what the user said about it",
  "problems solved and troubleshooting still going on",
  "every message the user wrote (not tool results)",
  "tasks asked for and not done yet",
  "precisely what was being worked on just before this summary",
  "the next step, if the user asked for it, with quotes of where the work stopped",
];

/**
 * The summary in the model's answer: the <summary> block's content, else the text without its
 * <analysis> block; undefined when nothing is left.
 */
export function summaryOf(answer: string): string | undefined {
  const inside = /<summary>([\s\S]*?)(?:<\/summary>|$)/i.exec(answer)?.[1];
  const text = (inside ?? answer.replace(/<analysis>[\s\S]*?(<\/analysis>|$)/i, "")).trim();
  return text === "" ? undefined : text;
}

/** The message that opens the compacted conversation (hidden: it is not the user's own words). */
export function continuationMessage(
  summary: string,
  o: { transcriptPath?: string | undefined; toolsUsed: readonly string[]; kept: number },
): Message {
  const tools = o.toolsUsed.length === 0 ? [] : [
    "<system-reminder>",
    `<tools-used-before-summary>${o.toolsUsed.join(", ")}</tools-used-before-summary>`,
    "</system-reminder>",
  ];
  const text = [
    CONTINUATION_OPENING,
    "",
    ...tools,
    "Summary:",
    summary,
    "",
    ...(o.transcriptPath === undefined ? [] : [
      `The whole conversation before this summary is kept in the transcript ${o.transcriptPath} (JSON lines): read it if you need an exact detail the summary leaves out.`,
    ]),
    "Continue from where the work stopped without asking the user anything further: do not acknowledge or recap the summary, just take up the last task.",
    ...(o.kept === 0 ? [] : [
      "",
      "The messages after this summary are the most recent ones from before it, kept word for word; the summary was written without them, so something it calls pending may already be done there.",
    ]),
  ].join("\n");
  return { role: "user", content: [{ type: "text", text }], hidden: true };
}

/** `/compact [instructions]` as a prompt (print mode, stream-json input): its instructions; undefined for any other prompt. */
export function compactCommand(prompt: string): { instructions?: string } | undefined {
  const m = /^\/compact(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (m === null) return undefined;
  const instructions = (m[1] ?? "").trim();
  return instructions === "" ? {} : { instructions };
}

/** Names of the tools called in `messages`, in first-use order. */
export function toolsUsed(messages: readonly Message[]): string[] {
  const names: string[] = [];
  for (const m of messages) {
    for (const b of m.content) if (b.type === "tool_call" && !names.includes(b.name)) names.push(b.name);
  }
  return names;
}
