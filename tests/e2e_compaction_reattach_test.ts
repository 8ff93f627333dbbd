// Re-attaching the files read last after a compaction (docs/reference/limits.md, "Compaction"), against
// the fake server of tests/support/reattach_cases.ts: seven Reads, `/compact` (`-p --continue`), a new
// prompt. The first request after the compaction carries the five files read last, most recent first,
// as Claude Code 2.1.332's does (tests/fixtures/claude/compaction/reattach.json, re-record with
// scripts/record_claude_reattach.ts), read again at that moment; the boundary in the transcript holds
// them, so they are durable.

import assert from "node:assert/strict";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { REATTACH_RUNS, reattachFiles, reattachHandler, reattachRecord } from "./support/reattach_cases.ts";
import { bladeSandbox, transcriptEvents, transcriptPath } from "./support/blade.ts";

const FIXTURE = decodeURIComponent(
  new URL("./fixtures/claude/compaction/reattach.json", import.meta.url).pathname,
);

Deno.test("compaction re-attaches the five files read last, as Claude Code does, read again at the compaction", async () => {
  await using sandbox = await bladeSandbox();
  for (const [file, text] of Object.entries(reattachFiles())) await sandbox.write(file, text);
  await using server = startFakeAnthropicServer({ handler: reattachHandler(sandbox.workspace) });
  const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key" };
  let sessionId = "";
  for (const [i, run] of REATTACH_RUNS.entries()) {
    // f7.txt changes after it was read: the attached text is the file as it is at the compaction.
    if (i === 1) await sandbox.write("f7.txt", "content of f7.txt, changed\n");
    const out = await sandbox.run([...run, "--output-format", "json"], { env });
    assert.equal(out.code, 0, out.stderr);
    sessionId = JSON.parse(out.stdout).session_id;
  }
  const theirs = JSON.parse(await Deno.readTextFile(FIXTURE)) as ReturnType<typeof reattachRecord>;
  const last = server.requests.filter((r) => r.path === "/v1/messages").at(-1)!.body;
  const ours = reattachRecord(last, sandbox.workspace);
  assert.deepEqual(ours.files, theirs.files, "the five read last, most recent first");
  assert.equal(ours.call, theirs.call);
  assert.equal(
    ours.result,
    "<system-reminder>\nResult of calling the Read tool:\n1\tcontent of f7.txt, changed\n2\t\n</system-reminder>",
    "the file as Blade's Read gives it now, numbered as Claude Code's Read numbers it",
  );
  assert.ok(
    theirs.result!.startsWith("<system-reminder>\nResult of calling the Read tool:\n1\tcontent of f7.txt\n"),
  );
  // Durable: the boundary holds them.
  const events = await transcriptEvents(transcriptPath(sandbox, sessionId));
  const boundary = events.find((e) => e.type === "compact_boundary");
  assert.ok(JSON.stringify(boundary).includes("Called the Read tool with the following input"));
});
