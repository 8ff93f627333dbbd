// Owns the recursive file walk Glob and Grep share, over the Fs port: sorted, skips chosen folder
// names, never follows symlinked folders (no cycles), tolerates unreadable folders, stops on abort.
// Does not match patterns (protocol/glob_pattern.ts) or read file contents.

import { join } from "node:path";
import type { Fs } from "../sys/fs.ts";

/** Folders the walk skips unless a pattern names them. */
export const NOISE_DIRS: readonly string[] = [".git", "node_modules"];

export interface WalkOptions {
  /** Folder names never descended into. */
  skipDirs?: ReadonlySet<string>;
  /** Called with each folder's relative path; false prunes it. */
  enterDir?: (rel: string) => boolean;
  signal?: AbortSignal;
}

export interface WalkedFile {
  /** Absolute path (the walk root joined with `rel`). */
  path: string;
  /** Path relative to the walk root, `/`-separated. */
  rel: string;
}

/** The noise folders a pattern does not mention, to be skipped. */
export function skippedNoiseDirs(...patterns: (string | undefined)[]): Set<string> {
  return new Set(NOISE_DIRS.filter((d) => !patterns.some((p) => p !== undefined && p.includes(d))));
}

/** Every file below `root` (files reached through symlinks included), in sorted order. */
export async function* walkFiles(
  fs: Fs,
  root: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkedFile> {
  const stack: string[] = [""];
  while (stack.length > 0) {
    if (options.signal?.aborted) return;
    const relDir = stack.pop()!;
    let entries;
    try {
      entries = await fs.readDir(relDir === "" ? root : join(root, relDir));
    } catch {
      continue; // unreadable or vanished folder
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      let isFile = entry.isFile;
      let isDirectory = entry.isDirectory;
      if (entry.isSymlink) {
        const target = await fs.stat(join(root, rel)).catch(() => null);
        isFile = target?.isFile ?? false;
        isDirectory = false; // never follow symlinked folders
      }
      if (isFile) yield { path: join(root, rel), rel };
      else if (isDirectory && !options.skipDirs?.has(entry.name) && (options.enterDir?.(rel) ?? true)) {
        subdirs.push(rel);
      }
    }
    // Reverse so the stack pops folders in sorted order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}
