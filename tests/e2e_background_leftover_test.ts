// End-to-end: what an earlier run left behind in a session's background work (docs/reference/background.md).
// A completion notice a run never delivered (its child was cancelled by --background-wait) joins the
// first turn of the next `--resume`, so the printed result answers the new prompt, not the old notice;
// Ctrl-C while print mode waits for a child reports the interruption, not an expired --background-wait.

import assert from "node:assert/strict";
import {
  bladeSandbox,
  parseJsonResult,
  readSidecars,
  runScripted,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";
import { eventually } from "../lib/testing/background_harness.ts";

const bgTask = {
  name: "Task",
  input: {
    subagent_type: "Explore",
    description: "Slow search",
    prompt: "SLOW: take your time.",
    run_in_background: true,
  },
};

Deno.test("e2e: a notice an earlier run left undelivered joins the next --resume's turn, never its own", async () => {
  await using sandbox = await bladeSandbox();
  const script = {
    agents: {
      main: [{
        turns: [
          { tool_calls: [bgTask] },
          { text: "Waiting for it." },
          { text: "ANSWER TO THE NEW PROMPT" },
          { text: "A TURN ON THE OLD NOTICE" },
        ],
      }],
      Explore: [{ turns: [{ text: "finally done", delay_ms: 5000 }] }],
    },
  };
  const first = await runScripted(sandbox, script, { flags: ["--background-wait", "1"] });
  assert.equal(first.code, 1, first.stderr);
  const sessionId = String(parseJsonResult(first).session_id);
  const [child] = await readSidecars(sandbox.storage);
  assert.equal(child?.status, "cancelled");

  const second = await runScripted(sandbox, script, {
    prompt: "Now a new question",
    flags: ["--resume", sessionId],
  });
  assert.equal(second.code, 0, second.stderr);
  const result = parseJsonResult(second);
  assert.equal(result.result, "ANSWER TO THE NEW PROMPT");
  assert.equal(result.is_error, false);
  // The old notice was delivered once, in the new prompt's turn, and acknowledged there.
  const events = await transcriptEvents(transcriptPath(sandbox, sessionId));
  const inboxId = `background-subagent-completion:${child!.id}`;
  const delivered = events.filter((e) => e.type === "message_created" && e.data.inboxId === inboxId);
  assert.equal(delivered.length, 1);
  const acked = events.flatMap((e) => (e.type === "inbox_acknowledged" ? e.data.inboxIds : []));
  assert.deepEqual(acked, [inboxId]);
  const lastStart = events.findLastIndex((e) => e.type === "turn_started");
  assert.ok(events.indexOf(delivered[0]!) > lastStart, "delivered in the resumed run's only turn");
});

Deno.test("e2e: Ctrl-C while print mode waits for a background child reports the interruption", async () => {
  await using sandbox = await bladeSandbox();
  const path = `${sandbox.root}/script.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      agents: {
        main: [{ turns: [{ tool_calls: [bgTask] }, { text: "Waiting for it." }] }],
        Explore: [{ turns: [{ text: "finally done", delay_ms: 60_000 }] }],
      },
    }),
  );
  const interrupt = new AbortController();
  const run = await sandbox.spawn(
    ["-p", "Delegate the work", "--provider", "scripted", "--script", path, "--output-format", "json"],
    { signal: interrupt.signal },
  );
  // Interrupt only once the parent's turn has ended and it waits for the running child.
  await eventually("the parent waiting for its running child", async () => {
    const [child] = await readSidecars(sandbox.storage);
    if (child?.status !== "running") return false;
    const dir = transcriptPath(sandbox, "x").replace(/\/x\.jsonl$/, "");
    const entries = await Array.fromAsync(Deno.readDir(dir)).catch(() => []);
    for (const entry of entries) {
      if (!entry.name.startsWith("session-") || !entry.name.endsWith(".jsonl")) continue;
      const text = await Deno.readTextFile(`${dir}/${entry.name}`);
      if (text.includes('"turn_completed"')) return true;
    }
    return false;
  }, { timeoutMs: 20_000 });
  interrupt.abort();
  const done = await run.result;
  assert.equal(done.code, 130, done.stderr);
  const result = JSON.parse(done.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
  assert.equal(result.is_error, true);
  const [child] = await readSidecars(sandbox.storage);
  assert.equal(child?.status, "cancelled");
  const error = result.error as { code: string; message: string };
  assert.equal(error.code, "cancelled");
  assert.match(error.message, new RegExp(`Interrupted.*${child!.id}`));
  assert.doesNotMatch(done.stdout + done.stderr, /background-wait/);
});
