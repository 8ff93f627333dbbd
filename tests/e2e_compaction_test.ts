// Compaction end to end (docs/reference/limits.md, "Compaction"), against the fake server of
// tests/support/claude_compaction_cases.ts: reactive ("prompt is too long") and automatic (near a
// 42,000-token window, CLAUDE_CODE_AUTO_COMPACT_WINDOW) compaction in the session and in a Worker child,
// compared with Claude Code 2.1.332's (tests/fixtures/claude/compaction/, re-record with
// scripts/record_claude_compaction.ts); `/compact` in `-p` and in stream-json input; the transcript's
// boundary and a continued session starting from it; DISABLE_COMPACT.

import assert from "node:assert/strict";
import { type FakeAnthropicServer, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import { CONTINUATION_OPENING, SUMMARY_SECTIONS } from "../lib/executor/compaction_text.ts";
import {
  type CompactionCase,
  compactionFiles,
  compactionHandler,
  fromCompactionChild,
  isSummaryRequest,
  SUMMARY_MARK,
} from "./support/claude_compaction_cases.ts";
import { compactionRecord, messageText } from "../scripts/record_claude_compaction.ts";
import {
  type BladeSandbox,
  bladeSandbox,
  readSidecars,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";
import { resultsSoFar } from "./support/claude_caching_cases.ts";

const FIXTURES = decodeURIComponent(new URL("./fixtures/claude/compaction/", import.meta.url).pathname);

type Line = Record<string, unknown>;

async function session(
  sandbox: BladeSandbox,
  c: CompactionCase,
  o: { args?: string[]; env?: Record<string, string>; server?: FakeAnthropicServer; stdin?: string } = {},
) {
  for (const [file, text] of Object.entries(compactionFiles(c))) await sandbox.write(file, text);
  const server = o.server ?? startFakeAnthropicServer({ handler: compactionHandler(c, sandbox.workspace) });
  const run = await sandbox.run(
    o.args ?? ["-p", "Read the parts.", "--output-format", "stream-json", "--verbose"],
    {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key", ...o.env },
      ...(o.stdin === undefined ? {} : { stdin: o.stdin }),
    },
  );
  const lines = run.stdout.trim() === ""
    ? []
    : run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Line);
  const bodies = server.requests.filter((r) => r.path === "/v1/messages").map((r) => r.body);
  if (o.server === undefined) await server.close();
  return { run, lines, bodies, result: lines.find((l) => l.type === "result") };
}

/** Where the sections of a summary request's instructions are, in order (-1: missing). */
function sectionsIn(text: string): number[] {
  let at = 0;
  return SUMMARY_SECTIONS.map((name) => {
    const i = text.indexOf(name, at);
    if (i >= 0) at = i;
    return i;
  });
}

function sessionIdOf(lines: Line[]): string {
  return String(lines.find((l) => l.type === "result")?.session_id);
}

for (const name of ["main", "child"] as const) {
  Deno.test(`compaction golden ${name}: "prompt is too long" is met as Claude Code meets it, and the run succeeds`, async () => {
    await using sandbox = await bladeSandbox();
    const c: CompactionCase = { trigger: "too long", parts: 5, ...(name === "child" ? { child: true } : {}) };
    const { run, lines, bodies, result } = await session(sandbox, c);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(result?.subtype, "success");
    const theirs = JSON.parse(await Deno.readTextFile(`${FIXTURES}${name}.json`)) as ReturnType<
      typeof compactionRecord
    >;
    const reading = name === "child" ? bodies.filter(fromCompactionChild) : bodies;
    const ours = compactionRecord(reading, lines, (t) => t);
    // The summary request: the session's own system prompt and tools (the cached prefix), the
    // conversation before the kept messages, then the instructions — text only, <analysis> then
    // <summary> in Claude Code's nine sections, in order.
    for (const side of [theirs, ours]) {
      assert.equal(side.summaryRequest.sameSystem, true);
      assert.equal(side.summaryRequest.sameTools, true);
      assert.match(side.summaryRequest.instructions, /<analysis>[\s\S]*<summary>/);
      assert.ok(sectionsIn(side.summaryRequest.instructions).every((i) => i >= 0), "the nine sections");
      assert.match(
        side.summaryRequest.shape.filter((s) => !s.startsWith("system")).at(-1)!,
        /^user:tool_result,text/,
      );
      // The continued conversation opens with Claude Code's sentence, the summary, the transcript's
      // path and the note on the messages kept word for word, which follow it.
      assert.ok(side.continued.opening.startsWith(CONTINUATION_OPENING), side.continued.opening);
      assert.match(side.continued.opening, new RegExp(`Summary:\\n${SUMMARY_MARK}: read \\d parts`));
      assert.match(side.continued.opening, /<tools-used-before-summary>Read<\/tools-used-before-summary>/);
      assert.match(side.continued.opening, /\.jsonl/);
      assert.match(side.continued.opening, /verbatim|word for word/);
      assert.deepEqual(side.continued.shape.filter((s) => !s.startsWith("system")).slice(0, 2), [
        "user:text",
        "assistant:text,tool_use",
      ]);
    }
    assert.equal(ours.boundary?.trigger, theirs.boundary?.trigger ?? "auto");
    assert.equal(ours.boundary?.hasParent, name === "child", "a child's boundary line carries its Task call");
    const expected = name === "child" ? "The subagent reported." : "Read all 5 parts.";
    assert.equal(result?.result, expected);
    if (name === "child") {
      const last = bodies.at(-1)!;
      assert.match(
        JSON.stringify(last.messages.at(-1)),
        /Read all 5 parts\./,
        "the child's report reached its parent",
      );
      // Its record keeps the compacted conversation: resuming it starts from the summary.
      const [record] = await readSidecars(sandbox.storage);
      const first = record!.messages[0]!.content[0] as { text?: string };
      assert.ok(
        first.text?.startsWith(CONTINUATION_OPENING),
        "the record's conversation starts from the summary",
      );
      const childEvents = await transcriptEvents(transcriptPath(sandbox, record!.id));
      assert.equal(childEvents.filter((e) => e.type === "compact_boundary").length, 1);
    }
  });
}

Deno.test("compaction: automatic near the window (session and Worker child), the boundary durable, a continued session starts from it", async () => {
  // Threshold: 42,000 − 20,000 (the answer's room, capped) − 13,000 = 9,000 tokens.
  const window = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "42000" };
  for (const child of [false, true]) {
    await using sandbox = await bladeSandbox();
    const c: CompactionCase = { trigger: "full", parts: 5, ...(child ? { child: true } : {}) };
    const { run, lines, bodies } = await session(sandbox, c, { env: window });
    assert.equal(run.code, 0, run.stderr);
    const reading = child ? bodies.filter(fromCompactionChild) : bodies;
    const summary = reading.findIndex(isSummaryRequest);
    // Compacted before the request that would have followed two results reported at 9,010 tokens.
    assert.equal(resultsSoFar(reading[summary - 1]!), 2);
    assert.ok(messageText(reading[summary + 1]!.messages[0]).startsWith(CONTINUATION_OPENING));
    assert.equal(lines.filter((l) => l.subtype === "compact_boundary").length, 1);
    if (child) continue;
    // The transcript holds one boundary; `--continue` rebuilds the conversation from it.
    const id = sessionIdOf(lines);
    const events = await transcriptEvents(transcriptPath(sandbox, id));
    const boundaries = events.filter((e) => e.type === "compact_boundary");
    assert.equal(boundaries.length, 1);
    await using server = startFakeAnthropicServer({ handler: compactionHandler(c, sandbox.workspace) });
    const next = await session(sandbox, c, {
      server,
      args: ["-p", "--continue", "What did you read?", "--output-format", "json"],
      // A window the re-attached parts (limits.md "Compaction") do not fill again at once: with 42,000
      // the rebuilt conversation, estimated whole, is past the threshold and compacts first.
      env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "200000" },
    });
    assert.equal(next.run.code, 0, next.run.stderr);
    const first = next.bodies[0]!;
    assert.ok(messageText(first.messages[0]).startsWith(CONTINUATION_OPENING), "starts from the summary");
    assert.doesNotMatch(JSON.stringify(first.messages), /Read the parts\./, "the summarised prompt is gone");
    assert.match(messageText(first.messages.at(-1)), /What did you read\?/);
  }
});

