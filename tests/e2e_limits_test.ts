// End-to-end: every limit bounds every session (docs/reference/limits.md). A child never makes more
// model requests than its parent has left of `--max-turns`, down the whole tree (its Worker says what it
// has left, capped by its own limit), and a stalled child fails within the stall limit, retries included.

import assert from "node:assert/strict";
import type { TranscriptEvent } from "../lib/protocol/events.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import {
  bladeSandbox,
  parseJsonResult,
  readSidecars,
  runScripted,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

function task(subagentType: string, prompt: string) {
  return { name: "Task", input: { subagent_type: subagentType, description: "Delegate", prompt } };
}

const firstText = (body: AnthropicRequestBody) => JSON.stringify(body.messages[0]?.content ?? "");

const requestsIn = (events: TranscriptEvent[]) =>
  events.filter((e) => e.type === "message_created" && (e.data as { role?: string }).role === "assistant")
    .length;

Deno.test("limits: --max-turns bounds a looping grandchild by what each parent has left", async () => {
  await using sandbox = await bladeSandbox();
  const agents = {
    outer: { description: "Delegates once", prompt: "You delegate." },
    looper: { description: "Never stops on its own", prompt: "You keep searching.", maxTurns: 50 },
  };
  const run = await runScripted(sandbox, {
    agents: {
      main: [{ turns: [{ tool_calls: [task("outer", "Delegate the search.")] }, { text: "All done." }] }],
      outer: [{
        turns: [{ tool_calls: [task("looper", "Search forever.")] }, { text: "The looper stopped." }],
      }],
      looper: [{ repeat_last: true, turns: [{ tool_calls: [{ name: "Glob", input: { pattern: "*" } }] }] }],
    },
  }, { flags: ["--agents", JSON.stringify(agents), "--max-turns", "4"] });
  assert.equal(run.code, 0, run.stderr);
  const result = parseJsonResult(run);
  assert.deepEqual([result.is_error, result.result], [false, "All done."]);

  const records = await readSidecars(sandbox.storage);
  const byType = Object.fromEntries(records.map((r) => [r.subagentType, r]));
  // main made 1 request of 4 when it delegated: outer may make 3; outer had made 1: looper may make 2.
  assert.equal(byType.outer?.configSnapshot.maxTurns, 3);
  assert.equal(byType.looper?.configSnapshot.maxTurns, 2);
  assert.deepEqual([byType.outer?.status, byType.looper?.status], ["completed", "failed"]);
  assert.match(byType.looper?.result.error ?? "", /maximum number of turns \(2\)/);
  const looped = await transcriptEvents(transcriptPath(sandbox, byType.looper!.id));
  assert.equal(requestsIn(looped), 2);
});

Deno.test("limits: a session with no turns left starts no child", async () => {
  await using sandbox = await bladeSandbox();
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [{ tool_calls: [task("general-purpose", "Do the whole job.")] }, { text: "never asked" }],
      }],
      "general-purpose": [{ turns: [{ text: "never asked either" }] }],
    },
  }, { flags: ["--max-turns", "1"] });
  const result = parseJsonResult(run);
  assert.equal(result.subtype, "error_max_turns");
  assert.deepEqual(await readSidecars(sandbox.storage), []);
  const events = await transcriptEvents(transcriptPath(sandbox, String(result.session_id)));
  const refused = events.flatMap((e) =>
    e.type === "part_created" && (e.data as { part: { type: string } }).part.type === "tool_result"
      ? [(e.data as { part: { content: string } }).part.content]
      : []
  );
  assert.equal(refused.length, 1);
  assert.match(refused[0]!, /has used all its turns/);
});

Deno.test("limits: a stalled child in its Worker fails at the stream idle timeout, within the stall limit", async () => {
  await using sandbox = await bladeSandbox();
  const childPrompt = "CHILD: answer this question.";
  let mainRequests = 0;
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      if (firstText(request.body).includes("CHILD:")) {
        return fakeTurn({ text: "never finished", stallAfterEvents: 2 });
      }
      mainRequests++;
      return mainRequests === 1
        ? fakeTurn({ toolCalls: [task("general-purpose", childPrompt)] })
        : fakeTurn({ text: "carried on" });
    },
  });
  await Deno.mkdir(sandbox.storage, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.storage}/config.json`,
    JSON.stringify({ streamIdleTimeoutMs: 1000, subagentStallTimeoutMs: 2500 }),
  );
  const run = await sandbox.run(["-p", "Delegate it.", "--output-format", "json"], {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-limits-test" },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(parseJsonResult(run).result, "carried on");
  const childAttempts = server.requests.filter((r) => firstText(r.body).includes("CHILD:")).length;
  // 1 s of silence at most per attempt, and no attempt past the 2.5 s stall limit (before: 5 attempts
  // of 2.5 s each, the stall limit standing in for the idle timeout).
  assert.ok(childAttempts >= 2 && childAttempts <= 3, `child attempts: ${childAttempts}`);
  const [record] = await readSidecars(sandbox.storage);
  assert.equal(record?.status, "failed");
  // The last attempt ends at the idle timeout, or, on a slow machine, sooner: it gets only what is left
  // of the stall limit as its request timeout ("no response within 36 ms (request timeout)").
  assert.match(
    record?.result.error ?? "",
    /stream sent nothing for \d+ ms \(stream idle timeout\)|no response within \d+ ms \(request timeout\)/,
  );
  assert.ok((record?.stats.durationMs ?? 0) < 6_000, `the child's wait: ${record?.stats.durationMs} ms`);
  assert.match(record?.result.error ?? "", /stall limit of 2500 ms/);
});

Deno.test("limits: --max-budget-usd is the whole tree's: looping background children stop when it is spent", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "x\n");
  let childRequests = 0;
  let mainRequests = 0;
  const background = (prompt: string) => ({
    name: "Task",
    input: { subagent_type: "general-purpose", description: "Loop", prompt, run_in_background: true },
  });
  // A child's request costs $0.30 (100k input tokens at $3 per million, claude-sonnet-4-5); the
  // parent's cost nothing. Past 40 child requests the children stop by themselves (the test's bound).
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      if (firstText(request.body).includes("CHILD")) {
        childRequests++;
        if (childRequests > 40) {
          return fakeTurn({ text: "gave up", usage: { inputTokens: 1, outputTokens: 1 } });
        }
        return fakeTurn({
          toolCalls: [{ name: "Read", input: { file_path: `${sandbox.workspace}/a.txt` } }],
          usage: { inputTokens: 100_000, outputTokens: 1 },
        });
      }
      mainRequests++;
      return mainRequests === 1
        ? fakeTurn({
          toolCalls: [background("CHILD one: read forever."), background("CHILD two: read forever.")],
          usage: { inputTokens: 1, outputTokens: 1 },
        })
        : fakeTurn({ text: "waiting for them", usage: { inputTokens: 1, outputTokens: 1 } });
    },
  });
  const run = await sandbox.run(
    [
      "-p",
      "Start two loops.",
      "--model",
      "claude-sonnet-4-5",
      "--max-budget-usd",
      "1",
      "--output-format",
      "json",
    ],
    { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-limits-test" } },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = parseJsonResult(run);
  assert.deepEqual([result.subtype, result.is_error], ["error_max_budget_usd", true]);
  // $1 is passed at the 4th child request; requests already under way may finish, no new loop starts.
  assert.ok(childRequests >= 4 && childRequests <= 8, `child requests: ${childRequests}`);
  const records = await readSidecars(sandbox.storage);
  assert.equal(records.length, 2);
  for (const record of records) assert.notEqual(record.status, "running", JSON.stringify(record.status));
});
