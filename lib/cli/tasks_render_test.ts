import assert from "node:assert/strict";
import { FIXTURE_TIME, fullSidecarFixture, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import {
  formatAge,
  renderCancel,
  renderClean,
  renderPrune,
  renderRecovery,
  renderTaskList,
  renderTaskOutput,
  renderWaitLine,
} from "./tasks_render.ts";

const MIN = 60_000;

function runs() {
  return [
    sidecarFixture("agent-running", { description: "Survey the code", background: true }),
    sidecarFixture("agent-queued", { description: "Wait for a slot", queuedAt: FIXTURE_TIME }),
    sidecarFixture("agent-done", {
      subagentType: "Explore",
      status: "completed",
      result: { success: true, message: "  Found 3 writers.\n" },
      createdAt: FIXTURE_TIME - 90 * MIN,
    }),
    sidecarFixture("agent-failed", {
      subagentType: "review",
      status: "failed",
      result: { success: false, message: "partial notes", error: "max_turns_exceeded" },
      createdAt: FIXTURE_TIME - 3 * 24 * 60 * MIN,
      resumedFrom: "agent-done",
      resumeDepth: 1,
      rootAgentId: "agent-done",
    }),
    sidecarFixture("agent-stopped", { status: "cancelled", createdAt: FIXTURE_TIME - 45_000 }),
  ];
}

Deno.test("tasks list: label, id, type, age, description, [bg], lineage", async (t) => {
  await t.assertSnapshot(renderTaskList(runs(), FIXTURE_TIME + 5_000));
  assert.equal(renderTaskList([], FIXTURE_TIME), "No subagent runs in this folder yet.\n");
});

Deno.test("tasks list: a MACHINE column once a run was written by another machine", () => {
  const here = sidecarFixture("agent-here", { description: "mine", machine: "laptop" });
  const there = sidecarFixture("agent-there", { description: "theirs", machine: "build-7" });
  const old = sidecarFixture("agent-old", { description: "before machines were recorded" });
  assert.ok(!renderTaskList([here, old], FIXTURE_TIME, { machine: "laptop" }).includes("MACHINE"));
  assert.equal(
    renderTaskList([here, there, old], FIXTURE_TIME, { machine: "laptop" }),
    [
      "STATUS   ID           TYPE             MACHINE   STARTED  DESCRIPTION",
      "RUNNING  agent-here   general-purpose  laptop     0s ago  mine",
      "RUNNING  agent-there  general-purpose  build-7    0s ago  theirs",
      "RUNNING  agent-old    general-purpose  -          0s ago  before machines were recorded",
      "",
    ].join("\n"),
  );
});

Deno.test("tasks output: heading then the answer, the error, or (still running)", async (t) => {
  await t.assertSnapshot(runs().map(renderTaskOutput).join("---\n"));
});

Deno.test("tasks wait, cancel and clean lines", async (t) => {
  await t.assertSnapshot([
    ...runs().map(renderWaitLine),
    renderCancel({ id: "agent-running", kind: "cancelled", pid: 4242 }),
    renderCancel({ id: "agent-orphan", kind: "cancelled" }),
    renderCancel({ id: "agent-done", kind: "not_running", status: "completed" }),
    renderClean(1, "7d"),
    renderClean(3, "12h"),
  ].join(""));
});

Deno.test("formatAge: the largest whole unit, never negative", () => {
  assert.deepEqual(
    [-5, 0, 59_499, 60_000, 3_599_000, 3_600_000, 86_399_000, 86_400_000 * 9].map(formatAge),
    ["0s", "0s", "59s", "1m", "59m", "1h", "23h", "9d"],
  );
});

Deno.test("tasks list and output show a kept worktree, the verdict and the evidence", async (t) => {
  const lease = fullSidecarFixture("agent-iso").worktree!;
  const isolated = sidecarFixture("agent-iso", {
    status: "completed",
    description: "Fix the parser",
    result: {
      success: true,
      message: "Fixed.",
      modifiedFiles: ["src/parse.ts", "<bash-mutation>"],
      verificationCommands: ["deno test"],
    },
    isolation: "worktree",
    worktree: lease,
  });
  const verifier = sidecarFixture("agent-ver", {
    subagentType: "verification",
    status: "completed",
    result: {
      success: true,
      message: "Checked.\n\n## Verification Result: FAIL",
      verificationVerdict: {
        verdict: "fail",
        summary: "deno test fails",
        findings: ["src/parse.ts:3 off by one"],
      },
      verificationCommands: ["deno test"],
    },
  });
  const list = renderTaskList([isolated], FIXTURE_TIME);
  assert.ok(list.includes(`worktree kept: ${lease.worktreeRoot} (branch ${lease.branch})`), list);
  await t.assertSnapshot([renderTaskOutput(isolated), renderTaskOutput(verifier)].join("---\n"));
  assert.equal(
    renderPrune({
      removed: [{ path: "/s/w/a", branch: "b" }],
      kept: [{ path: "/s/w/c", reason: "it has changed or untracked files" }],
    }),
    "Removed 1 stale worktree.\n  removed /s/w/a (branch b)\n  kept /s/w/c: it has changed or untracked files\n",
  );
});

Deno.test("tasks recover: killed process groups and the worktree of each recovered run", () => {
  const worktree = {
    path: "/w/agent+b",
    branch: "blade-worktree-agent+b-12345678",
    base_commit: "a".repeat(40),
  };
  assert.equal(
    renderRecovery({
      recovered: [
        { id: "agent-a", reason: "owner_dead", outcome: "interrupted", killedGroups: [701, 702] },
        {
          id: "agent-b",
          reason: "pid_reused",
          outcome: "interrupted",
          killedGroups: [703],
          worktree: { ...worktree, state: "kept", kept_because: "the agent did not finish successfully" },
        },
        {
          id: "agent-c",
          reason: "inactive",
          outcome: "completed",
          worktree: { ...worktree, state: "removed" },
        },
      ],
      skipped: [],
      problems: [{ id: "agent-a", message: "its leftover process group 702 could not be killed: EPERM" }],
    }),
    [
      "Recovered 3 orphaned runs:",
      "  agent-a  interrupted (its process died; killed 2 leftover process groups)",
      "  agent-b  interrupted (its process died; the PID now belongs to another process; killed 1 leftover " +
      "process group; worktree kept at /w/agent+b on branch blade-worktree-agent+b-12345678 because the agent " +
      "did not finish successfully)",
      "  agent-c  completed (no process recorded and no activity for over 30 minutes; its clean worktree was removed)",
      "Problem with agent-a: its leftover process group 702 could not be killed: EPERM",
      "",
    ].join("\n"),
  );
});
