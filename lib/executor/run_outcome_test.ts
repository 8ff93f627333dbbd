// Table tests of run_outcome.ts: which outcome and failure code each ending of a run gets, and the
// docs test that docs/reference/errors.md's "Why a run failed" table lists exactly the closed set.

import assert from "node:assert/strict";
import type { RuntimeWarning } from "../protocol/events.ts";
import {
  directRunOutcome,
  resumeOutcome,
  RUN_FAILURE_CODES,
  type RunOutcome,
  type TurnEvents,
  turnOutcome,
} from "./run_outcome.ts";

Deno.test("docs/reference/errors.md's 'Why a run failed' lists exactly RUN_FAILURE_CODES", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/reference/errors.md", import.meta.url));
  const section = doc.slice(doc.indexOf("## Why a run failed"), doc.indexOf("## Runtime warnings"));
  const documented = [...section.matchAll(/^\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => m[1]!);
  assert.deepEqual([...documented].sort(), [...RUN_FAILURE_CODES].sort());
  assert.equal(new Set(RUN_FAILURE_CODES).size, RUN_FAILURE_CODES.length);
});

const lost: RuntimeWarning = {
  type: "runtime_warning",
  sessionId: "s",
  code: "notice_dropped",
  message: "The notice of agent-1 was dropped.",
  workLost: true,
};
const completed = { status: "completed" as const };
const none = { abandoned: [], interrupted: [] };

Deno.test("turnOutcome: what happened around a turn decides its outcome, in order of precedence", () => {
  const cases: [string, TurnEvents, RunOutcome][] = [
    ["a completed loop", { result: completed, ...none }, { status: "completed" }],
    ["a loop that hit max turns", {
      result: { status: "failed", error: { type: "max_turns_exceeded", message: "Reached 2." } },
      ...none,
    }, { status: "failed", error: { code: "max_turns_exceeded", message: "Reached 2." } }],
    ["a cancelled loop", {
      result: { status: "cancelled", error: { type: "cancelled", message: "The run was cancelled." } },
      ...none,
      lostWork: lost,
    }, { status: "cancelled", error: { code: "cancelled", message: "The run was cancelled." } }],
    ["the budget, before anything else", {
      result: completed,
      abandoned: ["agent-1"],
      interrupted: [],
      lostWork: lost,
      overBudget: { costUsd: 0.12345, limitUsd: 0.1 },
    }, {
      status: "failed",
      error: {
        code: "max_budget_exceeded",
        message: "Stopped: the run cost $0.1235, over --max-budget-usd 0.1.",
      },
    }],
    ["the budget, with children interrupted while waiting", {
      result: completed,
      abandoned: [],
      interrupted: ["agent-2"],
      overBudget: { costUsd: 1, limitUsd: 0.5 },
    }, {
      status: "cancelled",
      error: {
        code: "max_budget_exceeded",
        message: "Stopped: the run cost $1.0000, over --max-budget-usd 0.5.",
      },
    }],
    [
      "an expired background wait",
      { result: completed, abandoned: ["agent-1", "agent-2"], interrupted: [] },
      {
        status: "failed",
        error: {
          code: "background_wait_expired",
          message: "Stopped waiting for background subagents; cancelled: agent-1, agent-2.",
        },
      },
    ],
    ["an interrupted background wait", { result: completed, abandoned: [], interrupted: ["agent-3"] }, {
      status: "cancelled",
      error: {
        code: "cancelled",
        message: "Interrupted while waiting for background subagents; cancelled: agent-3.",
      },
    }],
    ["lost work", { result: completed, ...none, lostWork: lost }, {
      status: "failed",
      error: { code: "notice_dropped", message: "The notice of agent-1 was dropped." },
    }],
    ["every requested change refused", {
      result: completed,
      ...none,
      refusedWork: { tools: ["Write", "Bash"], calls: 3 },
    }, {
      status: "failed",
      error: {
        code: "permission_denied",
        message:
          "Every change the run asked for was refused: Write, Bash (permission_denials lists the 3 calls; " +
          "the refusals say what grants them).",
      },
    }],
    ["refused work in a run that failed anyway", {
      result: { status: "failed", error: { type: "max_turns_exceeded", message: "Stopped at 1 turn." } },
      ...none,
      refusedWork: { tools: ["Write"], calls: 1 },
    }, { status: "failed", error: { code: "max_turns_exceeded", message: "Stopped at 1 turn." } }],
    ["no structured object", { result: completed, ...none, structured: { status: "pending" } }, {
      status: "failed",
      error: {
        code: "structured_output_invalid",
        message: "No structured output: StructuredOutput was not called with a valid object.",
      },
    }],
    ["a rejected structured object", {
      result: completed,
      ...none,
      structured: { status: "rejected", reason: "it does not match" },
    }, {
      status: "failed",
      error: { code: "structured_output_invalid", message: "No structured output: it does not match." },
    }],
    ["an accepted structured object", {
      result: completed,
      ...none,
      structured: { status: "accepted", value: { a: 1 } },
    }, { status: "completed" }],
  ];
  for (const [name, events, want] of cases) assert.deepEqual(turnOutcome(events), want, name);
});

