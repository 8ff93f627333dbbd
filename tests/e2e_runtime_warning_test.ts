// End-to-end: a background child's completion notice that cannot be queued (its parent's inbox is
// already full) is reported on stderr (text, json) or as a system line (stream-json), and the run
// fails instead of reporting success without the child's work.

import assert from "node:assert/strict";
import { type BladeSandbox, bladeSandbox, parseJsonResult, transcriptPath } from "./support/blade.ts";
import { Inbox, INBOX_LIMITS } from "../lib/session/inbox.ts";
import { realFs } from "../lib/sys/fs.ts";
import { realClock } from "../lib/sys/clock.ts";

const SESSION = "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f";

/** Fills the inbox at `path` with notices of runs its session never started. */
/**
 * An inbox with no room for one more notice: one old entry that fills it to its byte limit. (A full
 * count of 100 notices is back-pressure, not a drop: the child would wait for the parent to take them.)
 */
async function fillInbox(path: string): Promise<void> {
  const inbox = new Inbox({ fs: realFs(), clock: realClock(), path });
  const queued = await inbox.enqueue({
    inboxId: "old-0",
    kind: "completion",
    text: "o".repeat(INBOX_LIMITS.bytes - 300),
    createdAt: 0,
    agentId: "agent-old0",
  });
  if (!queued.accepted) throw new Error(queued.message);
}

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
  await fillInbox(transcriptPath(sandbox, SESSION).replace(/\.jsonl$/, ".inbox.json"));
  return ["-p", "Delegate", "--provider", "scripted", "--script", scriptPath, "--session-id", SESSION];
}

Deno.test("e2e: a dropped completion notice is a warning on stderr and the run fails (text, json)", async () => {
  await using sandbox = await bladeSandbox();
  const args = await blockedInbox(sandbox);
  const text = await sandbox.run(args);
  assert.equal(text.code, 1, text.stderr);
  assert.match(
    text.stderr,
    /blade: warning: The completion notice of agent-\S+ could not be written to its parent's inbox: The inbox would grow to \d+ bytes, over its limit/,
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

/**
 * `blade run` of a child (agent id known through `--agent-id`, as the detached copy of `--background` gets
 * it) whose inbox is full: the grandchild it starts in the background and waits for cannot queue its
 * completion notice, so work was lost and the run must not report success.
 */
async function blockedRun(sandbox: BladeSandbox): Promise<string[]> {
  const childId = "agent-lostworkchild0000001";
  const script = {
    agents: {
      "general-purpose": [{
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
          { tool_calls: [{ name: "TaskOutput", input: { task_id: "{{match:(agent-[A-Za-z0-9_-]{21})}}" } }] },
          { text: "CHILD-DONE" },
        ],
        repeat_last: true,
      }],
      Explore: [{ turns: [{ text: "EXPLORE-RESULT: three files." }] }],
    },
  };
  const scriptPath = `${sandbox.root}/script.json`;
  await Deno.writeTextFile(scriptPath, JSON.stringify(script));
  await fillInbox(transcriptPath(sandbox, childId).replace(/\.jsonl$/, ".inbox.json"));
  return [
    "run",
    "general-purpose",
    "Delegate",
    "--provider",
    "scripted",
    "--script",
    scriptPath,
    `--agent-id=${childId}`,
  ];
}

Deno.test("e2e: blade run whose work was lost prints the warning and exits 1 (text, json)", async () => {
  await using sandbox = await bladeSandbox();
  const args = await blockedRun(sandbox);
  const text = await sandbox.run(args);
  assert.match(text.stderr, /blade: warning: The completion notice of agent-\S+ could not be written/);
  assert.equal(text.code, 1, text.stdout + text.stderr);
  assert.doesNotMatch(text.stderr, /\n\s+at /, "no stack trace for an environment problem");

  await using again = await bladeSandbox();
  const json = await again.run([...(await blockedRun(again)), "--output-format", "json"]);
  assert.equal(json.code, 1, json.stderr);
  const result = parseJsonResult(json);
  assert.equal(result.is_error, true);
  assert.equal(result.subtype, "error_during_execution");
  assert.equal(result.agent_id, "agent-lostworkchild0000001");
  const error = result.error as { code: string; message: string };
  assert.equal(error.code, "notice_dropped");
  assert.match(error.message, /The completion notice of agent-\S+ could not be written/);
});
