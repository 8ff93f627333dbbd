// End-to-end: delegation through the Task tool (docs/reference/sessions.md, docs/reference/registry.md, docs/reference/task-tool.md, docs/reference/sidecars.md) with `blade -p` as a real
// subprocess, mostly against the scripted provider (one script file per test) and once against the
// fake Anthropic server: sidecars, child transcripts, durable call identity, concurrency, child tool
// tables, maxTurns and failing children.

import assert from "node:assert/strict";
import type { SubtaskRefPart, TranscriptEvent } from "../lib/protocol/events.ts";
import type { ToolCallBlock, ToolResultBlock } from "../lib/protocol/messages.ts";
import type { SidecarRecord } from "../lib/store/schema.ts";
import { wireBlocks } from "../lib/provider/anthropic_wire.ts";
import { fakeTurn, startFakeAnthropicServer, systemText } from "../lib/testing/fake_anthropic_server.ts";
import {
  bladeSandbox,
  parseJsonResult,
  readSidecars,
  runScripted,
  sidecarPath,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

function task(subagentType: string, input: { description: string; prompt: string }) {
  return { name: "Task", input: { subagent_type: subagentType, ...input } };
}

function partsOf(events: TranscriptEvent[]) {
  return events.flatMap((e) => (e.type === "part_created" ? [e.data.part] : []));
}

function toolResultsIn(events: TranscriptEvent[]): ToolResultBlock[] {
  return partsOf(events).filter((p): p is ToolResultBlock => p.type === "tool_result");
}

function stats(rows: Record<string, [number, number, number]>) {
  const total = { spawned: 0, completed: 0, failed: 0, cancelled: 0 };
  const byType: Record<string, typeof total> = {};
  for (const [type, [spawned, completed, failed]] of Object.entries(rows)) {
    byType[type] = { spawned, completed, failed, cancelled: 0 };
    total.spawned += spawned;
    total.completed += completed;
    total.failed += failed;
  }
  return { ...total, by_type: byType };
}

Deno.test("task: parent → Task → child → answer, with sidecar, child transcript and durable call identity", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("notes.md", "# notes\n");
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [
              task("general-purpose", {
                description: "Count the files",
                prompt: "Count the files in the workspace.",
              }),
            ],
          },
          { text: "Child said: {{last_user}}" },
        ],
      }],
      "general-purpose": [{
        turns: [
          { tool_calls: [{ name: "Glob", input: { pattern: "*.md" } }] },
          { text: "There is 1 Markdown file." },
        ],
      }],
    },
  });
  assert.equal(run.code, 0, run.stderr);
  const result = parseJsonResult(run);
  const sessionId = String(result.session_id);
  assert.deepEqual(result.subagents, stats({ "general-purpose": [1, 1, 0] }));
  assert.equal(result.is_error, false);

  const [sidecar, ...others] = await readSidecars(sandbox.storage);
  assert.ok(sidecar !== undefined);
  assert.deepEqual(others, []);
  const id = sidecar.id;
  assert.match(id, /^agent-[\w-]{21}$/);
  assert.match(
    String(result.result),
    new RegExp(`^Child said: There is 1 Markdown file\\.\n\nagentId: ${id} `),
  );
  assert.deepEqual(
    [
      sidecar.schemaVersion,
      sidecar.status,
      sidecar.subagentType,
      sidecar.parentSessionId,
      sidecar.background,
    ],
    [2, "completed", "general-purpose", sessionId, false],
  );
  assert.deepEqual(sidecar.result, { success: true, message: "There is 1 Markdown file." });
  assert.equal(sidecar.parentProjectPath, sandbox.workspace);
  assert.equal(typeof sidecar.completedAt, "number");
  assert.equal((await Deno.stat(sidecarPath(sandbox.storage, id))).mode! & 0o777, 0o600);

  const child = await transcriptEvents(transcriptPath(sandbox, id));
  assert.deepEqual([child[0]?.type, child[0]?.sessionId, child[0]?.data], ["session_created", id, {
    agentType: "general-purpose",
    model: "scripted",
    parentSessionId: sessionId,
    relation: "subagent",
    lineage: { rootAgentId: id, resumeDepth: 0 },
    depth: 1,
  }]);
  assert.equal(child.at(-1)?.type, "turn_completed");

  const parent = await transcriptEvents(transcriptPath(sandbox, sessionId));
  const parts = partsOf(parent);
  const calls = parts.filter((p): p is ToolCallBlock => p.type === "tool_call");
  assert.equal(calls.length, 1);
  assert.equal(calls[0]!.name, "Task");
  assert.equal(calls[0]!.input.subagent_session_id, id, "the persisted call carries the child's id");
  const refs = parts.filter((p): p is SubtaskRefPart => p.type === "subtask_ref");
  const ref = (state: SubtaskRefPart["state"]): SubtaskRefPart => ({
    type: "subtask_ref",
    callId: calls[0]!.id,
    agentId: id,
    subagentType: "general-purpose",
    description: "Count the files",
    background: false,
    state,
    lineage: { rootAgentId: id, resumeDepth: 0 },
  });
  assert.deepEqual(refs, [ref("running"), ref("completed")]);
  // The running ref is written with the call, before the child's session exists.
  const callSeq = parent.find((e) => e.type === "part_created" && e.data.part.type === "tool_call")!.seq;
  const runningSeq = parent.find((e) => e.type === "part_created" && e.data.part.type === "subtask_ref")!.seq;
  assert.equal(runningSeq, callSeq + 1);
  assert.ok(
    Date.parse(parent.find((e) => e.seq === runningSeq)!.timestamp) <= Date.parse(child[0]!.timestamp),
  );
});

