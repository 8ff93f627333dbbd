// Owns `blade tasks list`'s one listing of the records' folder (docs/reference/performance.md "Run
// listings"): the run index's listing names the runs that may be running; those are read again by id
// (fresh: a reconcile decides on the records, never on summaries) and reconciled, and the same listing
// is what is shown, unless the reconcile changed a run (or failed partway), when the folder is listed
// again so a run it ended is shown as it is now.

import type { RunListing, SidecarDiagnostic } from "../store/store.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { reconcile, type RecoveryDeps, type RecoveryReport, type RecoveryScope } from "./recovery.ts";

/** Reconciles `scope`'s orphans from one listing; returns the report and the listing to show. */
export async function reconcileListed(
  deps: RecoveryDeps,
  scope: RecoveryScope,
): Promise<{ report: RecoveryReport; listing: RunListing }> {
  const { store } = deps;
  const listed = await store.listSummaries();
  const records: SidecarRecord[] = [];
  const diagnostics: SidecarDiagnostic[] = [];
  for (const run of listed.runs) {
    if (run.status !== "running") continue;
    const loaded = await store.load(run.id);
    if (loaded === null) continue; // removed meanwhile
    if ("diagnostic" in loaded) diagnostics.push(loaded.diagnostic);
    else if (loaded.record.status === "running") records.push(loaded.record);
  }
  const report = await reconcile(deps, scope, { listing: { records, diagnostics } });
  // Nothing recovered and no problem beyond the unusable records listed: nothing was written.
  const wrote = report.recovered.length > 0 || report.problems.length > diagnostics.length;
  return { report, listing: wrote ? await store.listSummaries() : listed };
}
