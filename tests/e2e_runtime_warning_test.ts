// End-to-end: a background child's completion notice that cannot be queued (its parent's inbox is
// already full) is reported on stderr (text, json) or as a system line (stream-json), and the run
// fails instead of reporting success without the child's work.

import assert from "node:assert/strict";
import { type BladeSandbox, bladeSandbox, parseJsonResult, transcriptPath } from "./support/blade.ts";
import { Inbox, INBOX_LIMITS } from "../lib/session/inbox.ts";
import { realFs } from "../lib/sys/fs.ts";
import { realClock } from "../lib/sys/clock.ts";

const SESSION = "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f";

async function blockedInbox(sandbox: BladeSandbox): Promise<string[]> {
  const script = {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [{
              name: "Task",
              input: {
                subagent_type: "Explore",
                description: "Look around",
                prompt: "Look around the folder and report.",
                run_in_background: true,
              },
            }],
          },
          { text: "Started it." },
        ],
        repeat_last: true,
      }],
      Explore: [{ turns: [{ text: "EXPLORE-RESULT: three files." }] }],
    },
  };
  const scriptPath = `${sandbox.root}/script.json`;
  await Deno.writeTextFile(scriptPath, JSON.stringify(script));
  // The inbox lives beside the transcript; full of notices for runs this session never started.
  const path = transcriptPath(sandbox, SESSION).replace(/\.jsonl$/, ".inbox.json");
  const inbox = new Inbox({ fs: realFs(), clock: realClock(), path });
  for (let i = 0; i < INBOX_LIMITS.completions; i++) {
    await inbox.enqueue({
      inboxId: `old-${i}`,
      kind: "completion",
      text: "old",
      createdAt: 0,
      agentId: `agent-old${i}`,
    });
  }
  return ["-p", "Delegate", "--provider", "scripted", "--script", scriptPath, "--session-id", SESSION];
}

Deno.test("e2e: a dropped completion notice is a warning on stderr and the run fails (text, json)", async () => {
  await using sandbox = await bladeSandbox();
  const args = await blockedInbox(sandbox);
  const text = await sandbox.run(args);
  assert.equal(text.code, 1, text.stderr);
  assert.match(
    text.stderr,
    /blade: warning: The completion notice of agent-\S+ could not be written to its parent's inbox: The inbox already holds 100/,
  );
  assert.doesNotMatch(text.stderr, /\n\s+at /, "no stack trace for an environment problem");

  await using again = await bladeSandbox();
  const json = await again.run([...(await blockedInbox(again)), "--output-format", "json"]);
  assert.equal(json.code, 1, json.stderr);
  const result = parseJsonResult(json);
  assert.equal(result.is_error, true);
  assert.match(json.stderr, /blade: warning: The completion notice/);
});

Deno.test("e2e: stream-json carries the warning as a system line", async () => {
  await using sandbox = await bladeSandbox();
  const run = await sandbox.run([
    ...(await blockedInbox(sandbox)),
    "--output-format",
    "stream-json",
    "--verbose",
  ]);
  assert.equal(run.code, 1, run.stderr);
  const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const warning = lines.find((l) => l.type === "system" && l.subtype === "runtime_warning");
  assert.ok(warning !== undefined, run.stdout);
  assert.equal(warning.code, "notice_dropped");
  assert.equal(warning.work_lost, true);
  assert.match(warning.task_id, /^agent-/);
  assert.equal(lines.at(-1).is_error, true);
});
