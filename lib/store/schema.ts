// Owns the sidecar record format, schema v2 (docs/reference/sidecars.md): the record's types and its
// one check (types, not interfaces: a record is also a JSON object; written with lib/protocol/check.ts rather than zod, which would cost every delegation
// its evaluation; schema_test.ts compares it with the zod schema it replaced over a table of records).
// Does not read or write files (file_store.ts), decode text (codec.ts) or migrate v1 (legacy.ts).

import type { Message } from "../protocol/messages.ts";
import type { ProcessIdentity } from "../sys/process.ts";
import { PERMISSION_MODES, type PermissionMode } from "../protocol/permission_mode.ts";
import { type Effort, EFFORTS } from "../protocol/effort.ts";
import { SESSION_ID_PATTERN } from "../protocol/ids.ts";
import {
  array,
  boolean,
  byField,
  type Check,
  nullable,
  number,
  object,
  oneOf,
  optional,
  type Parsed,
  parseWith,
  record,
  string,
  union,
} from "../protocol/check.ts";

export const SIDECAR_SCHEMA_VERSION = 2;

export const SIDECAR_STATUSES = ["running", "completed", "failed", "cancelled"] as const;
export type SidecarStatus = (typeof SIDECAR_STATUSES)[number];
export type TerminalStatus = Exclude<SidecarStatus, "running">;
export type Isolation = "none" | "worktree" | "remote";

/**
 * A process group a child's Bash started, recorded before the command runs: recovery kills the group
 * of an orphan only while its leader still has this identity (a reused PID is never signalled).
 */
export type RecordedGroup = {
  pgid: number;
  identity: ProcessIdentity;
};

export type VerificationVerdict = {
  verdict: "pass" | "fail" | "partial";
  summary?: string;
  findings?: string[];
};

export type SidecarResult = {
  success: boolean;
  message: string;
  error?: string;
  verificationCommands?: string[];
  verificationVerdict?: VerificationVerdict;
  modifiedFiles?: string[];
};

export type SidecarStats = {
  tokens: number;
  toolCalls: number;
  durationMs: number;
};

/**
 * One agent's own `hooks` (its file's frontmatter, Claude Code's format: lib/protocol/hook_config.ts),
 * with the agent's name and where it was defined.
 */
export type AgentHooks = { agent: string; where: string; hooks: Record<string, unknown> };

export type ConfigSnapshot = {
  name: string;
  description: string;
  systemPrompt: string;
  /** null = inherit every tool of the parent. */
  tools: string[] | null;
  disallowedTools: string[];
  model: string;
  /** The child's effort (the Agent call's, else its agent's); absent = the run's. */
  effort?: Effort;
  permissionMode: PermissionMode;
  /** null = the runtime's default limit. */
  maxTurns: number | null;
  skills: string[];
  /** The agent's `mcpServers` as written (names or inline definitions); absent = the parent's MCP tools. */
  mcpServers?: (string | Record<string, unknown>)[];
  isolation: Isolation;
  /** Where the definition came from (built-in, a user or project folder, `--agents`, legacy). */
  source: string;
  /**
   * The child's effective rules when it was launched (permissions/ceiling.ts childRulesOf: the run's,
   * with the deny rules and `tools` limits of every agent above it and its own), so a resume keeps
   * them. Absent in records written before they were frozen.
   */
  rules?: { allow: string[]; deny: string[]; ask: string[]; limits?: string[][] };
  /**
   * The agent hooks its runs fire besides the run's settings hooks (docs/guides/hooks.md): every agent
   * above it and its own, frozen at launch so a resume keeps them (a child never has fewer than its
   * parent). Absent: none.
   */
  hooks?: AgentHooks[];
};

/** The worktree lease of an isolated child (docs/reference/worktrees.md). Paths are canonical. */
export type WorktreeLease = {
  /** git's name of the worktree (`agent+<safe id>`). */
  name: string;
  branch: string;
  baseCommit: string;
  /** The parent checkout's branch when the worktree was made; null when its HEAD was detached. */
  originalBranch: string | null;
  repositoryRoot: string;
  originalWorkspaceRoot: string;
  worktreeRoot: string;
  /** worktreeRoot plus the parent's sub-directory offset. */
  workspaceRoot: string;
  /** The parent checkout had uncommitted changes, which the worktree (made from HEAD) does not have. */
  sourceHadChanges: boolean;
  /** The child that created the worktree; a resumed child keeps it. */
  ownerAgentId: string;
  createdAt: number;
  /** active while a run uses it; kept when a finish preserved it; removed once gone. */
  state: "active" | "kept" | "removed";
  /** When kept: files changed against the base (plus untracked) and commits on the branch. */
  changedFiles?: number;
  commits?: number;
  /** When kept: why (failure, changes, commits, or the git error that made the check uncertain). */
  keptBecause?: string;
};

