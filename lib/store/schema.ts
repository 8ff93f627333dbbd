// Owns the sidecar record format, schema v2 (docs/reference/sidecars.md): one zod schema, the record type inferred from
// it. Does not read or write files (file_store.ts), decode text (codec.ts) or migrate v1 (legacy.ts).

import { z } from "zod";
import type { Message } from "../protocol/messages.ts";
import type { ProcessIdentity } from "../sys/process.ts";
import { PERMISSION_MODES } from "../protocol/permission_mode.ts";
import { SESSION_ID_PATTERN } from "../protocol/ids.ts";

export const SIDECAR_SCHEMA_VERSION = 2;

export const SIDECAR_STATUSES = ["running", "completed", "failed", "cancelled"] as const;
export type SidecarStatus = (typeof SIDECAR_STATUSES)[number];
export type TerminalStatus = Exclude<SidecarStatus, "running">;

const sessionId = z.string().regex(SESSION_ID_PATTERN, "not a valid session id")
  .refine((id) => id !== "." && id !== "..", "not a valid session id");
/** Epoch milliseconds: finite (zod 4 numbers reject ±Infinity and NaN) and not before 1970. */
const epochMs = z.number().nonnegative();
const count = z.int().nonnegative();
const isolation = z.enum(["none", "worktree"]);

const messageSchema = z.object({
  role: z.enum(["user", "assistant"]),
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
}) satisfies z.ZodType<Message>;

const processIdentitySchema = z.object({
  platform: z.enum(["linux", "darwin", "win32"]),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/, "not a lowercase hex SHA-256"),
}) satisfies z.ZodType<ProcessIdentity>;

/**
 * A process group a child's Bash started, recorded before the command runs: recovery kills the group
 * of an orphan only while its leader still has this identity (a reused PID is never signalled).
 */
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
  /** null = inherit every tool of the parent. */
  tools: z.array(z.string()).nullable(),
  disallowedTools: z.array(z.string()),
  model: z.string(),
  permissionMode: z.enum(PERMISSION_MODES),
  /** null = the runtime's default limit. */
  maxTurns: z.int().min(1).nullable(),
  skills: z.array(z.string()),
  /** The agent's `mcpServers` as written (names or inline definitions); absent = the parent's MCP tools. */
  mcpServers: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])).exactOptional(),
  isolation,
  /** Where the definition came from (built-in, a user or project folder, `--agents`, legacy). */
  source: z.string(),
});

/** The worktree lease of an isolated child (docs/reference/worktrees.md). Paths are canonical. */
const worktreeSchema = z.object({
  /** git's name of the worktree (`agent+<safe id>`). */
  name: z.string().min(1),
  branch: z.string().min(1),
  baseCommit: z.string().regex(/^[0-9a-f]{40,64}$/, "not a commit id"),
  /** The parent checkout's branch when the worktree was made; null when its HEAD was detached. */
  originalBranch: z.string().nullable(),
  repositoryRoot: z.string().min(1),
  originalWorkspaceRoot: z.string().min(1),
  worktreeRoot: z.string().min(1),
  /** worktreeRoot plus the parent's sub-directory offset. */
  workspaceRoot: z.string().min(1),
  /** The parent checkout had uncommitted changes, which the worktree (made from HEAD) does not have. */
  sourceHadChanges: z.boolean(),
  /** The child that created the worktree; a resumed child keeps it. */
  ownerAgentId: sessionId,
  createdAt: epochMs,
  /** active while a run uses it; kept when a finish preserved it; removed once gone. */
  state: z.enum(["active", "kept", "removed"]),
  /** When kept: files changed against the base (plus untracked) and commits on the branch. */
  changedFiles: count.exactOptional(),
  commits: count.exactOptional(),
  /** When kept: why (failure, changes, commits, or the git error that made the check uncertain). */
  keptBecause: z.string().exactOptional(),
});

/**
 * Schema v2. Unknown fields are allowed: stores validate with this schema but keep the decoded JSON as
 * it is, so fields a newer Blade wrote survive a load and re-save.
 */
export const SidecarRecordSchema = z.object({
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
  /** Set while a running child waits for a free concurrency slot (listings show it as queued). */
  queuedAt: epochMs.exactOptional(),
  processId: z.int().positive().exactOptional(),
  processIdentity: processIdentitySchema.exactOptional(),
  /** The process groups the run's Bash started while it runs (cleared when it ends). */
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

export type SidecarRecord = z.infer<typeof SidecarRecordSchema>;
export type SidecarResult = SidecarRecord["result"];
export type SidecarStats = SidecarRecord["stats"];
export type ConfigSnapshot = SidecarRecord["configSnapshot"];
export type WorktreeLease = z.infer<typeof worktreeSchema>;
export type VerificationVerdict = z.infer<typeof verdictSchema>;
export type RecordedGroup = z.infer<typeof processGroupSchema>;
export type RestartRecovery = NonNullable<SidecarRecord["restartRecovery"]>;

export function isTerminalStatus(status: SidecarStatus): status is TerminalStatus {
  return status !== "running";
}
