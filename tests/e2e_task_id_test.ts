// End-to-end: an Agent call's child id is Blade's, never the model's (lib/protocol/assigned_input.ts,
// docs/reference/task-tool.md). A model that names an existing run's id in `subagent_session_id` is
// refused, saying why, and that run's sidecar and transcript stay as they were (before, a child named
// after an earlier session of the folder ran and appended its prompt and answer to that session's
// transcript: children and sessions share the folder's `<id>.jsonl` files); the model is never shown
// the field (not in the Agent tool's schema, not in its own earlier calls sent back to it), while the
// persisted call keeps the id Blade assigned (recovery and resume read it there).

import assert from "node:assert/strict";
import type { TranscriptEvent } from "../lib/protocol/events.ts";
import type { ToolCallBlock, ToolResultBlock } from "../lib/protocol/messages.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { INPUT_SCHEMAS } from "../lib/tools/input_schemas.gen.ts";
import { scriptedArgs, writeScript } from "./support/crash.ts";
import {
  bladeSandbox,
  readSidecars,
  sidecarPath,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

const partsOf = (events: TranscriptEvent[]) =>
  events.flatMap((e) => (e.type === "part_created" ? [e.data.part] : []));

Deno.test("Agent: a model-chosen subagent_session_id naming an existing run is refused; that run is untouched", async () => {
  await using sandbox = await bladeSandbox();
  let firstId = "";
  let sidecarBefore = "";
  let transcriptBefore = "";
  await using server = startFakeAnthropicServer({
    handler: async (request, index) => {
      if (index === 0) {
        return fakeTurn({
          toolCalls: [{
            name: "Agent",
            input: {
              subagent_type: "general-purpose",
              description: "first child",
              prompt: "Answer at once.",
            },
          }],
        });
      }
      if (index === 1) return fakeTurn({ text: "first answer" });
      if (index === 2) {
        // The parent's model read the first child's id from its result and names it as its own.
        firstId = /agentId: (agent-[\w-]{21})/.exec(JSON.stringify(request.body.messages))?.[1] ?? "";
        sidecarBefore = await Deno.readTextFile(sidecarPath(sandbox.storage, firstId));
        transcriptBefore = await Deno.readTextFile(transcriptPath(sandbox, firstId));
        return fakeTurn({
          toolCalls: [{
            name: "Agent",
            input: {
              subagent_type: "general-purpose",
              description: "imposter",
              prompt: "Overwrite the first child's run.",
              subagent_session_id: firstId,
            },
          }],
        });
      }
      return fakeTurn({ text: "done" });
    },
  });
  const run = await sandbox.run([
    "-p",
    "Delegate twice.",
    "--provider",
    "anthropic",
    "--output-format",
    "json",
  ], {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(firstId, /^agent-[\w-]{21}$/);
  assert.equal(server.requests.length, 4, "no child ran for the refused call");

  // The run the model named is untouched, and it is the only run.
  assert.equal(await Deno.readTextFile(sidecarPath(sandbox.storage, firstId)), sidecarBefore);
  assert.equal(await Deno.readTextFile(transcriptPath(sandbox, firstId)), transcriptBefore);
  assert.deepEqual((await readSidecars(sandbox.storage)).map((r) => [r.id, r.description]), [[
    firstId,
    "first child",
  ]]);

  // The refusal says what was refused and why.
  const last = server.requests[3]!.body.messages.at(-1)!;
  const refusal = JSON.stringify(last.content);
  assert.match(refusal, /subagent_session_id is assigned by Blade and may not be set by a call/);
  assert.match(refusal, /"is_error":true/);

  // The model never sees the field: not in the schema it is sent, not in its own calls sent back.
  assert.ok(server.requests[0]!.body.tools?.some((t) => t.name === "Agent"), "the parent is offered Agent");
  for (const { body } of server.requests) {
    const agent = body.tools?.find((t) => t.name === "Agent");
    if (agent !== undefined && "input_schema" in agent) {
      assert.equal(Object.hasOwn(agent.input_schema.properties as object, "subagent_session_id"), false);
    }
    const uses = body.messages.flatMap((m) => Array.isArray(m.content) ? m.content : [])
      .filter((b) => b.type === "tool_use");
    if (body === server.requests[3]!.body) assert.equal(uses.length, 2, "both calls are sent back");
    for (const use of uses) assert.equal(Object.hasOwn(use.input as object, "subagent_session_id"), false);
  }

  // The persisted calls: the first carries the id Blade assigned; the refused one carries no id at all.
  const [record] = await readSidecars(sandbox.storage);
  const parent = await transcriptEvents(transcriptPath(sandbox, record!.parentSessionId));
  const calls = partsOf(parent).filter((p): p is ToolCallBlock => p.type === "tool_call");
  assert.deepEqual(calls.map((c) => c.input.subagent_session_id), [firstId, undefined]);
  assert.match(calls[1]!.inputError ?? "", /subagent_session_id is assigned by Blade/);
  const results = partsOf(parent).filter((p): p is ToolResultBlock => p.type === "tool_result");
  assert.deepEqual(results.map((r) => r.isError), [false, true]);
});

Deno.test("Agent's schema, as Claude Code 2.1.332's (tests/fixtures/claude/tools/tool_list.json), has no child id", async () => {
  const golden = JSON.parse(
    await Deno.readTextFile(new URL("./fixtures/claude/tools/tool_list.json", import.meta.url)),
  ) as { tools: { name: string; input_schema: { properties: Record<string, unknown> } }[] };
  const claude = golden.tools.find((t) => t.name === "Agent")!.input_schema.properties;
  const blade = INPUT_SCHEMAS.Agent!.properties as Record<string, unknown>;
  assert.ok(Object.hasOwn(claude, "prompt") && Object.hasOwn(blade, "prompt"));
  assert.deepEqual([
    Object.hasOwn(claude, "subagent_session_id"),
    Object.hasOwn(blade, "subagent_session_id"),
  ], [
    false,
    false,
  ]);
});

Deno.test("Agent: a model naming an earlier session's id as its child's writes nothing into that session", async () => {
  await using sandbox = await bladeSandbox();
  const earlier = "aaaaaaaa-2222-4333-8444-555555555555";
  const first = await writeScript(sandbox, "first", {
    agents: { main: [{ turns: [{ text: "first session" }] }] },
  });
  const ran = await sandbox.run(scriptedArgs(first, "Hello.", ["--session-id", earlier]));
  assert.equal(ran.code, 0, ran.stderr);
  const before = await Deno.readTextFile(transcriptPath(sandbox, earlier));
  const script = await writeScript(sandbox, "collide", {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [{
              name: "Task",
              input: {
                subagent_type: "general-purpose",
                description: "collide",
                prompt: "Tell the earlier session what to do.",
                subagent_session_id: earlier,
              },
            }],
          },
          { text: "TOOL SAID: {{last_user}}" },
        ],
      }],
      "general-purpose": [{ repeat_last: true, turns: [{ text: "CHILD RAN" }] }],
    },
  });
  const run = await sandbox.run(scriptedArgs(script, "Go."));
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /TOOL SAID: Invalid tool input for Task: subagent_session_id is assigned by Blade/,
  );
  assert.doesNotMatch(run.stdout, /CHILD RAN/);
  assert.equal(
    await Deno.readTextFile(transcriptPath(sandbox, earlier)),
    before,
    "the earlier session is untouched",
  );
  assert.deepEqual(await readSidecars(sandbox.storage), [], "no run was made");
});