/**
 * A remote child's placement: the snapshot of its parent's tree it started from, the worker that runs
 * it, and the result branch it left in the object store (docs/guides/remote.md). Commits are full ids.
 */
export type RemoteRun = {
  /** The parent's HEAD when the snapshot was taken (the result bundle's prerequisite). */
  baseCommit: string;
  /** A commit on top of baseCommit holding the parent's uncommitted changes (or baseCommit itself). */
  snapshotCommit: string;
  /** The parent's folder inside its repository ("" at the root). */
  subdir: string;
  /** The worker that runs (or ran) it: `<hostname>/<pid>`. */
  worker?: string;
  /** The branch the child's work is on, `blade/<agentId>`, once the worker uploaded it. */
  branch?: string;
  /** That branch's commit (the base commit itself when the child left nothing: no bundle then). */
  head?: string;
  /** Commits on that branch after the snapshot. */
  commits?: number;
  /** How many times a worker started it (a run redelivered after its worker died starts again once). */
  attempts?: number;
};

export type RestartRecovery = {
  outcome: "completed" | "interrupted" | "failed";
  recoveredAt: number;
};

/**
 * Schema v2. Unknown fields are allowed: stores validate with this schema but keep the decoded JSON as
 * it is, so fields a newer Blade wrote survive a load and re-save.
 */
export type SidecarRecord = {
  schemaVersion: typeof SIDECAR_SCHEMA_VERSION;
  id: string;
  subagentType: string;
  description: string;
  prompt: string;
  messages: Message[];
  status: SidecarStatus;
  result: SidecarResult;
  background: boolean;
  stats: SidecarStats;
  createdAt: number;
  lastActiveAt: number;
  completedAt?: number;
  /** Set while a running child waits for a free concurrency slot (listings show it as queued). */
  queuedAt?: number;
  processId?: number;
  processIdentity?: ProcessIdentity;
  /**
   * The hostname of the machine whose process owns the run: with a shared store (`--store nats://…`)
   * a PID means something only there (recovery/recovery.ts), and `blade tasks list` shows it.
   */
  machine?: string;
  /**
   * The project's key across machines (store/project_key.ts), recorded with a shared store so every
   * clone's `blade tasks list` selects the run whatever its checkout path; absent: the path decides.
   */
  projectKey?: string;
  /** The process groups the run's Bash started while it runs (cleared when it ends). */
  processGroups?: RecordedGroup[];
  restartRecovery?: RestartRecovery;
  parentSessionId: string;
  parentProjectPath: string;
  providerAdmissionOwnerId?: string;
  rootAgentId: string;
  resumedFrom?: string;
  resumeDepth: number;
  configSnapshot: ConfigSnapshot;
  workspaceRoot: string;
  isolation: Isolation;
  worktree?: WorktreeLease;
  /** Where a remote child (isolation "remote") ran and what it left (docs/guides/remote.md). */
  remote?: RemoteRun;
};

const sessionId = string({
  pattern: SESSION_ID_PATTERN,
  refine: (id) => id !== "." && id !== "..",
  message: "not a valid session id",
});
/** Epoch milliseconds: finite and not before 1970. */
const epochMs = number({ min: 0 });
const count = number({ int: true, min: 0 });
const nonEmpty = string({ min: 1 });
const text = string();
const texts = array(text);
const isolation = oneOf(["none", "worktree", "remote"]);

const messageCheck = object({
  role: oneOf(["user", "assistant", "system"]),
  content: array(byField("type", {
    text: object({ type: text, text }),
    tool_call: object({ type: text, id: text, name: text, input: record(), inputError: optional(text) }),
    tool_result: object({ type: text, callId: text, content: text, isError: boolean() }),
    thinking: object({ type: text, thinking: text, signature: text }),
  })),
  hidden: optional(boolean()),
});

const processIdentityCheck = object({
  platform: oneOf(["linux", "darwin", "win32"]),
  fingerprint: string({ pattern: /^[0-9a-f]{64}$/, message: "not a lowercase hex SHA-256" }),
});

const processGroupCheck = object({ pgid: number({ int: true, min: 2 }), identity: processIdentityCheck });

