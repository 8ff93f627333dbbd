// Table tests of the pure launch plan: every refusal, the config snapshot (inherit and aliases), the
// initial sidecar record, the child's spec and the warm stand-in.

import assert from "node:assert/strict";
import { agentDefinitionSchema } from "../registry/schema.ts";
import { RegistrySnapshot } from "../registry/snapshot.ts";
import { cappedTurns, type LaunchParent, planLaunch, runningRef, warmSpec } from "./launch_plan.ts";
import { inWorktree } from "../run/isolation.ts";
import { fullSidecarFixture } from "../testing/sidecar_fixtures.ts";
import { VERDICT_JSON_SCHEMA } from "../verification/verdict.ts";
import type { TaskRequest } from "../tools/task.ts";
import { SidecarRecordSchema } from "../store/schema.ts";
import type { ChildSpec } from "../executor/child.ts";

const ID = "agent-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const NOW = 1_700_000_000_000;

function agent(fields: Record<string, unknown>) {
  return agentDefinitionSchema.parse({
    description: "An agent.",
    systemPrompt: "You help.",
    source: "flag",
    path: "--agents",
    ...fields,
  });
}

const registry = new RegistrySnapshot("/work", [
  agent({ name: "worker", tools: ["Read"] }),
  agent({
    name: "pinned",
    model: "fast",
    permissionMode: "plan",
    maxTurns: 3,
    background: true,
    effort: "low",
  }),
  agent({ name: "isolated", isolation: "worktree" }),
  agent({ name: "verification", tools: ["Read", "Bash"] }),
]);

const parent: LaunchParent = {
  sessionId: "session-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
  projectPath: "/work",
  workspaceRoot: "/work/sub",
  model: "parent-model",
  mode: "autoEdit",
  depth: 0,
  trusted: true,
  maxDepth: 2,
  aliases: { fast: "fast-model-1" },
  process: { pid: 42, identity: null },
  auditEnv: { PATH: "/usr/bin", CI: "true" },
};

function request(fields: Partial<TaskRequest>): TaskRequest {
  return {
    subagent_type: "worker",
    description: "do a thing",
    prompt: "Do the thing and answer.",
    subagent_session_id: ID,
    ...fields,
  };
}

const refusals: [string, Partial<TaskRequest>, Partial<LaunchParent>, RegExp][] = [
  [
    "resume_from without a lookup",
    { resume_from: "agent-src" },
    {},
    /^Cannot resume "agent-src": the source run could not/,
  ],
  ["resume alias without a lookup", { resume: "agent-src" }, {}, /^Cannot resume "agent-src"/],
  [
    "no type",
    { subagent_type: undefined },
    {},
    /^subagent_type is required.*isolated, pinned, verification, worker\.$/,
  ],
  ["unknown type", { subagent_type: "nope" }, {}, /^Unknown agent type "nope"\. Available agent types: /],
  ["too deep", {}, { depth: 2 }, /^Cannot start a subagent at nesting depth 3: the limit is 2 /],
  [
    "worktree untrusted",
    { isolation: "worktree" },
    { trusted: false },
    /^Cannot isolate worker .*not trusted/,
  ],
  ["worktree by definition, untrusted", { subagent_type: "isolated" }, { trusted: false }, /not trusted/],
  [
    "remote without a shared store",
    { isolation: "remote" },
    {},
    /^Cannot run worker remotely: this run has no shared store\. Start Blade with --store nats:/,
  ],
  [
    "remote, untrusted",
    { isolation: "remote" },
    { remote: true, trusted: false },
    /^Cannot run worker remotely: the workspace \/work\/sub is not trusted/,
  ],
  [
    "a model outside availableModels",
    { model: "fast" },
    { availableModels: ["haiku"] },
    /^Cannot run the agent on fast-model-1 \(the call's model "fast"\): it is not in the availableModels/,
  ],
];

for (const [name, fields, parentFields, pattern] of refusals) {
  Deno.test(`planLaunch refuses: ${name}`, () => {
    const plan = planLaunch(request(fields), { registry, parent: { ...parent, ...parentFields }, now: NOW });
    assert.equal(plan.ok, false);
    if (!plan.ok) assert.match(plan.refusal, pattern);
  });
}

Deno.test("planLaunch refuses an unknown type in an empty registry with 'none'", () => {
  const plan = planLaunch(request({ subagent_type: "x" }), {
    registry: new RegistrySnapshot("/work", []),
    parent,
    now: NOW,
  });
  assert.deepEqual(plan, { ok: false, refusal: 'Unknown agent type "x". Available agent types: none.' });
});

const snapshots: [string, Partial<TaskRequest>, Record<string, unknown>][] = [
  ["inherit", {}, {
    model: "parent-model",
    permissionMode: "autoEdit",
    maxTurns: null,
    tools: ["Read"],
    effort: undefined,
  }],
  ["pinned", { subagent_type: "pinned" }, {
    model: "fast-model-1",
    permissionMode: "plan",
    maxTurns: 3,
    effort: "low",
  }],
  ["the call's effort", { effort: "high" }, { effort: "high" }],
  ["the call's effort over a pinned one", { subagent_type: "pinned", effort: "max" }, { effort: "max" }],
  ["the call's model", { model: "fast" }, { model: "fast-model-1" }],
  ["the call's model over a pinned one", { subagent_type: "pinned", model: "inherit" }, {
    model: "parent-model",
  }],
];

for (const [name, fields, expected] of snapshots) {
  Deno.test(`planLaunch freezes the config snapshot: ${name}`, () => {
    const plan = planLaunch(request(fields), { registry, parent, now: NOW });
    assert.ok(plan.ok);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual((plan.record.configSnapshot as Record<string, unknown>)[key], value, key);
    }
    assert.equal(plan.spec.config, plan.record.configSnapshot);
  });
}