Deno.test("directRunOutcome: a child's failure, its lost work, and a verification agent's verdict", () => {
  const cases: [string, Parameters<typeof directRunOutcome>[0], RunOutcome][] = [
    ["a completed child", { status: "completed", audited: false }, { status: "completed" }],
    ["a failed child", { status: "failed", audited: false, failure: { message: "It broke." } }, {
      status: "failed",
      error: { code: "subagent_failed", message: "It broke." },
    }],
    ["a cancelled child", { status: "cancelled", audited: true, failure: { message: "Stopped." } }, {
      status: "cancelled",
      error: { code: "subagent_failed", message: "Stopped." },
    }],
    ["lost work", {
      status: "failed",
      audited: false,
      failure: { message: "dropped", lost: { code: "notice_dropped", message: "dropped" } },
    }, { status: "failed", error: { code: "notice_dropped", message: "dropped" } }],
    ["verification without a verdict", { status: "completed", audited: true }, {
      status: "failed",
      error: {
        code: "no_verdict",
        message:
          "The verification agent gave no verdict: it returned no valid StructuredOutput object and its " +
          "final text does not end with exactly one `## Verification Result: PASS|FAIL|PARTIAL` line.",
      },
    }],
    ["verification that failed", {
      status: "completed",
      audited: true,
      verdict: { verdict: "fail", summary: "tests fail" },
    }, {
      status: "failed",
      error: { code: "verdict_fail", message: "Verification verdict FAIL: tests fail" },
    }],
    ["verification that passed", { status: "completed", audited: true, verdict: { verdict: "pass" } }, {
      status: "completed",
    }],
    ["a verdict of an agent that is not audited", {
      status: "completed",
      audited: false,
      verdict: { verdict: "partial" },
    }, { status: "completed" }],
  ];
  for (const [name, end, want] of cases) assert.deepEqual(directRunOutcome(end), want, name);
});

Deno.test("resumeOutcome: the new run's record, or the refusal that kept it from starting", () => {
  const ok = { status: "completed", result: {} };
  const failed = { status: "failed", result: { error: "It broke." } };
  assert.deepEqual(resumeOutcome({ record: ok, refusal: "", interrupted: false }), { status: "completed" });
  assert.deepEqual(resumeOutcome({ record: failed, refusal: "x", interrupted: false }), {
    status: "failed",
    error: { code: "subagent_failed", message: "It broke." },
  });
  assert.deepEqual(
    resumeOutcome({ record: { status: "cancelled", result: {} }, refusal: "Stopped.", interrupted: true }),
    {
      status: "cancelled",
      error: { code: "subagent_failed", message: "Stopped." },
    },
  );
  assert.deepEqual(
    resumeOutcome({ record: undefined, refusal: "It is still running.", interrupted: false }),
    {
      status: "failed",
      error: { code: "resume_refused", message: "It is still running." },
    },
  );
});