const resultCheck = object({
  success: boolean(),
  message: text,
  error: optional(text),
  verificationCommands: optional(texts),
  verificationVerdict: optional(object({
    verdict: oneOf(["pass", "fail", "partial"]),
    summary: optional(text),
    findings: optional(texts),
  })),
  modifiedFiles: optional(texts),
});

const configSnapshotCheck = object({
  name: text,
  description: text,
  systemPrompt: text,
  tools: nullable(texts),
  disallowedTools: texts,
  model: text,
  effort: optional(oneOf(EFFORTS)),
  permissionMode: oneOf(PERMISSION_MODES),
  maxTurns: nullable(number({ int: true, min: 1 })),
  skills: texts,
  mcpServers: optional(array(union(text, record()))),
  isolation,
  source: text,
  rules: optional(object({ allow: texts, deny: texts, ask: texts, limits: optional(array(texts)) })),
  hooks: optional(array(object({ agent: text, where: text, hooks: record() }))),
});

const worktreeCheck = object({
  name: nonEmpty,
  branch: nonEmpty,
  baseCommit: string({ pattern: /^[0-9a-f]{40,64}$/, message: "not a commit id" }),
  originalBranch: nullable(text),
  repositoryRoot: nonEmpty,
  originalWorkspaceRoot: nonEmpty,
  worktreeRoot: nonEmpty,
  workspaceRoot: nonEmpty,
  sourceHadChanges: boolean(),
  ownerAgentId: sessionId,
  createdAt: epochMs,
  state: oneOf(["active", "kept", "removed"]),
  changedFiles: optional(count),
  commits: optional(count),
  keptBecause: optional(text),
});

const commitId = string({ pattern: /^[0-9a-f]{40,64}$/, message: "not a commit id" });
const remoteCheck = object({
  baseCommit: commitId,
  snapshotCommit: commitId,
  subdir: text,
  worker: optional(nonEmpty),
  branch: optional(nonEmpty),
  head: optional(commitId),
  commits: optional(count),
  attempts: optional(count),
});

const recordCheck: Check = object({
  schemaVersion: oneOf([SIDECAR_SCHEMA_VERSION]),
  id: sessionId,
  subagentType: nonEmpty,
  description: text,
  prompt: text,
  messages: array(messageCheck),
  status: oneOf(SIDECAR_STATUSES),
  result: resultCheck,
  background: boolean(),
  stats: object({ tokens: count, toolCalls: count, durationMs: number({ min: 0 }) }),
  createdAt: epochMs,
  lastActiveAt: epochMs,
  completedAt: optional(epochMs),
  queuedAt: optional(epochMs),
  processId: optional(number({ int: true, min: 1 })),
  processIdentity: optional(processIdentityCheck),
  machine: optional(nonEmpty),
  projectKey: optional(nonEmpty),
  processGroups: optional(array(processGroupCheck)),
  restartRecovery: optional(
    object({ outcome: oneOf(["completed", "interrupted", "failed"]), recoveredAt: epochMs }),
  ),
  parentSessionId: sessionId,
  parentProjectPath: nonEmpty,
  providerAdmissionOwnerId: optional(nonEmpty),
  rootAgentId: sessionId,
  resumedFrom: optional(sessionId),
  resumeDepth: count,
  configSnapshot: configSnapshotCheck,
  workspaceRoot: nonEmpty,
  isolation,
  worktree: optional(worktreeCheck),
  remote: optional(remoteCheck),
}, {
  // Lineage (docs/reference/task-tool.md): fresh = root is self at depth 0; resumed = a different source at depth ≥ 1.
  refine: (r, add) => {
    if (r.resumedFrom === undefined) {
      if (r.resumeDepth !== 0) add({ path: ["resumeDepth"], message: "must be 0 without resumedFrom" });
      if (r.rootAgentId !== r.id) add({ path: ["rootAgentId"], message: "must equal id for a fresh run" });
    } else {
      if ((r.resumeDepth as number) < 1) add({ path: ["resumeDepth"], message: "must be ≥ 1 when resumed" });
      if (r.resumedFrom === r.id) add({ path: ["resumedFrom"], message: "must differ from id" });
    }
  },
});

/** The v2 record check: `safeParse` gives the record (declared fields only) or every issue found. */
export const SidecarRecordSchema = {
  safeParse: (value: unknown): Parsed<SidecarRecord> => parseWith<SidecarRecord>(recordCheck, value),
};

export function isTerminalStatus(status: SidecarStatus): status is TerminalStatus {
  return status !== "running";
}