Deno.test("planLaunch builds a valid running v2 record owned by the parent's process", () => {
  const plan = planLaunch(request({}), {
    registry,
    parent: { ...parent, process: { pid: 7, identity: null } },
    now: NOW,
  });
  assert.ok(plan.ok);
  const r = plan.record;
  assert.ok(SidecarRecordSchema.safeParse(r).success);
  assert.equal(r.status, "running");
  assert.equal(r.createdAt, NOW);
  assert.equal(r.lastActiveAt, NOW);
  assert.equal(r.processId, 7);
  assert.equal("processIdentity" in r, false);
  assert.equal(r.rootAgentId, ID);
  assert.equal(r.resumeDepth, 0);
  assert.equal(r.parentSessionId, parent.sessionId);
  assert.equal(r.parentProjectPath, "/work");
  assert.equal(r.workspaceRoot, "/work/sub");
  assert.equal(r.background, false);
});

Deno.test("planLaunch: background comes from the call or the definition", () => {
  const byCall = planLaunch(request({ run_in_background: true }), { registry, parent, now: NOW });
  const byDefinition = planLaunch(request({ subagent_type: "pinned" }), { registry, parent, now: NOW });
  assert.ok(byCall.ok && byDefinition.ok);
  assert.equal(byCall.record.background, true);
  assert.equal(byDefinition.record.background, true);
});

Deno.test("planLaunch: the spec carries depth, lineage, trust and the run's rules", () => {
  const rules = { allow: ["Bash(git *)"], deny: ["Bash(rm:*)"], ask: [] };
  const plan = planLaunch(request({}), { registry, parent: { ...parent, depth: 1, rules }, now: NOW });
  assert.ok(plan.ok);
  assert.equal(plan.spec.depth, 2);
  assert.deepEqual(plan.spec.lineage, { rootAgentId: ID, resumeDepth: 0 });
  assert.equal(plan.spec.trusted, true);
  // The run's rules, as the child's effective rules, frozen into its record for resume.
  assert.deepEqual(plan.spec.rules, { ...rules, limits: [] });
  assert.deepEqual(plan.record.configSnapshot.rules, plan.spec.rules);
  const none = planLaunch(request({}), { registry, parent, now: NOW });
  assert.ok(none.ok);
  assert.deepEqual(none.spec.rules, { allow: [], deny: [], ask: [], limits: [] });
});

Deno.test("warmSpec: a stand-in for a known type within the depth limit, else nothing", () => {
  assert.equal(warmSpec({ subagentType: "worker" }, registry, parent)?.config.model, "parent-model");
  assert.equal(warmSpec({ subagentType: "nope" }, registry, parent), undefined);
  assert.equal(warmSpec({ subagentType: "worker" }, registry, { ...parent, depth: 2 }), undefined);
});

