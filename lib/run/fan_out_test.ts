// Nested fan-out under the concurrency limit (docs/reference/task-tool.md "Concurrency"): wide trees of
// foreground children that delegate again finish, because a child waiting on its own children lends its
// slot back (semaphore.ts LentSlot). Before, 20 parallel children that each delegated once held all 20
// slots while their children queued for one: the session hung. Real store and transcripts, children in
// this thread against the FakeModel; a hang fails through `bounded`.

import assert from "node:assert/strict";
import { backgroundHarness, bounded, turnIndex } from "../testing/background_harness.ts";
import { agentDefinitionSchema } from "../registry/schema.ts";
import { RegistrySnapshot } from "../registry/snapshot.ts";
import { SubagentRuntime } from "./subagents.ts";
import type { ModelRequest } from "../protocol/provider.ts";
import { isTerminalStatus } from "../store/schema.ts";

const DELEGATOR = "delegator";

/**
 * Every session below `depth` delegates once (in the background: then waits with a blocking TaskOutput);
 * the deepest answers; each then answers with its child's.
 */
function reply(depth: number, background: boolean) {
  return (request: ModelRequest) => {
    const d = request.meta.depth;
    const turn = turnIndex(request);
    if (d >= depth || turn > (background ? 1 : 0)) return { text: `done at depth ${d}` };
    if (turn === 1) {
      const started = JSON.stringify(request.messages.at(-1)?.content);
      const id = /agent-[A-Za-z0-9_-]{21}/.exec(started)?.[0];
      return { toolCalls: [{ name: "TaskOutput", input: { task_id: id, block: true, timeout: 600_000 } }] };
    }
    return {
      toolCalls: [{
        name: "Task",
        input: {
          subagent_type: DELEGATOR,
          description: "Go one deeper",
          prompt: "Delegate once more, then answer.",
          run_in_background: background,
        },
      }],
    };
  };
}

async function fanOut(width: number, depth: number, background = false): Promise<void> {
  await using h = await backgroundHarness({ reply: reply(depth, background) });
  const delegator = agentDefinitionSchema.parse({
    name: DELEGATOR,
    description: "Delegates once.",
    systemPrompt: "You delegate.",
    tools: ["Task", "TaskOutput"],
    source: "flag",
    path: "--agents",
  });
  const env = { ...h.env, registry: new RegistrySnapshot(h.workspace, [delegator]), maxDepth: depth };
  // The limit of 20 children at once per root session (SPEC §5), shared by every level of the tree.
  assert.equal(env.slots.free, 20);
  const top = new SubagentRuntime(env, {
    sessionId: "session-parent",
    projectPath: h.workspace,
    workspaceRoot: h.workspace,
    model: "test-model",
    mode: "yolo",
    depth: 0,
  });
  const launches = Array.from({ length: width }, (_, i) =>
    top.launch({
      subagent_type: DELEGATOR,
      description: `Branch ${i}`,
      prompt: "Delegate once, then answer.",
      subagent_session_id: `agent-fanout-${String(i).padStart(3, "0")}-aaaaaaaaaaaa`,
    }, h.ctx({ callId: `call_${i}` })));
  const results = await bounded(`a ${width}×${depth} tree`, Promise.all(launches), 120_000);
  for (const r of results) assert.equal(r.isError, false, r.content);
  const { records } = await h.store.listAll();
  assert.equal(records.length, width * depth);
  assert.ok(records.every((r) => isTerminalStatus(r.status) && r.status === "completed"));
  assert.equal(env.slots.free, 20, "every slot is back");
}

Deno.test("20 parallel children that each delegate once finish (20×2)", async () => {
  await fanOut(20, 2);
});

Deno.test("50 parallel children, each delegating two levels deep, finish (50×3)", async () => {
  await fanOut(50, 3);
});

Deno.test("20 parallel children that each wait on a background child with a blocking TaskOutput finish", async () => {
  await fanOut(20, 2, true);
});
