// End-to-end: background subagents (docs/reference/task-tool.md, docs/reference/background.md) with `blade` as a real subprocess. Two background
// children against the fake Anthropic server, each notice delivered exactly once; `--background-wait`
// expiry; `blade tasks cancel` from a second process; `blade tasks wait` exit codes and `tasks clean`.

import assert from "node:assert/strict";
import { type AnthropicRequestBody, wireBlocks } from "../lib/provider/anthropic_wire.ts";
import type { RecordedRequest } from "../lib/testing/fake_model_server.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import type { SidecarRecord } from "../lib/store/schema.ts";
import { FileSidecarStore } from "../lib/store/file_store.ts";
import { realClock } from "../lib/sys/clock.ts";
import { realFs } from "../lib/sys/fs.ts";
import {
  type BladeResult,
  type BladeSandbox,
  bladeSandbox,
  parseJsonResult,
  readSidecars,
  sidecarPath,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";
import { eventually } from "../lib/testing/background_harness.ts";

const TAG = "<background-subagent-completion>";

async function runScripted(
  sandbox: BladeSandbox,
  script: unknown,
  flags: string[] = [],
): Promise<BladeResult> {
  return await sandbox.run(await scriptedArgs(sandbox, script, flags));
}

async function scriptedArgs(sandbox: BladeSandbox, script: unknown, flags: string[] = []): Promise<string[]> {
  const path = `${sandbox.root}/script.json`;
  await Deno.writeTextFile(path, JSON.stringify(script, null, 2));
  return [
    "-p",
    "Delegate the work",
    "--provider",
    "scripted",
    "--script",
    path,
    "--output-format",
    "json",
    ...flags,
  ];
}

function bgTask(prompt: string, description = "Background work") {
  return {
    name: "Task",
    input: { subagent_type: "Explore", description, prompt, run_in_background: true },
  };
}

async function readSidecar(sandbox: BladeSandbox, id: string): Promise<SidecarRecord> {
  return JSON.parse(await Deno.readTextFile(sidecarPath(sandbox.storage, id)));
}

function textsOf(body: AnthropicRequestBody, role: "user" | "assistant"): string[] {
  return body.messages.filter((m) => m.role === role).flatMap((m) =>
    wireBlocks(m).flatMap((b) => (b.type === "text" ? [b.text] : []))
  );
}

function firstUserText(request: RecordedRequest<AnthropicRequestBody>): string {
  return textsOf(request.body, "user")[0] ?? "";
}

Deno.test("e2e: two background children against the Anthropic API; each notice reaches the parent once", async () => {
  await using sandbox = await bladeSandbox();
  const parentPrompt = "Run both audits in the background and report.";
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      const first = firstUserText(request);
      if (first.startsWith("ALPHA")) return fakeTurn({ text: "ALPHA-RESULT: the API is fine.", delayMs: 50 });
      if (first.startsWith("BETA")) return fakeTurn({ text: "BETA-RESULT: one unused flag.", delayMs: 400 });
      if (first !== parentPrompt) return fakeTurn({ text: `unexpected request: ${first}` });
      const body = request.body;
      if (!body.messages.some((m) => m.role === "assistant")) {
        return fakeTurn({
          text: "Starting both audits.",
          toolCalls: [
            bgTask("ALPHA audit: check the API module for errors.", "Audit the API"),
            bgTask("BETA audit: check the CLI module for errors.", "Audit the CLI"),
          ],
        });
      }
      const notices = textsOf(body, "user").filter((t) => t.includes(TAG)).join("\n");
      const found = ["ALPHA-RESULT", "BETA-RESULT"].filter((r) => notices.includes(r));
      if (found.length === 2) return fakeTurn({ text: `Final: ${found.join(" and ")} are both in.` });
      return fakeTurn({ text: found.length === 0 ? "Waiting for the audits." : `Got ${found[0]} so far.` });
    },
  });
  const run = await sandbox.run(["-p", parentPrompt, "--provider", "anthropic", "--output-format", "json"], {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" },
  });
  assert.equal(run.code, 0, run.stderr);
  const result = parseJsonResult(run);
  assert.equal(result.is_error, false);
  assert.equal(result.result, "Final: ALPHA-RESULT and BETA-RESULT are both in.");

  const parentRequests = server.requests.filter((r) => firstUserText(r) === parentPrompt);
  const last = parentRequests.at(-1)!;
  const notices = textsOf(last.body, "user").filter((t) => t.includes(TAG));
  assert.equal(occurrences(JSON.stringify(last.body.messages), TAG), 2, "two notices, each exactly once");
  assert.equal(notices.length, 2);

  const listed = await sandbox.run(["tasks", "list", "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  const tasks = (JSON.parse(listed.stdout) as Record<string, unknown>[])
    .sort((a, b) => String(a.description).localeCompare(String(b.description)));
  assert.deepEqual(
    tasks.map((t) => [t.description, t.status, t.background, (t.result as { success: boolean }).success]),
    [["Audit the API", "completed", true, true], ["Audit the CLI", "completed", true, true]],
  );
  assert.equal(tasks.some((t) => "prompt" in t || "messages" in t || "processId" in t), false);
  for (const t of tasks) {
    assert.equal(notices.filter((n) => n.includes(`task_id "${t.id}"`)).length, 1, `notice of ${t.id}`);
  }

  const events = await transcriptEvents(
    transcriptPath(sandbox, String(result.session_id)),
  );
  const delivered = events.flatMap((e) =>
    e.type === "message_created" && e.data.inboxId !== undefined ? [e.data.inboxId] : []
  );
  const acked = events.flatMap((e) => (e.type === "inbox_acknowledged" ? e.data.inboxIds : []));
  const expected = tasks.map((t) => `background-subagent-completion:${t.id}`).sort();
  assert.deepEqual(delivered.sort(), expected);
  assert.deepEqual(acked.sort(), expected);
});

