// Owns listing a folder that usually does not exist (a project without `.claude/rules`, a user without
// skills): a stat first (synchronous in the Fs port, microseconds) so a missing folder costs no
// asynchronous read on the way to the first model request. Used by memory, skills, commands and styles.

import type { DirEntry, Fs } from "../sys/fs.ts";

/** The folder's entries, or none when it is missing, not a folder or unreadable. */
export async function folderEntries(fs: Fs, dir: string): Promise<DirEntry[]> {
  const info = await fs.stat(dir).catch(() => null);
  if (info?.isDirectory !== true) return [];
  return await fs.readDir(dir).catch(() => []);
}