Deno.test("compaction: CLAUDE_AUTOCOMPACT_PCT_OVERRIDE lowers the threshold; DISABLE_AUTO_COMPACT and DISABLE_COMPACT switch it off", async () => {
  // A 200,000-token window: 9,010 tokens is far below its threshold (167,000) but above 4% of 180,000.
  const big = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "200000" };
  const runs: [Record<string, string>, CompactionCase, number, number][] = [
    [{ ...big, CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "4" }, { trigger: "full", parts: 4 }, 0, 1],
    [big, { trigger: "full", parts: 4 }, 0, 0],
    [
      { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "42000", DISABLE_AUTO_COMPACT: "1" },
      { trigger: "full", parts: 4 },
      0,
      0,
    ],
    // "prompt is too long" is still met with DISABLE_AUTO_COMPACT, not with DISABLE_COMPACT.
    [{ DISABLE_AUTO_COMPACT: "1" }, { trigger: "too long", parts: 4 }, 0, 1],
    [{ DISABLE_COMPACT: "1" }, { trigger: "too long", parts: 4 }, 1, 0],
  ];
  for (const [env, c, code, boundaries] of runs) {
    await using sandbox = await bladeSandbox();
    const { run, lines } = await session(sandbox, c, { env });
    assert.equal(run.code, code, `${JSON.stringify(env)}: ${run.stderr}`);
    assert.equal(
      lines.filter((l) => l.subtype === "compact_boundary").length,
      boundaries,
      JSON.stringify(env),
    );
    if (code === 1) assert.match(String(lines.at(-1)?.result), /prompt is too long/);
  }
});

