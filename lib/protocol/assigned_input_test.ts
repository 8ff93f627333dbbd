// The keys Blade assigns a call's input (lib/protocol/assigned_input.ts), by table: only delegation
// calls (Agent, or its older name Task) have one; a model input setting it is refused saying why; what
// the model is shown leaves it out; a rewrite (a hook's, an approver's) gets the persisted id back,
// whatever it said.

import assert from "node:assert/strict";
import { assignedKeys, assignedRefusal, CHILD_ID_KEY, modelInput, withAssigned } from "./assigned_input.ts";

const ID = "agent-AAAAAAAAAAAAAAAAAAAAA";

Deno.test("assigned input: only Agent (and Task) calls have a key Blade assigns", () => {
  assert.deepEqual(
    ["Agent", "Task", "Bash", "Read", "TaskOutput"].map((t) => [t, assignedKeys(t)]),
    [["Agent", [CHILD_ID_KEY]], ["Task", [CHILD_ID_KEY]], ["Bash", []], ["Read", []], ["TaskOutput", []]],
  );
  assert.equal(CHILD_ID_KEY, "subagent_session_id");
});

Deno.test("assigned input: a model input that sets the child id is refused, saying what and why", () => {
  const cases: [string, Record<string, unknown>, string | undefined][] = [
    ["Agent", { prompt: "p" }, undefined],
    ["Agent", { prompt: "p", subagent_session_id: "agent-victim" }, "Agent"],
    ["Task", { prompt: "p", subagent_session_id: "" }, "Agent"],
    ["Agent", { prompt: "p", subagent_session_id: null }, "Agent"],
    ["Bash", { command: "ls", subagent_session_id: "agent-x" }, undefined],
  ];
  for (const [tool, input, again] of cases) {
    const refusal = assignedRefusal(tool, input);
    if (again === undefined) assert.equal(refusal, undefined, JSON.stringify([tool, input]));
    else {
      assert.equal(
        refusal,
        "subagent_session_id is assigned by Blade and may not be set by a call; call Agent again without it " +
          "(to continue an earlier agent, set resume_from to its agent id).",
      );
    }
  }
});

Deno.test("assigned input: the model is shown its call without the id; other tools' inputs are left as they are", () => {
  const input = { prompt: "p", subagent_session_id: ID };
  assert.deepEqual(modelInput("Agent", input), { prompt: "p" });
  assert.deepEqual(input, { prompt: "p", subagent_session_id: ID }, "not changed in place");
  const bash = { command: "ls", subagent_session_id: "x" };
  assert.equal(modelInput("Bash", bash), bash);
  const plain = { prompt: "p" };
  assert.equal(modelInput("Agent", plain), plain);
});

Deno.test("assigned input: a rewrite keeps the id persisted with the call, whatever it says", () => {
  const persisted = { prompt: "p", subagent_session_id: ID };
  const cases: Record<string, unknown>[] = [
    { prompt: "q" },
    { prompt: "q", subagent_session_id: "agent-victim" },
    { prompt: "q", subagent_session_id: "../../x" },
  ];
  for (const rewrite of cases) {
    assert.deepEqual(withAssigned("Task", rewrite, persisted), { prompt: "q", subagent_session_id: ID });
  }
  const bash = { command: "ls", subagent_session_id: "x" };
  assert.equal(withAssigned("Bash", bash, {}), bash);
});