Deno.test("task: two Task calls in one response run at the same time", async () => {
  await using sandbox = await bladeSandbox();
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [
              task("general-purpose", {
                description: "A: audit the API",
                prompt: "Audit the API module for errors.",
              }),
              task("general-purpose", {
                description: "B: audit the CLI",
                prompt: "Audit the CLI module for errors.",
              }),
            ],
          },
          { text: "Both audits are done." },
        ],
      }],
      "general-purpose": [
        { match: "API module", turns: [{ text: "API: fine.", delay_ms: 700 }] },
        { match: "CLI module", turns: [{ text: "CLI: fine.", delay_ms: 700 }] },
      ],
    },
  });
  assert.equal(run.code, 0, run.stderr);
  const result = parseJsonResult(run);
  assert.deepEqual(result.subagents, stats({ "general-purpose": [2, 2, 0] }));
  const records = await readSidecars(sandbox.storage);
  assert.deepEqual(records.map((r) => [r.description, r.status, r.result.message]), [
    ["A: audit the API", "completed", "API: fine."],
    ["B: audit the CLI", "completed", "CLI: fine."],
  ]);
  // Durable times, not wall clock: run one after the other, the second child would be recorded (sidecar)
  // and would start its session (transcript) only after the first one completed.
  const spans = await Promise.all(records.map(async (r) => {
    const events = await transcriptEvents(transcriptPath(sandbox, r.id));
    const time = (type: string) => Date.parse(events.find((e) => e.type === type)?.timestamp ?? "");
    return {
      sidecar: [r.createdAt, r.completedAt!],
      session: [time("session_created"), time("turn_completed")],
    };
  }));
  const [a, b] = spans as [typeof spans[0], typeof spans[0]];
  for (const key of ["sidecar", "session"] as const) {
    const [aStart, aEnd] = a[key] as [number, number];
    const [bStart, bEnd] = b[key] as [number, number];
    assert.ok(
      Math.min(aEnd, bEnd) > Math.max(aStart, bStart),
      `the children's ${key} spans do not overlap: A ${aStart}–${aEnd}, B ${bStart}–${bEnd}`,
    );
  }
});

Deno.test("task: a child gets only its agent's tools (Explore, tools: [], deny beats allow)", async () => {
  await using sandbox = await bladeSandbox();
  const agents = {
    "no-tools": { description: "An agent without tools", prompt: "You answer from memory.", tools: [] },
    "denied-reader": {
      description: "Read is both allowed and denied",
      prompt: "You try to read.",
      tools: ["Read"],
      disallowedTools: ["Read"],
    },
  };
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [
              task("Explore", {
                description: "Explore tries Write",
                prompt: "Write the file out.txt with any content.",
              }),
              task("no-tools", {
                description: "No tools tries Read",
                prompt: "Read the file notes.md for me.",
              }),
              task("denied-reader", {
                description: "Denied tries Read",
                prompt: "Read the file notes.md for me.",
              }),
            ],
          },
          { text: "All three children reported back." },
        ],
      }],
      Explore: [{
        turns: [{ tool_calls: [{ name: "Write", input: { file_path: "out.txt", content: "x" } }] }, {
          text: "{{last_user}}",
        }],
      }],
      "*": [{
        turns: [{ tool_calls: [{ name: "Read", input: { file_path: "notes.md" } }] }, {
          text: "{{last_user}}",
        }],
      }],
    },
  }, { flags: ["--agents", JSON.stringify(agents), "--permission-mode", "yolo", "--trust-workspace"] });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(parseJsonResult(run).result, "All three children reported back.");
  const records = await readSidecars(sandbox.storage);
  assert.deepEqual(records.map((r) => r.description), [
    "Denied tries Read",
    "Explore tries Write",
    "No tools tries Read",
  ]);
  const childResult = async (record: SidecarRecord) => {
    const results = toolResultsIn(
      await transcriptEvents(transcriptPath(sandbox, record.id)),
    );
    assert.equal(results.length, 1, `${record.description}: ${JSON.stringify(results)}`);
    return results[0]!;
  };
  const [denied, explore, none] = await Promise.all(records.map(childResult)) as [
    ToolResultBlock,
    ToolResultBlock,
    ToolResultBlock,
  ];
  assert.equal(explore.isError, true);
  const offered = /^Unknown tool "Write"\. Available tools: (.+)\.$/.exec(explore.content)?.[1];
  assert.deepEqual(offered?.split(", ").sort(), ["Glob", "Grep", "Read"], explore.content);
  assert.deepEqual([none.isError, none.content], [true, 'Unknown tool "Read". Available tools: none.']);
  assert.deepEqual([denied.isError, denied.content], [true, 'Unknown tool "Read". Available tools: none.']);
  assert.equal(await Deno.stat(`${sandbox.workspace}/out.txt`).then(() => true, () => false), false);
  assert.deepEqual(records.map((r) => r.configSnapshot.tools), [["Read"], ["Glob", "Grep", "Read"], []]);
});

