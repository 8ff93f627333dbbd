// Fault suite, SIGKILL inside a compaction (docs/reference/limits.md, "Compaction"): a session that meets
// "prompt is too long" (tests/support/claude_compaction_cases.ts) is SIGKILLed — its whole process group
// — while its summary request is in flight, just before its compaction boundary is appended, with the
// boundary's line torn after a few bytes, and just after the boundary is durable (the kill points count
// the session transcript's appends: tests/support/faulty_main.ts). After each kill the transcript holds
// the old conversation or the new one, never a mix, and `--continue` goes on from what it holds.

import assert from "node:assert/strict";
import { startFakeAnthropicServer } from "../../lib/testing/fake_anthropic_server.ts";
import { parseTranscript } from "../../lib/session/transcript.ts";
import { rebuildHistory } from "../../lib/session/history.ts";
import { textOf } from "../../lib/protocol/messages.ts";
import { CONTINUATION_OPENING } from "../../lib/executor/compaction_text.ts";
import {
  type CompactionCase,
  compactionFiles,
  compactionHandler,
  isSummaryRequest,
} from "../support/claude_compaction_cases.ts";
import { type BladeSandbox, bladeSandbox, SOURCES_ONLY } from "../support/blade.ts";
import { killGroup, projectDir } from "../support/crash.ts";

const FAULTY_MAIN = decodeURIComponent(new URL("../support/faulty_main.ts", import.meta.url).pathname);
const CASE: CompactionCase = { trigger: "too long", parts: 5 };
const PROMPT = "Read the parts.";
/** The session transcript's appends: opening, then an answer and its results per part (three), the boundary. */
const BOUNDARY_WRITE = 8;

interface Kill {
  name: string;
  write?: number;
  tornBytes?: number;
  /** Kill from outside when the summary request arrives (no write is its point). */
  atSummaryRequest?: true;
  /** What the transcript must hold after the kill. */
  expect: "old" | "new";
}

const KILLS: Kill[] = [
  { name: "the summary request in flight", atSummaryRequest: true, expect: "old" },
  { name: "before the boundary is appended", write: BOUNDARY_WRITE, expect: "old" },
  { name: "the boundary's line torn", write: BOUNDARY_WRITE, tornBytes: 40, expect: "old" },
  { name: "after the boundary is durable", write: BOUNDARY_WRITE + 1, expect: "new" },
];

async function sessionFile(sandbox: BladeSandbox): Promise<string> {
  for await (const e of Deno.readDir(projectDir(sandbox))) {
    if (e.name.startsWith("session-") && e.name.endsWith(".jsonl")) return `${projectDir(sandbox)}/${e.name}`;
  }
  throw new Error("no session transcript");
}

/** What the transcript's conversation is now: the old one (from the prompt) or the compacted one. */
async function heldConversation(path: string) {
  const parsed = parseTranscript(await Deno.readTextFile(path));
  const history = rebuildHistory(parsed.events);
  const texts = history.messages.map(textOf);
  const old = texts[0] === PROMPT && !texts.some((t) => t.startsWith(CONTINUATION_OPENING));
  const compacted = texts[0]!.startsWith(CONTINUATION_OPENING) && !texts.includes(PROMPT);
  return {
    state: old ? "old" : compacted ? "new" : "mixed",
    boundaries: parsed.events.filter((e) => e.type === "compact_boundary").length,
  };
}

for (const kill of KILLS) {
  Deno.test(
    `compaction kill: ${kill.name} leaves the ${kill.expect} conversation, never a mix, and it continues`,
    // Kill points are placed by tests/support/faulty_main.ts, which runs the sources.
    SOURCES_ONLY,
    async () => {
      await using sandbox = await bladeSandbox();
      for (const [file, text] of Object.entries(compactionFiles(CASE))) await sandbox.write(file, text);
      const handler = compactionHandler(CASE, sandbox.workspace);
      let summaryAsked: (() => void) | undefined;
      const summary = new Promise<void>((resolve) => summaryAsked = resolve);
      await using server = startFakeAnthropicServer({
        handler: (req, i) => {
          // The first summary request hangs until the kill (the restart's is answered).
          if (kill.atSummaryRequest === true && isSummaryRequest(req.body) && summaryAsked !== undefined) {
            summaryAsked();
            summaryAsked = undefined;
            return { kind: "hang" };
          }
          return handler(req, i);
        },
      });
      const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key" };
      const blade = await sandbox.spawn(["-p", PROMPT, "--output-format", "json"], {
        entry: FAULTY_MAIN,
        processGroup: true,
        env: {
          ...env,
          BLADE_CHILD_SANDBOX: "none",
          BLADE_KILL_PATH: "/projects/[^/]+/session-[^/]+\\.jsonl$",
          BLADE_KILL_AT_WRITE: String(kill.write ?? 0),
          BLADE_KILL_TORN_BYTES: String(kill.tornBytes ?? 0),
        },
      });
      if (kill.atSummaryRequest === true) {
        await summary;
        await killGroup(blade);
      }
      const ended = await blade.result;
      assert.equal(ended.code, 128 + 9, `killed by SIGKILL, not ended by itself: ${ended.stderr}`);
      const path = await sessionFile(sandbox);
      const text = await Deno.readTextFile(path);
      assert.equal(
        !text.endsWith("\n"),
        (kill.tornBytes ?? 0) > 0,
        "a torn tail only where the kill tore one",
      );
      const held = await heldConversation(path);
      assert.equal(held.state, kill.expect);
      assert.equal(held.boundaries, kill.expect === "new" ? 1 : 0);

      // The session goes on from what the transcript holds (the old one meets "too long" again and compacts).
      const next = await sandbox.run(["-p", "--continue", "Go on.", "--output-format", "json"], { env });
      assert.equal(next.code, 0, next.stderr);
      const after = await heldConversation(path);
      assert.equal(after.state, "new");
      assert.equal(after.boundaries, 1);
    },
  );
}
