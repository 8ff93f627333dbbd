// Owns the decision of resuming a child run (docs/guides/subagents.md, "Resume and lineage"), purely:
// given the source's stored record and the request, either the plan of the new run — a new id, the
// source's frozen config snapshot (never the agent's current definition), its messages, workspace,
// isolation and worktree lease, its provider admission owner, and lineage (root = source's root,
// resumedFrom = source, depth = source depth + 1) — or the one rejection that applies, with the id in
// its message. The source record is never changed. Launching the planned run is subagents.ts's job;
// restoring a worktree lease is the worktree layer's (`restoreIsolation`).

import type { Lineage } from "../protocol/events.ts";
import type { Message } from "../protocol/messages.ts";
import type { LoadResult } from "../store/codec.ts";
import type { ConfigSnapshot, SidecarRecord, WorktreeLease } from "../store/schema.ts";
import { rootHere, sameProject } from "../store/project_key.ts";

export interface ResumeRequest {
  sourceId: string;
  newId: string;
  /** The call's subagent_type, when it names one (it may be omitted: the source's is inherited). */
  explicitType?: string;
  /**
   * Who may see the source: a parent session in a folder, or (the CLI) any run of a folder; with a
   * shared store, the folder's project key too (store/project_key.ts `sameProject`: a run another clone
   * of the repository started is this folder's).
   */
  visibleTo: { parentSessionId?: string; projectPath: string; projectKey?: string | undefined };
}

/** What the isolation layer must do before the resumed child runs. */
export type RestoreIsolation =
  | { kind: "none" }
  /** Check the source's worktree lease against git state and take it over (filled in by the worktree layer). */
  | { kind: "worktree"; lease: WorktreeLease | undefined };

export interface ResumePlan {
  id: string;
  source: SidecarRecord;
  subagentType: string;
  config: ConfigSnapshot;
  messages: Message[];
  workspaceRoot: string;
  isolation: ConfigSnapshot["isolation"];
  worktree: WorktreeLease | undefined;
  providerAdmissionOwnerId: string | undefined;
  lineage: Required<Lineage>;
  restoreIsolation: RestoreIsolation;
}

export type ResumeRejection =
  | "not_found"
  | "running"
  | "type_mismatch"
  | "recovery_failed"
  | "same_id"
  | "id_exists"
  | "other_checkout";

export type ResumeDecision =
  | { ok: true; plan: ResumePlan }
  | { ok: false; code: ResumeRejection; message: string };

/**
 * Decides a resume. `source` is the store's answer for the source id (null = no such record);
 * `newIdTaken` whether a record with the new id exists already.
 */
export function planResume(
  req: ResumeRequest,
  found: { source: LoadResult | null; newIdTaken: boolean },
): ResumeDecision {
  const { source, newIdTaken } = found;
  const id = req.sourceId;
  const no = (code: ResumeRejection, message: string): ResumeDecision => ({ ok: false, code, message });
  if (req.newId === id) {
    return no("same_id", `Cannot resume "${id}": the new run needs its own id, not the source's.`);
  }
  if (source === null || !("record" in source) || !sourceVisible(source.record, req.visibleTo)) {
    return no("not_found", `Cannot resume "${id}": session not found in this workspace.`);
  }
  const s = source.record;
  if (s.status === "running") {
    return no("running", `Cannot resume "${id}": it is still running; wait for it or stop it with TaskStop.`);
  }
  if (req.explicitType !== undefined && req.explicitType !== s.subagentType) {
    return no(
      "type_mismatch",
      `Cannot resume "${id}" with subagent_type "${req.explicitType}": source agent used "${s.subagentType}".`,
    );
  }
  if (s.restartRecovery?.outcome === "failed") {
    return no(
      "recovery_failed",
      `Cannot resume "${id}": its restart recovery failed, so its history cannot be trusted` +
        (s.result.error === undefined ? "." : ` (${s.result.error})`),
    );
  }
  if (newIdTaken) {
    return no("id_exists", `Cannot resume "${id}": a session with the new id "${req.newId}" already exists.`);
  }
  // A run another clone started (same project key, another path) goes on in this checkout: its
  // workspace is found here by its place in the folder; a worktree exists only where it was made.
  const here = req.visibleTo.projectPath;
  const workspaceRoot = s.isolation === "worktree" && s.parentProjectPath !== here
    ? undefined
    : rootHere(s, here);
  if (workspaceRoot === undefined) {
    return no(
      "other_checkout",
      `Cannot resume "${id}" here: it worked in ${s.workspaceRoot}, ` +
        `a worktree of the checkout at ${s.parentProjectPath}${s.machine ? ` on ${s.machine}` : ""}. ` +
        `Resume it from that checkout.`,
    );
  }
  return {
    ok: true,
    plan: {
      id: req.newId,
      source: s,
      subagentType: s.subagentType,
      config: structuredClone(s.configSnapshot),
      messages: structuredClone(s.messages),
      workspaceRoot,
      isolation: s.isolation,
      worktree: s.worktree === undefined ? undefined : { ...s.worktree },
      providerAdmissionOwnerId: s.providerAdmissionOwnerId,
      lineage: { rootAgentId: s.rootAgentId, resumedFrom: s.id, resumeDepth: s.resumeDepth + 1 },
      restoreIsolation: s.isolation === "worktree"
        ? { kind: "worktree", lease: s.worktree }
        : { kind: "none" },
    },
  };
}

/**
 * Whether `who` may resume (or see for a resume) the run `r`: its project's (store/project_key.ts
 * `sameProject`) and, when a session asks, that session's own.
 */
export function sourceVisible(r: SidecarRecord, who: ResumeRequest["visibleTo"]): boolean {
  if (!sameProject(r, { path: who.projectPath, key: who.projectKey })) return false;
  return who.parentSessionId === undefined || r.parentSessionId === who.parentSessionId;
}
