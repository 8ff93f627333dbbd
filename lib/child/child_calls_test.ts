// Table tests of what the main thread accepts from a Worker child (decodeWorkerMessage) and what the
// Worker accepts back (isToolResult, isPlannedRef).

import assert from "node:assert/strict";
import { decodeWorkerMessage } from "./child_calls.ts";
import { isPlannedRef, isToolResult } from "./child_protocol.ts";

const TASK = {
  subagent_type: "worker",
  description: "do a thing",
  prompt: "Do the thing and answer.",
  subagent_session_id: "agent-x",
};

const accepted: [string, unknown][] = [
  ["event", { kind: "event", runId: 1, event: { type: "text_delta", sessionId: "s", text: "hi" } }],
  ["plan", { kind: "call", runId: 1, id: 2, call: { method: "plan", input: TASK } }],
  ["launch", { kind: "call", runId: 1, id: 2, call: { method: "launch", input: TASK, callId: "c1" } }],
  [
    "output",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: { method: "output", input: { taskId: "a", block: true, timeoutMs: 5 } },
    },
  ],
  ["stop", { kind: "call", runId: 1, id: 2, call: { method: "stop", taskId: "a" } }],
  ["spawned", { kind: "call", runId: 1, id: 2, call: { method: "spawned", pgid: 4100 } }],
  ["kill", { kind: "call", runId: 1, id: 2, call: { method: "kill", pgid: 4100 } }],
  ["mcp", { kind: "call", runId: 1, id: 2, call: { method: "mcp", name: "mcp__s__t", input: { q: 1 } } }],
  [
    "hook beforePermission",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: {
        method: "hook",
        call: {
          point: "beforePermission",
          call: { id: "t1", name: "Bash", input: { command: "ls" } },
          input: { command: "ls" },
        },
      },
    },
  ],
  [
    "hook afterToolCall",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: {
        method: "hook",
        call: {
          point: "afterToolCall",
          call: { id: "t1", name: "Bash", input: {} },
          input: {},
          result: { content: "out", isError: false },
        },
      },
    },
  ],
  [
    "hook onTurnEnd",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: {
        method: "hook",
        call: {
          point: "onTurnEnd",
          turn: 1,
          answer: { role: "assistant", content: [{ type: "text", text: "done" }] },
          conversation: [{ role: "user", content: [{ type: "text", text: "task" }] }],
        },
      },
    },
  ],
  [
    "approve",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: {
        method: "approve",
        request: {
          sessionId: "s",
          agentType: "worker",
          tool: "Bash",
          subject: "ls",
          reason: "asks",
          input: {},
        },
      },
    },
  ],
];

Deno.test("decodeWorkerMessage keeps only the declared fields of a call", () => {
  const raw = { kind: "call", runId: 1, id: 2, call: { method: "stop", taskId: "a", extra: "x" } };
  assert.deepEqual(decodeWorkerMessage(raw), {
    kind: "call",
    runId: 1,
    id: 2,
    call: { method: "stop", taskId: "a" },
  });
});

for (const [name, raw] of accepted) {
  Deno.test(`decodeWorkerMessage accepts: ${name}`, () => {
    assert.deepEqual(decodeWorkerMessage(raw), raw);
  });
}

const refused: [string, unknown, RegExp][] = [
  ["not an object", "hello", /not a child event or call/],
  ["no runId", { kind: "event", event: { type: "text_delta" } }, /not a child event or call/],
  ["unknown event type", { kind: "event", runId: 1, event: { type: "rm -rf" } }, /no known type/],
  ["unknown method", { kind: "call", runId: 1, id: 2, call: { method: "spawn" } }, /malformed "spawn" call/],
  [
    "launch without an id",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: { method: "launch", input: { ...TASK, subagent_session_id: "" } },
    },
    /malformed "launch" call/,
  ],
  [
    "launch with a short prompt",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: { method: "launch", input: { ...TASK, prompt: "x" }, callId: "c" },
    },
    /malformed "launch" call/,
  ],
  [
    "output with a negative timeout",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: { method: "output", input: { taskId: "a", block: true, timeoutMs: -1 } },
    },
    /malformed "output" call/,
  ],
  [
    "stop without a task id",
    { kind: "call", runId: 1, id: 2, call: { method: "stop" } },
    /malformed "stop" call/,
  ],
  // kill(-1) signals every process the user owns; kill(0) this process's own group.
  [
    "kill of pgid 1",
    { kind: "call", runId: 1, id: 2, call: { method: "kill", pgid: 1 } },
    /malformed "kill"/,
  ],
  [
    "kill of pgid 0",
    { kind: "call", runId: 1, id: 2, call: { method: "kill", pgid: 0 } },
    /malformed "kill"/,
  ],
  [
    "hook of an unknown point",
    { kind: "call", runId: 1, id: 2, call: { method: "hook", call: { point: "beforeEverything" } } },
    /malformed "hook" call/,
  ],
  [
    "hook onTurnEnd of a user message",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: {
        method: "hook",
        call: { point: "onTurnEnd", turn: 1, answer: { role: "user", content: [] }, conversation: [] },
      },
    },
    /malformed "hook" call/,
  ],
  [
    "hook afterToolCall without its result",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: {
        method: "hook",
        call: { point: "afterToolCall", call: { id: "t", name: "Bash", input: {} }, input: {} },
      },
    },
    /malformed "hook" call: call.result/,
  ],
  [
    "mcp with a list for input",
    { kind: "call", runId: 1, id: 2, call: { method: "mcp", name: "t", input: [1] } },
    /malformed "mcp" call: input: /,
  ],
  [
    "approve naming a tool of 201 characters",
    {
      kind: "call",
      runId: 1,
      id: 2,
      call: {
        method: "approve",
        request: { sessionId: "s", agentType: "w", tool: "x".repeat(201), subject: "s", reason: "r" },
      },
    },
    /malformed "approve" call: request.tool: Too big/,
  ],
  ["kill of -1", { kind: "call", runId: 1, id: 2, call: { method: "kill", pgid: -1 } }, /malformed "kill"/],
  [
    "kill of 1.5",
    { kind: "call", runId: 1, id: 2, call: { method: "spawned", pgid: 1.5 } },
    /malformed "spawned"/,
  ],
];

for (const [name, raw, pattern] of refused) {
  Deno.test(`decodeWorkerMessage refuses: ${name}`, () => {
    const decoded = decodeWorkerMessage(raw);
    assert.ok("invalid" in decoded, JSON.stringify(decoded));
    assert.match(decoded.invalid, pattern);
  });
}

Deno.test("isToolResult / isPlannedRef check the answers a Worker child receives", () => {
  assert.ok(isToolResult({ content: "ok", isError: false }));
  assert.ok(isToolResult({ content: "ok", isError: true, metadata: {}, parts: [{ type: "subtask_ref" }] }));
  assert.ok(!isToolResult({ content: 1, isError: false }));
  assert.ok(!isToolResult({ content: "ok" }));
  assert.ok(!isToolResult({ content: "ok", isError: false, parts: ["x"] }));
  assert.ok(!isToolResult(null));
  const ref = {
    type: "subtask_ref",
    callId: "",
    agentId: "agent-x",
    subagentType: "worker",
    description: "d",
    background: false,
    state: "running",
    lineage: { rootAgentId: "agent-x", resumeDepth: 0 },
  };
  assert.ok(isPlannedRef(ref));
  assert.ok(isPlannedRef(undefined));
  assert.ok(!isPlannedRef({ ...ref, type: "text" }));
  assert.ok(!isPlannedRef("ref"));
});
