import assert from "node:assert/strict";
import { planResume, type ResumeRequest } from "./resume_plan.ts";
import { FIXTURE_OWNER, fullSidecarFixture, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import type { SidecarRecord } from "../store/schema.ts";

const WHO = { parentSessionId: FIXTURE_OWNER.parentSessionId, projectPath: FIXTURE_OWNER.parentProjectPath };
const req = (o: Partial<ResumeRequest> = {}): ResumeRequest => ({
  sourceId: "agent-src",
  newId: "agent-new",
  visibleTo: WHO,
  ...o,
});
const done = (o: Partial<SidecarRecord> = {}) => ({
  record: sidecarFixture("agent-src", {
    status: "completed",
    result: { success: true, message: "ok" },
    ...o,
  }),
  legacy: false,
});

Deno.test("planResume: lineage, frozen config, messages and isolation come from the source", () => {
  const root = sidecarFixture("agent-src", {
    status: "completed",
    result: { success: true, message: "ok" },
    rootAgentId: "agent-root",
    resumedFrom: "agent-root",
    resumeDepth: 1,
    providerAdmissionOwnerId: "adm-1",
  });
  const d = planResume(req(), { source: { record: root, legacy: false }, newIdTaken: false });
  assert.ok(d.ok);
  assert.deepEqual(d.plan.lineage, { rootAgentId: "agent-root", resumedFrom: "agent-src", resumeDepth: 2 });
  assert.deepEqual(d.plan.config, root.configSnapshot);
  assert.notEqual(d.plan.config, root.configSnapshot); // a copy: the source is never changed
  assert.deepEqual(d.plan.messages, root.messages);
  assert.equal(d.plan.subagentType, "general-purpose");
  assert.equal(d.plan.providerAdmissionOwnerId, "adm-1");
  assert.deepEqual(d.plan.restoreIsolation, { kind: "none" });
  const wt = fullSidecarFixture("agent-src").worktree!;
  const w = planResume(req(), { source: done({ isolation: "worktree", worktree: wt }), newIdTaken: false });
  assert.ok(w.ok);
  assert.deepEqual(w.plan.restoreIsolation, { kind: "worktree", lease: wt });
});

Deno.test("planResume: every rejection says which, with the id", () => {
  const cases: [
    string,
    ResumeRequest,
    Parameters<typeof planResume>[1]["source"],
    boolean,
    string,
    RegExp,
  ][] = [
    ["unknown", req(), null, false, "not_found", /"agent-src": session not found in this workspace/],
    [
      "other folder",
      req({ visibleTo: { ...WHO, projectPath: "/elsewhere" } }),
      done(),
      false,
      "not_found",
      /session not found in this workspace/,
    ],
    [
      "other parent",
      req({ visibleTo: { ...WHO, parentSessionId: "session-other" } }),
      done(),
      false,
      "not_found",
      /session not found/,
    ],
    [
      "unusable",
      req(),
      { diagnostic: { id: "agent-src", code: "invalid_json", message: "bad" } },
      false,
      "not_found",
      /session not found/,
    ],
    [
      "running",
      req(),
      done({ status: "running" }),
      false,
      "running",
      /"agent-src": it is still running; wait for it or stop it with TaskStop/,
    ],
    [
      "wrong type",
      req({ explicitType: "Explore" }),
      done(),
      false,
      "type_mismatch",
      /subagent_type "Explore": source agent used "general-purpose"/,
    ],
    [
      "recovery failed",
      req(),
      done({
        status: "failed",
        result: { success: false, message: "", error: "Restart recovery failed: x" },
        restartRecovery: { outcome: "failed", recoveredAt: 1 },
      }),
      false,
      "recovery_failed",
      /"agent-src": its restart recovery failed/,
    ],
    [
      "same id",
      req({ newId: "agent-src" }),
      done(),
      false,
      "same_id",
      /"agent-src": the new run needs its own id/,
    ],
    ["id exists", req(), done(), true, "id_exists", /new id "agent-new" already exists/],
  ];
  for (const [name, r, source, taken, code, message] of cases) {
    const d = planResume(r, { source, newIdTaken: taken });
    assert.ok(!d.ok, name);
    assert.equal(d.code, code, name);
    assert.match(d.message, message, name);
  }
  // The CLI sees every run of its folder; the same type named explicitly is fine; interrupted runs resume.
  assert.ok(
    planResume(req({ visibleTo: { projectPath: WHO.projectPath } }), { source: done(), newIdTaken: false })
      .ok,
  );
  assert.ok(planResume(req({ explicitType: "general-purpose" }), { source: done(), newIdTaken: false }).ok);
  assert.ok(
    planResume(req(), {
      source: done({
        status: "failed",
        result: { success: false, message: "" },
        restartRecovery: { outcome: "interrupted", recoveredAt: 1 },
      }),
      newIdTaken: false,
    }).ok,
  );
});

Deno.test("planResume: with a project key, a run another clone started resumes in this checkout; another project's never", () => {
  const KEY = "git:0123456789abcdef0123456789abcdef01234567";
  const here = { ...WHO, projectPath: "/home/me/project", projectKey: KEY };
  const elsewhere = { parentProjectPath: "/builds/42/project", workspaceRoot: "/builds/42/project/src" };
  const cases: [
    string,
    Partial<SidecarRecord>,
    ResumeRequest["visibleTo"],
    string | undefined,
    string | undefined,
  ][] = [
    // [name, source fields, who asks, the planned workspace root, else the rejection code]
    [
      "same key, other path: its folder here",
      { ...elsewhere, projectKey: KEY },
      here,
      "/home/me/project/src",
      undefined,
    ],
    [
      "same key, other path, remote",
      { ...elsewhere, projectKey: KEY, isolation: "remote" },
      here,
      "/home/me/project/src",
      undefined,
    ],
    [
      "another project's key, other path",
      { ...elsewhere, projectKey: `${KEY}:sub` },
      here,
      undefined,
      "not_found",
    ],
    [
      "another project's key at this very path",
      { parentProjectPath: here.projectPath, workspaceRoot: here.projectPath, projectKey: `${KEY}:sub` },
      here,
      undefined,
      "not_found",
    ],
    // No key on the record (file store, older records) or here: the path, as before.
    ["no key on the record, other path", elsewhere, here, undefined, "not_found"],
    [
      "no key here, other path",
      { ...elsewhere, projectKey: KEY },
      { ...here, projectKey: undefined },
      undefined,
      "not_found",
    ],
    [
      "same key, same path: as recorded",
      { parentProjectPath: here.projectPath, workspaceRoot: "/tmp/wt/x", projectKey: KEY },
      here,
      "/tmp/wt/x",
      undefined,
    ],
    // A worktree exists only in the checkout that made it.
    [
      "same key, other path, worktree",
      { ...elsewhere, projectKey: KEY, isolation: "worktree" },
      here,
      undefined,
      "other_checkout",
    ],
    [
      "same key, its workspace outside its folder",
      { ...elsewhere, workspaceRoot: "/builds/wt/agent-1", projectKey: KEY },
      here,
      undefined,
      "other_checkout",
    ],
  ];
  for (const [name, fields, who, root, code] of cases) {
    const d = planResume(req({ visibleTo: who }), { source: done(fields), newIdTaken: false });
    if (root !== undefined) {
      assert.ok(d.ok, `${name}: ${d.ok ? "" : d.message}`);
      assert.equal(d.plan.workspaceRoot, root, name);
    } else {
      assert.ok(!d.ok, name);
      assert.equal(d.code, code, name);
    }
  }
});