Deno.test("task: a failing child fails its Task call, not the parent (maxTurns, model error)", async () => {
  await using sandbox = await bladeSandbox();
  const agents = {
    looper: { description: "Never stops on its own", prompt: "You keep searching.", maxTurns: 2 },
    broken: { description: "Its model fails", prompt: "You fail." },
  };
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [
              task("looper", { description: "Loop forever", prompt: "Search until you find nothing." }),
              task("broken", { description: "Fail at once", prompt: "Answer this simple question." }),
            ],
          },
          { text: "I carried on without them." },
        ],
      }],
      looper: [{ repeat_last: true, turns: [{ tool_calls: [{ name: "Glob", input: { pattern: "*" } }] }] }],
      broken: [{ turns: [{ error: { kind: "server", message: "the model exploded" } }] }],
    },
  }, { flags: ["--agents", JSON.stringify(agents)] });
  assert.equal(run.code, 0, run.stderr);
  const result = parseJsonResult(run);
  assert.deepEqual([result.is_error, result.result], [false, "I carried on without them."]);
  assert.deepEqual(result.subagents, stats({ looper: [1, 0, 1], broken: [1, 0, 1] }));

  const parent = await transcriptEvents(
    transcriptPath(sandbox, String(result.session_id)),
  );
  const [looped, exploded, ...rest] = toolResultsIn(parent);
  assert.deepEqual(rest, []);
  assert.equal(looped?.isError, true);
  assert.match(
    looped.content,
    /^Subagent execution failed: Reached the maximum number of turns \(2\) before the agent finished\./,
  );
  assert.equal(exploded?.isError, true);
  assert.match(exploded.content, /^Subagent execution failed: the model exploded\n/);

  const records = await readSidecars(sandbox.storage);
  assert.deepEqual(records.map((r) => [r.subagentType, r.status, r.result.success]), [
    ["broken", "failed", false],
    ["looper", "failed", false],
  ]);
  for (const record of records) {
    assert.match(exploded.content + looped.content, new RegExp(`agentId: ${record.id}`));
  }
  const looperEvents = await transcriptEvents(
    transcriptPath(sandbox, records[1]!.id),
  );
  const last = looperEvents.at(-1)!;
  assert.deepEqual([last.type, last.data], ["turn_aborted", {
    turn: 1,
    cause: "failed",
    reason: "max_turns_exceeded",
  }]);
});

Deno.test("task: the same delegation against the fake Anthropic server sends the child its own system prompt", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer([
    fakeTurn({
      toolCalls: [
        task("Explore", {
          description: "Find the config",
          prompt: "Find where the configuration is loaded.",
        }),
      ],
    }),
    fakeTurn({ text: "It is loaded in src/config.ts." }),
    fakeTurn({ text: "The explorer found it in src/config.ts." }),
  ]);
  const run = await sandbox.run([
    "-p",
    "Where is the config loaded?",
    "--provider",
    "anthropic",
    "--output-format",
    "json",
  ], {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" },
  });
  assert.equal(run.code, 0, run.stderr);
  const result = parseJsonResult(run);
  assert.deepEqual([result.result, result.subagents], [
    "The explorer found it in src/config.ts.",
    stats({ Explore: [1, 1, 0] }),
  ]);
  assert.equal(server.requests.length, 3);
  const [parentFirst, childRequest, parentSecond] = server.requests.map((r) => r.body);
  assert.match(systemText(parentFirst!), /Explore/, "the parent is told which agents exist");
  assert.doesNotMatch(systemText(parentFirst!), /You are a file search specialist/);
  assert.match(systemText(childRequest!), /You are a file search specialist/);
  assert.deepEqual(childRequest!.messages, [
    {
      role: "user",
      content: [{
        type: "text",
        text: "Find where the configuration is loaded.",
        cache_control: { type: "ephemeral" },
      }],
    },
  ]);
  assert.deepEqual(childRequest!.tools?.map((t) => t.name).sort(), ["Glob", "Grep", "Read"]);
  const last = parentSecond!.messages.at(-1)!;
  const [taskResult] = wireBlocks(last);
  assert.equal(taskResult?.type, "tool_result");
  if (taskResult?.type === "tool_result") {
    assert.equal(taskResult.tool_use_id, "toolu_fake_1_0");
    assert.equal(taskResult.is_error, false);
    assert.match(taskResult.content, /^It is loaded in src\/config\.ts\.\n\nagentId: agent-[\w-]{21} /);
  }
});
