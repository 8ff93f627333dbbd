// Owns the files a child run leaves next to its sidecar (docs/reference/sidecars.md, "Cleaning"): its
// transcript, its inbox and the inbox's lock, its session lease and the lease's guard. `blade tasks
// clean` removes them with the run's sidecar, so a folder's storage does not grow with every run.
// Does not decide which runs go (TaskAdmin does) and never touches another run's files.

import type { Fs } from "../sys/fs.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { RunSummary } from "../store/run_summary.ts";
import { leasePath } from "../session/lease.ts";
import { isNotFound } from "../sys/errors.ts";

/** Every file of run `record` that exists, in the folders its parent's and its own workspace use. */
export async function runFiles(
  layout: StorageLayout,
  record: Pick<RunSummary, "id" | "parentProjectPath" | "workspaceRoot">,
): Promise<string[]> {
  const projects = [...new Set([record.parentProjectPath, record.workspaceRoot])];
  const out: string[] = [];
  for (const project of projects) {
    const lease = await leasePath(layout, project, record.id);
    out.push(
      layout.transcriptPath(project, record.id),
      layout.inboxPath(project, record.id),
      `${layout.inboxPath(project, record.id)}.lock`,
      lease,
      `${lease.slice(0, -".lock".length)}.guard`,
    );
  }
  return out;
}

/**
 * Removes the files of removed runs; returns what could not be removed (missing files are fine). Each
 * folder those files would be in is listed once, and only names found there are removed: cleaning
 * thousands of runs costs a listing per folder, not a failed remove per file that was never made.
 */
export async function removeRunFiles(
  fs: Fs,
  layout: StorageLayout,
  records: readonly Pick<RunSummary, "id" | "parentProjectPath" | "workspaceRoot">[],
): Promise<string[]> {
  const failed: string[] = [];
  const folders = new Map<string, Promise<Set<string>>>();
  const present = (dir: string) => {
    let names = folders.get(dir);
    if (names === undefined) {
      names = fs.readDir(dir).then((es) => new Set(es.map((e) => e.name)), () => new Set<string>());
      folders.set(dir, names);
    }
    return names;
  };
  for (const record of records) {
    for (const path of await runFiles(layout, record)) {
      const slash = path.lastIndexOf("/");
      if (!(await present(path.slice(0, slash))).has(path.slice(slash + 1))) continue;
      try {
        await fs.remove(path);
      } catch (e) {
        if (!isNotFound(e)) failed.push(`${path}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
  return failed;
}