Deno.test("e2e: --background-wait expiry cancels the child and the run fails", async () => {
  await using sandbox = await bladeSandbox();
  const run = await runScripted(sandbox, {
    agents: {
      main: [{ turns: [{ tool_calls: [bgTask("SLOW: take your time.")] }, { text: "Waiting for it." }] }],
      Explore: [{ turns: [{ text: "finally done", delay_ms: 5000 }] }],
    },
  }, ["--background-wait", "1"]);
  assert.equal(run.code, 1, run.stderr);
  const result = parseJsonResult(run);
  assert.equal(result.is_error, true);
  const [child] = await readSidecars(sandbox.storage);
  assert.ok(child !== undefined);
  assert.deepEqual(result.error, {
    code: "background_wait_expired",
    message: `Stopped waiting for background subagents; cancelled: ${child.id}.`,
  });
  assert.equal(child.status, "cancelled");
  assert.equal(child.result.success, false);
});

Deno.test("e2e: blade tasks cancel from a second process stops a running background child", async () => {
  await using sandbox = await bladeSandbox();
  const first = await sandbox.spawn(
    await scriptedArgs(sandbox, {
      agents: {
        main: [{
          turns: [
            { tool_calls: [bgTask("CANCEL-ME: work slowly.")] },
            { text: "Waiting for it." },
            { text: 'The child ended as {{match:"status":"(\\w+)"}}.' },
          ],
        }],
        Explore: [{ turns: [{ text: "too slow", delay_ms: 8000 }] }],
      },
    }),
  );
  let id = "";
  await eventually("a running background child", async () => {
    id = (await readSidecars(sandbox.storage)).find((r) => r.status === "running")?.id ?? "";
    return id !== "";
  }, { timeoutMs: 10_000 });

  const cancel = await sandbox.run(["tasks", "cancel", id]);
  assert.equal(cancel.code, 0, cancel.stderr);
  assert.match(cancel.stdout, new RegExp(`^Cancelled ${id}; its process \\(pid ${first.pid}\\) stops it`));

  const run = await first.result;
  const result = parseJsonResult(run);
  assert.equal(result.result, "The child ended as cancelled.");
  assert.deepEqual(
    (result.subagents as Record<string, unknown>).cancelled,
    1,
  );
  const record = await readSidecar(sandbox, id);
  assert.equal(record.status, "cancelled");
  assert.equal(record.result.error, "Cancelled with blade tasks cancel.");
  // The owning process stopped the child's run; it did not just wait for it to finish.
  const childEvents = await transcriptEvents(transcriptPath(sandbox, id));
  const ending = childEvents.filter((e) => e.type === "turn_completed" || e.type === "turn_aborted");
  assert.deepEqual(ending.map((e) => e.type === "turn_aborted" && e.data.cause), ["cancelled"]);

  const again = await sandbox.run(["tasks", "cancel", id]);
  assert.equal(again.code, 0);
  assert.equal(again.stdout, `${id} is not running (STOPPED); nothing to cancel.\n`);
});