Deno.test("compaction: /compact with instructions in -p and in stream-json input", async () => {
  await using sandbox = await bladeSandbox();
  const c: CompactionCase = { trigger: "full", parts: 3 };
  const first = await session(sandbox, c);
  assert.equal(first.run.code, 0, first.run.stderr);
  await using server = startFakeAnthropicServer({ handler: compactionHandler(c, sandbox.workspace) });
  const manual = await session(sandbox, c, {
    server,
    args: ["-p", "--continue", "/compact focus on the parts", "--output-format", "stream-json", "--verbose"],
  });
  assert.equal(manual.run.code, 0, manual.run.stderr);
  // As Claude Code: no answer, no turn; the boundary's trigger is manual.
  assert.deepEqual([manual.result?.subtype, manual.result?.result, manual.result?.num_turns], [
    "success",
    "",
    0,
  ]);
  const boundary = manual.lines.find((l) => l.subtype === "compact_boundary");
  assert.equal((boundary?.compact_metadata as { trigger: string }).trigger, "manual");
  assert.equal(manual.bodies.length, 1);
  assert.ok(isSummaryRequest(manual.bodies[0]!));
  assert.match(
    messageText(manual.bodies[0]!.messages.at(-1)),
    /Additional Instructions:\nfocus on the parts/,
  );
  // The last answer is kept word for word after the summary.
  const after = await session(sandbox, c, {
    server,
    args: ["-p", "--continue", "And now?", "--output-format", "json"],
  });
  const continued = after.bodies.at(-1)!;
  assert.ok(messageText(continued.messages[0]).startsWith(CONTINUATION_OPENING));
  assert.deepEqual(continued.messages.map((m) => m.role), ["user", "assistant", "user"]);
  assert.match(messageText(continued.messages[1]), /Read all 3 parts\./);

  // stream-json input: a prompt, /compact, a question — three turns of one session.
  await using box = await bladeSandbox();
  await using streamed = startFakeAnthropicServer({ handler: compactionHandler(c, box.workspace) });
  const stdin = ["Read the parts.", "/compact", "What did you read?"]
    .map((content) => JSON.stringify({ type: "user", message: { role: "user", content } })).join("\n") + "\n";
  const three = await session(box, c, {
    server: streamed,
    args: ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
    stdin,
  });
  assert.equal(three.run.code, 0, three.run.stderr);
  assert.equal(three.lines.filter((l) => l.type === "result").length, 3);
  assert.equal(three.lines.filter((l) => l.subtype === "compact_boundary").length, 1);
  const last: AnthropicRequestBody = three.bodies.at(-1)!;
  assert.ok(messageText(last.messages[0]).startsWith(CONTINUATION_OPENING));
  assert.match(messageText(last.messages.at(-1)), /What did you read\?/);
});