Deno.test("warmSpec: what decides the child's grant is the launch's; an isolated child gets no stand-in", () => {
  // What the Worker's permission set is derived from (child/child_sandbox.ts permissionsForChild).
  const grantOf = (s: ChildSpec) => ({
    trusted: s.trusted,
    mode: s.config.permissionMode,
    tools: s.config.tools,
    disallowed: s.config.disallowedTools,
    ceiling: s.toolCeiling,
    workspaceRoot: s.workspaceRoot,
    additionalDirs: s.additionalDirs,
    worktree: s.worktree,
    audit: s.audit,
  });
  const cases: [string, Partial<TaskRequest>, Partial<LaunchParent>][] = [
    ["a plain child", {}, {}],
    ["a pinned mode", { subagent_type: "pinned" }, {}],
    ["an auditor", { subagent_type: "verification" }, {}],
    ["a call that turns its agent's isolation off", { subagent_type: "isolated", isolation: "none" }, {}],
    ["below a plan-mode parent with --add-dir", {}, { mode: "plan", additionalDirs: ["/extra"] }],
  ];
  for (const [name, fields, parentFields] of cases) {
    const input = request(fields);
    const p = { ...parent, ...parentFields };
    const warm = warmSpec(
      {
        subagentType: input.subagent_type!,
        ...(input.isolation === undefined ? {} : { isolation: input.isolation }),
      },
      registry,
      p,
    );
    const plan = planLaunch(input, { registry, parent: p, now: NOW });
    assert.ok(plan.ok && warm !== undefined, name);
    assert.deepEqual(grantOf(warm), grantOf(plan.spec), name);
  }
  // Isolated (by its agent or by the call): the grant names a worktree made only at launch.
  assert.equal(warmSpec({ subagentType: "isolated" }, registry, parent), undefined);
  assert.equal(warmSpec({ subagentType: "worker", isolation: "worktree" }, registry, parent), undefined);
});

Deno.test("runningRef: a running ref for a known type, nothing for an unknown one", () => {
  assert.deepEqual(runningRef(request({ run_in_background: true }), registry), {
    type: "subtask_ref",
    callId: "",
    agentId: ID,
    subagentType: "worker",
    description: "do a thing",
    background: true,
    state: "running",
    lineage: { rootAgentId: ID, resumeDepth: 0 },
  });
  assert.equal(runningRef(request({ subagent_type: "nope" }), registry), undefined);
});

Deno.test("planLaunch resumes with the source's frozen config, messages, workspace and lineage", () => {
  // The source ran as "worker" with tools [Read]; the registry's definition has changed since.
  const source = planLaunch(request({ subagent_session_id: "agent-src" }), { registry, parent, now: NOW });
  assert.ok(source.ok);
  const stored = {
    ...source.record,
    status: "completed" as const,
    result: { success: true, message: "done" },
    messages: [{
      role: "user" as const,
      content: [{ type: "text" as const, text: "Do the thing and answer." }],
    }],
  };
  const changed = new RegistrySnapshot("/work", [agent({ name: "worker", tools: ["Bash"], model: "fast" })]);
  const child = { ...parent, sessionId: parent.sessionId };
  const plan = planLaunch(request({ subagent_type: undefined, resume_from: "agent-src" }), {
    registry: changed,
    parent: child,
    now: NOW + 1,
    resume: { source: { record: stored, legacy: false }, newIdTaken: false },
  });
  assert.ok(plan.ok);
  assert.deepEqual(plan.record.configSnapshot, stored.configSnapshot);
  assert.equal(plan.record.subagentType, "worker");
  assert.deepEqual(
    [plan.record.rootAgentId, plan.record.resumedFrom, plan.record.resumeDepth],
    ["agent-src", "agent-src", 1],
  );
  assert.deepEqual(plan.record.messages, stored.messages);
  assert.deepEqual(plan.spec.initialMessages, stored.messages);
  assert.deepEqual(plan.spec.lineage, { rootAgentId: "agent-src", resumedFrom: "agent-src", resumeDepth: 1 });
  assert.deepEqual(plan.restoreIsolation, { kind: "none" });
  assert.ok(SidecarRecordSchema.safeParse(plan.record).success);
  // The running ref carries the new lineage; a wrong explicit type gets none (the launch refuses it).
  const resumeCall = request({ subagent_type: undefined, resume_from: "agent-src" });
  assert.deepEqual(runningRef(resumeCall, changed, stored)?.lineage, plan.spec.lineage);
  assert.equal(runningRef({ ...resumeCall, subagent_type: "pinned" }, changed, stored), undefined);
  const wrong = planLaunch({ ...resumeCall, subagent_type: "pinned" }, {
    registry: changed,
    parent: child,
    now: NOW,
    resume: {
      source: { record: stored, legacy: false },
      newIdTaken: false,
    },
  });
  assert.deepEqual(wrong, {
    ok: false,
    refusal: 'Cannot resume "agent-src" with subagent_type "pinned": source agent used "worker".',
  });
  // A resume keeps its frozen model: the same model (or inherit) may be named, another is refused.
  const lookup = { source: { record: stored, legacy: false }, newIdTaken: false };
  assert.ok(
    planLaunch({ ...resumeCall, model: "parent-model" }, {
      registry: changed,
      parent: child,
      now: NOW,
      resume: lookup,
    }).ok,
  );
  assert.ok(
    planLaunch({ ...resumeCall, model: "inherit" }, {
      registry: changed,
      parent: child,
      now: NOW,
      resume: lookup,
    }).ok,
  );
  assert.deepEqual(
    planLaunch({ ...resumeCall, model: "fast" }, {
      registry: changed,
      parent: child,
      now: NOW,
      resume: lookup,
    }),
    {
      ok: false,
      refusal: 'Cannot resume "agent-src" on fast-model-1: a resumed run keeps the model it started with ' +
        "(parent-model). Leave out model, or start a fresh agent on the other model.",
    },
  );
});

