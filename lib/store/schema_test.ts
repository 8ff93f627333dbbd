// The sidecar check (schema.ts) against the zod schema it replaced (below, as it was): the same
// accept/reject answer for the fixture records and for every field of them removed or replaced by
// values of every JSON type and around every bound.

import assert from "node:assert/strict";
import { z } from "zod";
import { PERMISSION_MODES } from "../protocol/permission_mode.ts";
import { SESSION_ID_PATTERN } from "../protocol/ids.ts";
import { fullSidecarFixture, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { SIDECAR_SCHEMA_VERSION, SIDECAR_STATUSES, SidecarRecordSchema } from "./schema.ts";

const sessionId = z.string().regex(SESSION_ID_PATTERN, "not a valid session id")
  .refine((id) => id !== "." && id !== "..", "not a valid session id");
const epochMs = z.number().nonnegative();
const count = z.int().nonnegative();
const isolation = z.enum(["none", "worktree"]);

const messageSchema = z.object({
  role: z.enum(["user", "assistant", "system"]),
  content: z.array(z.discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string() }),
    z.object({
      type: z.literal("tool_call"),
      id: z.string(),
      name: z.string(),
      input: z.record(z.string(), z.unknown()),
      inputError: z.string().exactOptional(),
    }),
    z.object({
      type: z.literal("tool_result"),
      callId: z.string(),
      content: z.string(),
      isError: z.boolean(),
    }),
    z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  ])),
  hidden: z.boolean().exactOptional(),
});

const processIdentitySchema = z.object({
  platform: z.enum(["linux", "darwin", "win32"]),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/, "not a lowercase hex SHA-256"),
});

const processGroupSchema = z.object({ pgid: z.int().min(2), identity: processIdentitySchema });

const verdictSchema = z.object({
  verdict: z.enum(["pass", "fail", "partial"]),
  summary: z.string().exactOptional(),
  findings: z.array(z.string()).exactOptional(),
});

const resultSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  error: z.string().exactOptional(),
  verificationCommands: z.array(z.string()).exactOptional(),
  verificationVerdict: verdictSchema.exactOptional(),
  modifiedFiles: z.array(z.string()).exactOptional(),
});

const configSnapshotSchema = z.object({
  name: z.string(),
  description: z.string(),
  systemPrompt: z.string(),
  tools: z.array(z.string()).nullable(),
  disallowedTools: z.array(z.string()),
  model: z.string(),
  permissionMode: z.enum(PERMISSION_MODES),
  maxTurns: z.int().min(1).nullable(),
  skills: z.array(z.string()),
  mcpServers: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])).exactOptional(),
  isolation,
  source: z.string(),
  rules: z.object({
    allow: z.array(z.string()),
    deny: z.array(z.string()),
    ask: z.array(z.string()),
    limits: z.array(z.array(z.string())).exactOptional(),
  }).exactOptional(),
});
const worktreeSchema = z.object({
  name: z.string().min(1),
  branch: z.string().min(1),
  baseCommit: z.string().regex(/^[0-9a-f]{40,64}$/, "not a commit id"),
  originalBranch: z.string().nullable(),
  repositoryRoot: z.string().min(1),
  originalWorkspaceRoot: z.string().min(1),
  worktreeRoot: z.string().min(1),
  workspaceRoot: z.string().min(1),
  sourceHadChanges: z.boolean(),
  ownerAgentId: sessionId,
  createdAt: epochMs,
  state: z.enum(["active", "kept", "removed"]),
  changedFiles: count.exactOptional(),
  commits: count.exactOptional(),
  keptBecause: z.string().exactOptional(),
});

const zodRecord = z.object({
  schemaVersion: z.literal(SIDECAR_SCHEMA_VERSION),
  id: sessionId,
  subagentType: z.string().min(1),
  description: z.string(),
  prompt: z.string(),
  messages: z.array(messageSchema),
  status: z.enum(SIDECAR_STATUSES),
  result: resultSchema,
  background: z.boolean(),
  stats: z.object({ tokens: count, toolCalls: count, durationMs: z.number().nonnegative() }),
  createdAt: epochMs,
  lastActiveAt: epochMs,
  completedAt: epochMs.exactOptional(),
  queuedAt: epochMs.exactOptional(),
  processId: z.int().positive().exactOptional(),
  processIdentity: processIdentitySchema.exactOptional(),
  processGroups: z.array(processGroupSchema).exactOptional(),
  restartRecovery: z.object({ outcome: z.enum(["completed", "interrupted", "failed"]), recoveredAt: epochMs })
    .exactOptional(),
  parentSessionId: sessionId,
  parentProjectPath: z.string().min(1),
  providerAdmissionOwnerId: z.string().min(1).exactOptional(),
  rootAgentId: sessionId,
  resumedFrom: sessionId.exactOptional(),
  resumeDepth: count,
  configSnapshot: configSnapshotSchema,
  workspaceRoot: z.string().min(1),
  isolation,
  worktree: worktreeSchema.exactOptional(),
}).superRefine((r, ctx) => {
  // Lineage (docs/reference/task-tool.md): fresh = root is self at depth 0; resumed = a different source at depth ≥ 1.
  if (r.resumedFrom === undefined) {
    if (r.resumeDepth !== 0) {
      ctx.addIssue({ code: "custom", path: ["resumeDepth"], message: "must be 0 without resumedFrom" });
    }
    if (r.rootAgentId !== r.id) {
      ctx.addIssue({ code: "custom", path: ["rootAgentId"], message: "must equal id for a fresh run" });
    }
  } else {
    if (r.resumeDepth < 1) {
      ctx.addIssue({ code: "custom", path: ["resumeDepth"], message: "must be ≥ 1 when resumed" });
    }
    if (r.resumedFrom === r.id) {
      ctx.addIssue({ code: "custom", path: ["resumedFrom"], message: "must differ from id" });
    }
  }
});

