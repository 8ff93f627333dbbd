import assert from "node:assert/strict";
import { adoptionEvents, adoptionRefusal, type OrphanCall, orphanCalls, planAdoption } from "./adoption.ts";
import { FIXTURE_OWNER, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import type { TranscriptEvent } from "../protocol/events.ts";
import type { SidecarRecord } from "../store/schema.ts";

let seq = 0;
const ev = (type: TranscriptEvent["type"], data: unknown) =>
  ({
    seq: ++seq,
    id: `e${seq}`,
    sessionId: "session-p",
    projectPath: "/p",
    timestamp: "t",
    type,
    data,
  }) as TranscriptEvent;

const INPUT = {
  subagent_type: "general-purpose",
  description: "Survey the code",
  prompt: "Find every place.",
  subagent_session_id: "agent-1",
};
const DONE = sidecarFixture("agent-1", {
  status: "completed",
  result: { success: true, message: "Found 3." },
});

function transcriptWithCall(input: Record<string, unknown> = INPUT, name = "Task"): TranscriptEvent[] {
  seq = 0;
  return [
    ev("session_created", { agentType: "main", model: "m", depth: 0 }),
    ev("turn_started", { turn: 1 }),
    ev("message_created", { messageId: "a", role: "assistant" }),
    ev("part_created", {
      messageId: "a",
      partId: "1",
      part: { type: "tool_call", id: "call-1", name, input },
    }),
  ];
}

Deno.test("orphanCalls: calls of the open turn without results", () => {
  const t = transcriptWithCall();
  assert.deepEqual(orphanCalls(t), { turn: 1, calls: [{ callId: "call-1", name: "Task", input: INPUT }] });
  const answered = [
    ...t,
    ev("message_created", { messageId: "u", role: "user" }),
    ev("part_created", {
      messageId: "u",
      partId: "2",
      part: { type: "tool_result", callId: "call-1", content: "x", isError: false },
    }),
  ];
  assert.deepEqual(orphanCalls(answered), { turn: 1, calls: [] });
  assert.equal(orphanCalls([...t, ev("turn_aborted", { turn: 1, cause: "process_restart" })]), undefined);
});

Deno.test("adoptionRefusal: every field must match; never background or cancelled children", () => {
  const call = (input: Record<string, unknown> = INPUT, name = "Task"): OrphanCall => ({
    callId: "call-1",
    name,
    input,
  });
  const cases: [string, OrphanCall, SidecarRecord | null, RegExp | null][] = [
    ["match", call(), DONE, null],
    ["failed result adopts too", call(), {
      ...DONE,
      status: "failed",
      result: { success: false, message: "", error: "boom" },
    }, null],
    ["tool name", call(INPUT, "Bash"), DONE, /not an Agent call/],
    ["no record", call(), null, /no usable sidecar/],
    ["child id", call({ ...INPUT, subagent_session_id: "agent-2" }), DONE, /is agent-1, not agent-2/],
    ["owner", call(), { ...DONE, parentSessionId: "session-other" }, /another session or folder/],
    ["folder", call(), { ...DONE, parentProjectPath: "/elsewhere" }, /another session or folder/],
    ["description", call({ ...INPUT, description: "Other" }), DONE, /another description/],
    ["explicit type", call({ ...INPUT, subagent_type: "Explore" }), DONE, /not "Explore"/],
    ["lineage", call({ ...INPUT, resume_from: "agent-0" }), DONE, /another resume lineage/],
    [
      "lineage (record resumed)",
      call(),
      { ...DONE, resumedFrom: "agent-0", resumeDepth: 1 },
      /another resume lineage/,
    ],
    ["background call", call({ ...INPUT, run_in_background: true }), DONE, /background/],
    ["background record", call(), { ...DONE, background: true }, /background/],
    [
      "cancelled",
      call(),
      { ...DONE, status: "cancelled", result: { success: false, message: "" } },
      /is cancelled/,
    ],
    ["running", call(), { ...DONE, status: "running" }, /is running/],
    ["contradiction", call(), { ...DONE, result: { success: false, message: "" } }, /contradicts/],
  ];
  for (const [name, c, r, expect] of cases) {
    const got = adoptionRefusal(c, r, FIXTURE_OWNER);
    if (expect === null) assert.equal(got, null, name);
    else assert.match(got ?? "", expect, name);
  }
  // A resumed call may omit the type: the source's is inherited.
  const resumed = { ...DONE, resumedFrom: "agent-0", resumeDepth: 1, rootAgentId: "agent-0" };
  const { subagent_type: _t, ...untyped } = INPUT;
  assert.equal(adoptionRefusal(call({ ...untyped, resume_from: "agent-0" }), resumed, FIXTURE_OWNER), null);
});

Deno.test("planAdoption → the tool result (adopted), the terminal subtask_ref, then turn_aborted(process_restart)", () => {
  const owner = { parentSessionId: "session-parent000000000000001", parentProjectPath: "/home/dev/project" };
  const plan = planAdoption(transcriptWithCall(), new Map([["agent-1", DONE]]), owner);
  assert.ok(plan !== undefined);
  assert.equal(plan.adopted.length, 1);
  assert.match(plan.adopted[0]!.result.content, /^Found 3\.\n\nagentId: agent-1/);
  const events = adoptionEvents(plan, (content, parts) => [
    { type: "message_created", data: { messageId: "m", role: "user", adopted: true } },
    ...[...content, ...parts].map((part, i) => ({
      type: "part_created" as const,
      data: { messageId: "m", partId: `p${i}`, part },
    })),
  ]);
  assert.deepEqual(events.map((e) => e.type === "part_created" ? e.data.part.type : e.type), [
    "message_created",
    "tool_result",
    "subtask_ref",
    "turn_aborted",
  ]);
  assert.deepEqual(events.at(-1)!.data, {
    turn: 1,
    cause: "process_restart",
    reason: "the process stopped; adopted the finished result of agent-1",
  });
  // Adopting again: the transcript now has the result and the turn is closed → nothing.
  seq = 10;
  const after = [...transcriptWithCall(), ...events.map((e) => ev(e.type, e.data))];
  assert.equal(planAdoption(after, new Map([["agent-1", DONE]]), owner), undefined);
  // A non-matching call is refused and nothing is written.
  const refused = planAdoption(
    transcriptWithCall({ ...INPUT, description: "Other" }),
    new Map([["agent-1", DONE]]),
    owner,
  )!;
  assert.equal(refused.adopted.length, 0);
  assert.equal(refused.refused.length, 1);
  assert.deepEqual(adoptionEvents(refused, () => []), []);
});
