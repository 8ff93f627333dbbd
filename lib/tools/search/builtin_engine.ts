// Owns Grep's built-in search, for when ripgrep cannot run (docs/reference/search.md, "Grep"): the same
// findings as rg_engine.ts from TypeScript. The walk goes depth first, one folder listed whenever the
// files found so far are all searched, and skips what ignore_rules.ts says rg skips (its verdicts on a
// folder's entries need no I/O once the ignore files its listing shows are read). It opens only regular
// files (a symlink, FIFO, socket or device met in the walk is passed over, as rg --no-follow does, and
// a file is opened without waiting, Fs.readUpTo), up to GREP_MAX_FILE_BYTES, into one reused buffer,
// and file_search.ts searches the bytes (a file without the pattern's literal is dropped undecoded).
// Everything runs on this thread, synchronously under the port's promises: on Deno, handing reads or
// listings to other threads (async ops, helper Workers) cost more of this thread's time than it saved
// (docs/reference/performance.md, "Grep"). The deadline is checked between files. Memory is bounded by
// one folder's entries, the folders still to list and the findings kept.

import type { Fs } from "../../sys/fs.ts";
import { join } from "../../path.ts";
import { fsReason } from "../paths.ts";
import { isNotFound } from "../../sys/errors.ts";
import { IgnoreRules } from "./ignore_rules.ts";
import { fileSearcher } from "./file_search.ts";
import { GREP_MAX_FILE_BYTES, type GrepFindings, type GrepQuery, VCS_DIRS } from "./grep_query.ts";

/** The reused read buffer (files up to this size are read without allocating). */
const READ_BUFFER_BYTES = 256 * 1024;

/** The built-in search of `query` over the Fs port. Throws GrepRefusal for a pattern or type rg refuses. */
export async function builtinGrep(fs: Fs, query: GrepQuery): Promise<GrepFindings> {
  const search = fileSearcher(query);
  const findings: GrepFindings = { files: [], timedOut: false, unreadable: [] };
  const late = () => {
    if (query.signal.aborted || query.now() >= query.deadline) findings.timedOut = true;
    return findings.timedOut;
  };
  const failed = (path: string, e: unknown) => {
    if (!isNotFound(e)) findings.unreadable.push({ path, reason: fsReason(e) });
  };
  // One read at a time here, into one reused buffer: most files are dropped from it undecoded.
  const into = new Uint8Array(READ_BUFFER_BYTES);
  const read = async (path: string, explicit: boolean) => {
    try {
      const bytes = await fs.readUpTo(path, { maxBytes: GREP_MAX_FILE_BYTES, into });
      const found = bytes === null ? null : search({ path, bytes }, explicit);
      if (found !== null) findings.files.push(found);
    } catch (e) {
      failed(path, e);
    }
  };
  if (query.rootIsFile) {
    await read(query.root, true);
    return findings;
  }
  const rules = await IgnoreRules.open(fs, query.root, query);
  // The walk, depth first: a folder is listed (Fs.readDir) and its entries judged when no file found
  // so far is left to search; the deadline is checked between files.
  const dirs = [query.root];
  const files: string[] = [];
  const list = async (dir: string) => {
    try {
      const entries = await fs.readDir(dir);
      const verdict = await rules.folder(dir, entries.map((e) => e.name));
      for (const entry of entries) {
        // rg --no-follow: a symlink is passed over; so is a version control folder (or a worktree's file).
        if (entry.isSymlink || VCS_DIRS.includes(entry.name) || !entry.isDirectory && !entry.isFile) continue;
        const path = join(dir, entry.name);
        if (verdict(path, entry.isDirectory) === "keep") (entry.isDirectory ? dirs : files).push(path);
      }
    } catch (e) {
      failed(dir, e);
    }
  };
  while (!late()) {
    const path = files.pop();
    if (path !== undefined) await read(path, false);
    else if (dirs.length > 0) await list(dirs.pop()!);
    else break;
  }
  return findings;
}