type Path = (string | number)[];

/** Every path to a value inside `value` (objects and arrays walked). */
function pathsOf(value: unknown, path: Path = []): Path[] {
  if (typeof value !== "object" || value === null) return [path];
  const children = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [path, ...children.flatMap(([k, v]) => pathsOf(v, [...path, k]))];
}

function withValue(record: unknown, path: Path, value: unknown | typeof REMOVE): unknown {
  const copy = structuredClone(record) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === REMOVE) {
    if (Array.isArray(at)) at.splice(last as number, 1);
    else delete at[last];
  } else at[last] = value;
  return copy;
}

const REMOVE = Symbol("remove");
const REPLACEMENTS: unknown[] = [
  REMOVE,
  undefined,
  null,
  true,
  false,
  0,
  1,
  2,
  -1,
  1.5,
  2 ** 53,
  "",
  "x",
  ".",
  "..",
  "agent-ok",
  "a/b",
  "ab".repeat(32),
  "AB".repeat(32),
  "0123456789abcdef0123456789abcdef01234567",
  "running",
  "worktree",
  "linux",
  "yolo",
  "pass",
  "kept",
  "text",
  "tool_call",
  [],
  ["x"],
  [1],
  {},
  { a: 1 },
];

function records(): unknown[] {
  const fresh = sidecarFixture("agent-fresh");
  const full = fullSidecarFixture("agent-full");
  const extra = fullSidecarFixture("agent-extra", {
    messages: [{
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "tool_call", id: "c", name: "Read", input: {}, inputError: "bad json" },
      ],
    }],
    processGroups: [{ pgid: 4100, identity: { platform: "linux", fingerprint: "cd".repeat(32) } }],
    configSnapshot: {
      ...fresh.configSnapshot,
      tools: ["Read"],
      maxTurns: null,
      mcpServers: ["srv", { s: {} }],
      rules: { allow: ["Read"], deny: ["Bash(rm:*)"], ask: [], limits: [["Bash(git:*)", "Task"]] },
    },
    queuedAt: 5,
  });
  return [fresh, full, extra];
}

Deno.test("the sidecar check accepts and refuses what the zod schema did, for every field of the fixtures", () => {
  let compared = 0;
  for (const record of records()) {
    assert.equal(SidecarRecordSchema.safeParse(record).success, true);
    for (const path of pathsOf(record)) {
      for (const value of path.length === 0 ? [null, "x", []] : REPLACEMENTS) {
        const candidate = path.length === 0 ? value : withValue(record, path, value);
        const want = zodRecord.safeParse(candidate);
        const got = SidecarRecordSchema.safeParse(candidate);
        const what = `${path.join(".")} = ${typeof value === "symbol" ? "(removed)" : JSON.stringify(value)}`;
        assert.equal(got.success, want.success, what);
        if (!want.success && !got.success) {
          assert.deepEqual(got.error.issues[0]!.path, want.error.issues[0]!.path, what);
        }
        compared++;
      }
    }
  }
  assert.ok(compared > 5000, `only ${compared} cases`);
});

Deno.test("the sidecar check: lineage rules and unknown fields, as the zod schema", () => {
  const fresh = sidecarFixture("agent-a");
  const cases: unknown[] = [
    { ...fresh, resumeDepth: 1 },
    { ...fresh, rootAgentId: "agent-b" },
    { ...fresh, resumedFrom: "agent-b", resumeDepth: 0 },
    { ...fresh, resumedFrom: "agent-a", resumeDepth: 1 },
    { ...fresh, resumedFrom: "agent-b", resumeDepth: 1, rootAgentId: "agent-b" },
    { ...fresh, futureField: { nested: true } },
    { ...fresh, result: { ...fresh.result, futureResultField: 1 } },
  ];
  for (const c of cases) {
    const want = zodRecord.safeParse(c);
    const got = SidecarRecordSchema.safeParse(c);
    assert.equal(got.success, want.success, JSON.stringify(c).slice(0, 200));
    if (!want.success && !got.success) {
      assert.deepEqual(got.error.issues[0], {
        path: want.error.issues[0]!.path,
        message: want.error.issues[0]!.message,
      });
    }
  }
});
