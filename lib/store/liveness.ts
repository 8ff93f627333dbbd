// Owns the liveness of a sidecar's owner process (docs/reference/sidecars.md) over the Process port: alive only if the
// PID answers and its start-time fingerprint still matches (a reused PID is dead); no PID = unknown.
// Does not decide what to do with orphans: recovery planning does.

import type { Process, ProcessIdentity } from "../sys/process.ts";

export type OwnerLiveness = "alive" | "dead" | "unknown";

/** The owner fields of a sidecar (or any record that names a process). */
export interface OwnerProcess {
  processId?: number;
  processIdentity?: ProcessIdentity;
}

/**
 * "alive": the PID answers with the recorded fingerprint. "dead": it does not answer, or answers with
 * another fingerprint (PID reuse). "unknown": no PID, or a PID recorded without a fingerprint that
 * still answers (it cannot be told apart from a reused PID).
 */
export async function ownerLiveness(process: Process, owner: OwnerProcess): Promise<OwnerLiveness> {
  const pid = owner.processId;
  if (pid === undefined) return "unknown";
  if (owner.processIdentity === undefined) return await process.isAlive(pid) ? "unknown" : "dead";
  return await process.isAlive(pid, owner.processIdentity) ? "alive" : "dead";
}

/** The owner fields for a record owned by the current process (identity left out when unreadable). */
export async function currentOwner(process: Process): Promise<OwnerProcess> {
  const processId = process.pid();
  const processIdentity = await process.identity(processId);
  return processIdentity === null ? { processId } : { processId, processIdentity };
}
