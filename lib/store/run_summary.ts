// Owns a run's summary (docs/reference/sidecars.md, "The run index"): the fields of a sidecar that
// `blade tasks list` prints, sorts and filters by, and that `blade tasks clean` needs to remove a run
// and its files; never the prompt, messages, result or config. Also the run index file's text: its
// encoding and a decoding that fails closed (anything unexpected means "rebuild"). Pure, no I/O: the
// index itself lives in run_index.ts.

import {
  array,
  boolean,
  type Check,
  number,
  object,
  oneOf,
  optional,
  parseWith,
  string,
} from "../protocol/check.ts";
import { SESSION_ID_PATTERN } from "../protocol/ids.ts";
import { SIDECAR_STATUSES, type SidecarRecord, type SidecarStatus, type WorktreeLease } from "./schema.ts";

export interface RunSummary {
  id: string;
  status: SidecarStatus;
  subagentType: string;
  description: string;
  background: boolean;
  createdAt: number;
  lastActiveAt: number;
  /** A running record still waiting for a concurrency slot. */
  queuedAt?: number;
  parentSessionId: string;
  parentProjectPath: string;
  workspaceRoot: string;
  resumedFrom?: string;
  resumeDepth: number;
  worktree?: Pick<WorktreeLease, "state" | "worktreeRoot" | "branch">;
  /** The machine that launched it (a shared store's runs; `blade tasks list` shows a MACHINE column). */
  machine?: string;
  /** The project's key across machines (project_key.ts): with a shared store, listings select by it. */
  projectKey?: string;
}

/** The run index file's format; another number (an older or newer Blade's) means rebuild. */
export const RUN_INDEX_VERSION = 1;

/**
 * `record`'s summary, field by field and in the index file's field order (so two summaries of the same
 * record compare equal as JSON). A SidecarRecord is itself a RunSummary, with more fields.
 */
export function summarize(record: SidecarRecord): RunSummary {
  const out = {
    id: record.id,
    status: record.status,
    subagentType: record.subagentType,
    description: record.description,
    background: record.background,
    createdAt: record.createdAt,
    lastActiveAt: record.lastActiveAt,
  } as RunSummary;
  if (record.queuedAt !== undefined) out.queuedAt = record.queuedAt;
  out.parentSessionId = record.parentSessionId;
  out.parentProjectPath = record.parentProjectPath;
  out.workspaceRoot = record.workspaceRoot;
  if (record.resumedFrom !== undefined) out.resumedFrom = record.resumedFrom;
  out.resumeDepth = record.resumeDepth;
  const w = record.worktree;
  if (w !== undefined) out.worktree = { state: w.state, worktreeRoot: w.worktreeRoot, branch: w.branch };
  if (record.machine !== undefined) out.machine = record.machine;
  if (record.projectKey !== undefined) out.projectKey = record.projectKey;
  return out;
}

/** Most recently active first; ties by id, so a listing is stable (as byRecentActivity for records). */
export function byActivity(a: RunSummary, b: RunSummary): number {
  return b.lastActiveAt - a.lastActiveAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

const text = string();
const nonEmpty = string({ min: 1 });
const epochMs = number({ min: 0 });
const id = string({ pattern: SESSION_ID_PATTERN });

const summaryCheck: Check = object({
  id,
  status: oneOf(SIDECAR_STATUSES),
  subagentType: nonEmpty,
  description: text,
  background: boolean(),
  createdAt: epochMs,
  lastActiveAt: epochMs,
  queuedAt: optional(epochMs),
  parentSessionId: id,
  parentProjectPath: nonEmpty,
  workspaceRoot: nonEmpty,
  resumedFrom: optional(id),
  resumeDepth: number({ int: true, min: 0 }),
  worktree: optional(
    object({ state: oneOf(["active", "kept", "removed"]), worktreeRoot: nonEmpty, branch: nonEmpty }),
  ),
  machine: optional(nonEmpty),
  projectKey: optional(nonEmpty),
});

const indexCheck: Check = object({ version: oneOf([RUN_INDEX_VERSION]), runs: array(summaryCheck) });

/** The index file's text: one summary a line, so a diff or a look with `less` stays readable. */
export function encodeRunIndex(runs: Iterable<RunSummary>): string {
  const lines = [...runs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((r) =>
    JSON.stringify(r)
  );
  return `{"version":${RUN_INDEX_VERSION},"runs":[\n${lines.join(",\n")}\n]}\n`;
}

/** The summaries of an index file's text, or null when it is not one this version wrote whole. */
export function decodeRunIndex(text: string): Map<string, RunSummary> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = parseWith<{ runs: RunSummary[] }>(indexCheck, value);
  if (!parsed.success) return null;
  const out = new Map<string, RunSummary>();
  for (const run of parsed.data.runs) {
    if (out.has(run.id)) return null;
    out.set(run.id, run);
  }
  return out;
}
