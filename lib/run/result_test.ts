// The Task result of a finished run carries what the parent needs in its metadata: the verdict, the
// evidence (modified files, verification commands) and the kept worktree, and its text names the
// preserved worktree (docs/reference/verification.md, docs/guides/isolation.md).

import assert from "node:assert/strict";
import { fullSidecarFixture } from "../testing/sidecar_fixtures.ts";
import { collectEvidence } from "../verification/evidence.ts";
import { foregroundResult } from "./result.ts";

Deno.test("foregroundResult: Task metadata has the verdict, evidence and worktree; nested evidence propagates", () => {
  const done = fullSidecarFixture("agent-done");
  const outcome = {
    success: true,
    message: done.result.message,
    cancelled: false,
    messages: done.messages,
    stats: done.stats,
    toolResults: [],
  };
  const result = foregroundResult("call_1", done, outcome, "completed", "summary");
  const meta = result.metadata!;
  assert.deepEqual(meta["verificationVerdict"], done.result.verificationVerdict);
  assert.deepEqual(meta["verificationCommands"], ["deno test"]);
  assert.deepEqual(meta["modifiedFiles"], done.result.modifiedFiles);
  assert.deepEqual(meta["worktree"], {
    path: done.worktree!.worktreeRoot,
    branch: done.worktree!.branch,
    state: "kept",
    base_commit: done.worktree!.baseCommit,
    changed_files: done.worktree!.changedFiles,
    commits: done.worktree!.commits,
    ...(done.worktree!.keptBecause === undefined ? {} : { kept_because: done.worktree!.keptBecause }),
  });
  assert.ok(
    result.content.includes(
      `Worktree preserved at ${done.worktree!.worktreeRoot} on branch ${done.worktree!.branch}`,
    ),
    result.content,
  );
  // The parent's own evidence reads the nested Task's modified files from this metadata.
  const parent = collectEvidence([{ name: "Task", input: {}, result }], "/elsewhere");
  assert.deepEqual(parent.modifiedFiles, done.result.modifiedFiles);
});