Deno.test("e2e: blade tasks wait exit codes, then tasks clean --older-than 0s", async () => {
  await using sandbox = await bladeSandbox();
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [
              {
                name: "Task",
                input: { subagent_type: "Explore", description: "Good one", prompt: "GOOD: look around." },
              },
              {
                name: "Task",
                input: { subagent_type: "Explore", description: "Bad one", prompt: "BAD: look around." },
              },
            ],
          },
          { text: "Both ended." },
        ],
      }],
      Explore: [
        { match: "GOOD", turns: [{ text: "all good" }] },
        { match: "BAD", turns: [{ error: { kind: "auth", message: "no access" } }] },
      ],
    },
  });
  assert.equal(run.code, 0, run.stderr);
  const [bad, good] = await readSidecars(sandbox.storage);
  assert.equal(good?.status, "completed");
  assert.equal(bad?.status, "failed");

  // A run still in progress (owned by this live test process), written through the real store.
  const { completedAt: _done, ...finished } = good!;
  await new FileSidecarStore({ fs: realFs(), clock: realClock(), storageRoot: sandbox.storage }).create({
    ...finished,
    id: "agent-still-running",
    rootAgentId: "agent-still-running",
    description: "Still running",
    status: "running",
    result: { success: false, message: "" },
    processId: Deno.pid,
  });

  const waits: [string[], number, string][] = [
    [[good!.id], 0, `OK       ${good!.id}\n`],
    [[bad!.id], 1, `FAIL     ${bad!.id}\n`],
    [[good!.id, bad!.id], 1, `OK       ${good!.id}\nFAIL     ${bad!.id}\n`],
    [["agent-still-running", "--timeout", "0"], 1, "RUNNING  agent-still-running\n"],
  ];
  for (const [args, code, stdout] of waits) {
    const r = await sandbox.run(["tasks", "wait", ...args]);
    assert.deepEqual([r.code, r.stdout], [code, stdout], `tasks wait ${args.join(" ")}: ${r.stderr}`);
  }
  // --json: one array, same order as the ids; the exit code still says whether all completed.
  const waitedJson = await sandbox.run(["tasks", "wait", good!.id, bad!.id, "--json"]);
  assert.equal(waitedJson.code, 1, waitedJson.stderr);
  assert.deepEqual(
    (JSON.parse(waitedJson.stdout) as { id: string; status: string }[]).map((r) => [r.id, r.status]),
    [[good!.id, "completed"], [bad!.id, "failed"]],
  );
  const cancelJson = await sandbox.run(["tasks", "cancel", good!.id, "--json"]);
  assert.deepEqual([cancelJson.code, JSON.parse(cancelJson.stdout)], [0, [{
    id: good!.id,
    cancelled: false,
    status: "completed",
  }]], cancelJson.stderr);
  const missing = await sandbox.run(["tasks", "wait", "agent-missing"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Unknown task ID: agent-missing/);

  const clean = await sandbox.run(["tasks", "clean", "--older-than", "0s"]);
  assert.deepEqual([clean.code, clean.stdout], [0, "Removed 2 finished runs older than 0s.\n"], clean.stderr);
  const left = await sandbox.run(["tasks", "list", "--json"]);
  assert.deepEqual((JSON.parse(left.stdout) as { id: string }[]).map((r) => r.id), ["agent-still-running"]);
  const none = await sandbox.run(["tasks", "clean", "--older-than", "0s", "--json"]);
  assert.deepEqual([none.code, JSON.parse(none.stdout)], [0, { removed: 0 }]);
  // Cancelling the run this live test process owns: cancelled, and the owner's pid is named.
  const stop = await sandbox.run(["tasks", "cancel", "agent-still-running", "--json"]);
  assert.deepEqual([stop.code, JSON.parse(stop.stdout)], [0, [{
    id: "agent-still-running",
    cancelled: true,
    status: "cancelled",
    pid: Deno.pid,
  }]], stop.stderr);
});

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}