Deno.test("compaction: /compact with nothing to summarise fails as compaction_failed and changes nothing", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({
    handler: compactionHandler({ trigger: "full", parts: 0 }, ""),
  });
  const run = await sandbox.run(["-p", "/compact", "--output-format", "json"], {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key" },
  });
  assert.equal(run.code, 1);
  const r = JSON.parse(run.stdout);
  assert.equal(r.error.code, "compaction_failed");
  assert.match(r.result, /nothing before the latest messages to summarise/);
  assert.equal(server.requests.length, 0);
});

Deno.test("compaction: an automatic compaction fires PreCompact (trigger auto, its matcher only): its stdout joins the instructions; its exit 2 blocks it and the run goes on", async () => {
  const window = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "42000" };
  for (const block of [false, true]) {
    await using sandbox = await bladeSandbox();
    const log = `${sandbox.root}/precompact.log`;
    const hook = (name: string, body: string) =>
      sandbox.write(`${name}.sh`, `input=$(cat)\nprintf '%s\\n' "$input" >> '${log}'\n${body}\n`);
    const auto = await hook("auto", block ? `echo "Not now" >&2; exit 2` : "echo 'keep the part names'");
    const manual = await hook("manual", "echo 'never asked'");
    await sandbox.write(
      ".claude/settings.json",
      JSON.stringify({
        hooks: {
          PreCompact: [
            { matcher: "auto", hooks: [{ type: "command", command: `bash ${auto}` }] },
            { matcher: "manual", hooks: [{ type: "command", command: `bash ${manual}` }] },
          ],
        },
      }),
    );
    const c: CompactionCase = { trigger: "full", parts: 5 };
    const { run, lines, bodies } = await session(sandbox, c, {
      env: window,
      args: ["-p", "Read the parts.", "--output-format", "stream-json", "--verbose", "--trust-workspace"],
    });
    assert.equal(run.code, 0, run.stderr);
    const inputs = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
    const asked = inputs.map((i) => [i.hook_event_name, i.trigger, i.custom_instructions]);
    // Blocked, the next request is still over the threshold: the hook is asked again before it.
    assert.deepEqual(asked.slice(0, 1), [["PreCompact", "auto", ""]], `block: ${block}`);
    assert.deepEqual(new Set(asked.map((a) => JSON.stringify(a))).size, 1);
    if (!block) assert.equal(asked.length, 1);
    const summaries = bodies.filter(isSummaryRequest);
    assert.equal(lines.filter((l) => l.subtype === "compact_boundary").length, block ? 0 : 1);
    assert.equal(summaries.length, block ? 0 : 1);
    if (!block) {
      assert.match(
        messageText(summaries[0]!.messages.at(-1)),
        /Additional Instructions:\nkeep the part names/,
      );
    }
  }
});
