// A child run's first sidecar record, fresh or resumed: running, owned by the parent's session and
// process, no result yet. Pure: the caller passes `now` and the process identity (launch_plan.ts).

import type { ProcessIdentity } from "../sys/process.ts";
import type { Lineage } from "../protocol/events.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { TaskRequest } from "../tools/task.ts";
import type { ResumePlan } from "./resume_plan.ts";

/** The process that owns a run: recorded in the sidecar so liveness can be checked later. */
export interface OwnProcess {
  pid: number;
  identity: ProcessIdentity | null;
  /** The machine it runs on ("" unknown): a shared store's records from elsewhere are told apart by it. */
  machine?: string;
  /**
   * The project it works in as every machine names it (store/project_key.ts): set with a shared store
   * only, so the file store's records stay as they were.
   */
  projectKey?: string;
}

/** Who owns a new run: the parent session (owner key) and its process. */
export interface RecordOwner {
  sessionId: string;
  projectPath: string;
  process: OwnProcess;
}

/** The new run's record: the source's frozen config, messages, workspace, isolation; lineage from it. */
export function resumedRecord(
  input: Pick<TaskRequest, "subagent_session_id" | "description" | "prompt" | "run_in_background">,
  o: { plan: ResumePlan; parent: RecordOwner; now: number },
): SidecarRecord {
  const { plan, parent, now } = o;
  return runningRecord({
    id: input.subagent_session_id,
    subagentType: plan.subagentType,
    description: input.description,
    prompt: input.prompt,
    messages: plan.messages,
    background: input.run_in_background === true || plan.isolation === "remote",
    lineage: plan.lineage,
    configSnapshot: plan.config,
    workspaceRoot: plan.workspaceRoot,
    isolation: plan.isolation,
    ...(plan.providerAdmissionOwnerId === undefined
      ? {}
      : { providerAdmissionOwnerId: plan.providerAdmissionOwnerId }),
    ...(plan.worktree === undefined ? {} : { worktree: plan.worktree }),
  }, { parent, now });
}

/** What differs between a fresh and a resumed run's first record; the rest is the same for both. */
type RunFields =
  & Pick<
    SidecarRecord,
    | "id"
    | "subagentType"
    | "description"
    | "prompt"
    | "messages"
    | "background"
    | "configSnapshot"
    | "workspaceRoot"
    | "isolation"
  >
  & Partial<Pick<SidecarRecord, "providerAdmissionOwnerId" | "worktree">>
  & { lineage: Lineage };

/** A run's first record: running, owned by `parent`'s session and process, no result yet. */
export function runningRecord(f: RunFields, o: { parent: RecordOwner; now: number }): SidecarRecord {
  const { parent, now } = o;
  const { lineage, ...fields } = f;
  return {
    schemaVersion: 2,
    ...fields,
    status: "running",
    result: { success: false, message: "" },
    stats: { tokens: 0, toolCalls: 0, durationMs: 0 },
    createdAt: now,
    lastActiveAt: now,
    processId: parent.process.pid,
    ...(parent.process.identity === null ? {} : { processIdentity: parent.process.identity }),
    ...(parent.process.machine ? { machine: parent.process.machine } : {}),
    ...(parent.process.projectKey === undefined ? {} : { projectKey: parent.process.projectKey }),
    parentSessionId: parent.sessionId,
    parentProjectPath: parent.projectPath,
    rootAgentId: lineage.rootAgentId,
    ...(lineage.resumedFrom === undefined ? {} : { resumedFrom: lineage.resumedFrom }),
    resumeDepth: lineage.resumeDepth,
  };
}