Deno.test("planLaunch: isolation comes from the call or the definition; inWorktree moves the child there", () => {
  const byCall = planLaunch(request({ isolation: "worktree" }), { registry, parent, now: NOW });
  const byDefinition = planLaunch(request({ subagent_type: "isolated" }), { registry, parent, now: NOW });
  assert.ok(byCall.ok && byDefinition.ok);
  assert.equal(byCall.record.isolation, "worktree");
  assert.equal(byDefinition.record.isolation, "worktree");
  const lease = fullSidecarFixture(ID).worktree!;
  const moved = inWorktree(byCall, lease);
  assert.equal(moved.record.workspaceRoot, lease.workspaceRoot);
  assert.deepEqual(moved.record.worktree, lease);
  assert.deepEqual(moved.spec.worktree, {
    workspaceRoot: lease.workspaceRoot,
    worktreeRoot: lease.worktreeRoot,
    parentCheckout: lease.repositoryRoot,
  });
  assert.equal(moved.spec.workspaceRoot, lease.workspaceRoot);
});

Deno.test("planLaunch: a verification agent is a read-only auditor that returns a verdict", () => {
  const plan = planLaunch(request({ subagent_type: "verification" }), { registry, parent, now: NOW });
  assert.ok(plan.ok);
  assert.deepEqual(plan.spec.audit, { commandEnv: parent.auditEnv });
  assert.deepEqual(plan.spec.structuredOutput, {
    schema: VERDICT_JSON_SCHEMA,
    maxRetries: 2,
    purpose: "your verdict",
  });
  const worker = planLaunch(request({}), { registry, parent, now: NOW });
  assert.ok(worker.ok);
  assert.equal(worker.spec.audit, undefined);
  assert.equal(worker.spec.structuredOutput, undefined);
});

Deno.test("planLaunch: the capability ceiling caps the mode and the tools, and says so", () => {
  const escalating = new RegistrySnapshot("/work", [
    agent({ name: "escalator", permissionMode: "bypassPermissions", tools: ["Read", "Write", "Bash"] }),
  ]);
  const plan = planLaunch(request({ subagent_type: "escalator" }), {
    registry: escalating,
    parent: { ...parent, mode: "plan", tools: ["Read", "Grep", "Task"] },
    now: NOW,
  });
  assert.ok(plan.ok);
  assert.equal(plan.record.configSnapshot.permissionMode, "plan");
  assert.deepEqual(plan.spec.toolCeiling, ["Read", "Grep", "Task"]);
  assert.deepEqual(plan.spec.capped, [
    "permissionMode yolo (bypassPermissions) capped to plan by the parent",
    "tools Write, Bash not granted: the parent does not have them",
  ]);
  // A top-level parent: Blade's tools minus those the run's deny rules remove whole.
  const top = planLaunch(request({}), {
    registry,
    parent: { ...parent, rules: { allow: [], deny: ["Bash"], ask: [] } },
    now: NOW,
  });
  assert.ok(top.ok);
  assert.equal(top.spec.toolCeiling?.includes("Bash"), false);
  assert.equal(top.spec.toolCeiling?.includes("Write"), true);
  assert.equal("capped" in top.spec, false);
});

Deno.test("planLaunch: a resumed child keeps its frozen rules, narrowed again by the resuming session", () => {
  // It first ran below an agent limited to `git status` that refused touch: those are in its record.
  const below = {
    ...parent,
    rules: { allow: [], deny: ["Bash(touch:*)"], ask: [], limits: [["Bash(git status:*)", "Task"]] },
  };
  const source = planLaunch(request({ subagent_session_id: "agent-src" }), {
    registry,
    parent: below,
    now: NOW,
  });
  assert.ok(source.ok);
  assert.deepEqual(source.record.configSnapshot.rules, { ...below.rules, limits: below.rules.limits });
  const stored = {
    ...source.record,
    status: "completed" as const,
    result: { success: true, message: "done" },
  };
  // Resumed by the top-level session, which has none of those limits: the record still does.
  const resumed = planLaunch(request({ subagent_type: undefined, resume_from: "agent-src" }), {
    registry,
    parent: {
      ...parent,
      rules: { allow: ["Bash"], deny: ["Bash(rm:*)"], ask: [] },
    },
    now: NOW + 1,
    resume: { source: { record: stored, legacy: false }, newIdTaken: false },
  });
  assert.ok(resumed.ok);
  const want = {
    allow: ["Bash"],
    deny: ["Bash(touch:*)", "Bash(rm:*)"],
    ask: [],
    limits: [["Bash(git status:*)", "Task"]],
  };
  assert.deepEqual(resumed.spec.rules, want);
  assert.deepEqual(resumed.record.configSnapshot.rules, want);
  // A record written before rules were frozen gets its own definition's and the resuming session's.
  const legacy = {
    ...stored,
    configSnapshot: { ...stored.configSnapshot, disallowedTools: ["Bash(curl:*)"] },
  };
  delete (legacy.configSnapshot as { rules?: unknown }).rules;
  const old = planLaunch(request({ subagent_type: undefined, resume_from: "agent-src" }), {
    registry,
    parent,
    now: NOW,
    resume: {
      source: { record: legacy, legacy: false },
      newIdTaken: false,
    },
  });
  assert.ok(old.ok);
  assert.deepEqual(old.spec.rules, { allow: [], deny: ["Bash(curl:*)"], ask: [], limits: [] });
});

Deno.test("cappedTurns: an agent's maxTurns never exceeds what its parent has left", () => {
  const table: [own: number | null, left: number | undefined, expected: number | null][] = [
    [null, undefined, null], // no limit anywhere
    [20, undefined, 20], // the agent's own limit
    [null, 7, 7], // --max-turns of the parent
    [20, 7, 7], // the smaller wins
    [3, 7, 3],
  ];
  for (const [own, left, expected] of table) assert.equal(cappedTurns(own, left), expected, `${own} ${left}`);
});

Deno.test("planLaunch: a remote child always runs in the background; --remote-children sends background children of agents without an isolation", () => {
  const remote = { ...parent, remote: true };
  const asked = planLaunch(request({ isolation: "remote" }), { registry, parent: remote, now: NOW });
  assert.ok(asked.ok);
  assert.equal(asked.record.isolation, "remote");
  assert.equal(asked.record.background, true);
  const all = { ...remote, remoteChildren: true };
  const bg = planLaunch(request({ run_in_background: true }), { registry, parent: all, now: NOW });
  assert.ok(bg.ok && bg.record.isolation === "remote");
  // A foreground child, and an agent with an isolation of its own, stay as they are.
  const fg = planLaunch(request({}), { registry, parent: all, now: NOW });
  assert.ok(fg.ok && fg.record.isolation === "none" && !fg.record.background);
  const own = planLaunch(request({ subagent_type: "isolated", run_in_background: true }), {
    registry,
    parent: all,
    now: NOW,
  });
  assert.ok(own.ok && own.record.isolation === "worktree");
  // The call's own isolation wins over --remote-children.
  const none = planLaunch(request({ run_in_background: true, isolation: "none" }), {
    registry,
    parent: all,
    now: NOW,
  });
  assert.ok(none.ok && none.record.isolation === "none");
  // No Worker is warmed for a child that runs elsewhere.
  assert.equal(warmSpec({ subagentType: "worker", isolation: "remote" }, registry, remote), undefined);
});
