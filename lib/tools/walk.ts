// Owns the recursive file walk Glob and Grep share, over the Fs port: sorted, skips chosen folder
// names, never follows symlinked folders (no cycles), stops on abort. A folder that vanished mid-walk
// or a dangling link is simply absent; one that exists but cannot be read (EACCES, ELOOP, …) is skipped
// and reported (`unreadable`), the walk root included, so a search never says "nothing found" for
// what it could not look at.
// A symlinked file is yielded by its real path, and only when that path stays inside the walk's
// bounds (the search root, the workspace): a link out of them is skipped and reported, never read
// through (Deno checks the path as given, so reading the link would read its target unchecked).
// Paths a refusal (a Read deny rule) names are skipped and reported too. Does not match patterns
// (protocol/glob_pattern.ts) or read file contents.

import { join } from "../path.ts";
import type { Fs } from "../sys/fs.ts";
import { isNotFound } from "../sys/errors.ts";
import { fsReason } from "./paths.ts";
import { isInside } from "./real_path.ts";
import { plural } from "./text.ts";
import type { ToolContext } from "./tool.ts";

/** Folders the walk skips unless a pattern names them. */
export const NOISE_DIRS: readonly string[] = [".git", "node_modules"];

export interface WalkOptions {
  /** Folder names never descended into. */
  skipDirs?: ReadonlySet<string>;
  /** Called with each folder's relative path; false prunes it. */
  enterDir?: (rel: string) => boolean;
  signal?: AbortSignal;
  /** Checked before each folder: true stops the walk (a search's time limit). */
  stop?: () => boolean;
  /**
   * Real folders a symlinked file may lead into (besides `root` itself); a link whose target lies
   * outside all of them is skipped and reported. `root` must be a real path.
   */
  bounds?: readonly string[];
  /** Why the walk must not list or read this real path (a deny rule), or undefined. */
  refusal?: (realPath: string) => string | undefined;
  /** Told about each path the walk skipped for `bounds` or `refusal`. */
  onSkip?: (skip: WalkSkip) => void;
}

export type WalkSkip =
  /** A symlink whose target is outside the walk's bounds. */
  | { kind: "link"; rel: string; target: string }
  /** A path a refusal named; its name is not repeated (a deny rule hides names too). */
  | { kind: "refused"; reason: string }
  /** A folder, link or file that exists but could not be read; `reason` as fsReason gives it. */
  | { kind: "unreadable"; path: string; reason: string };

/** The skip for a path that exists but could not be read, or undefined when it is simply gone. */
export function unreadable(path: string, error: unknown): WalkSkip | undefined {
  return isNotFound(error) ? undefined : { kind: "unreadable", path, reason: fsReason(error) };
}

export interface WalkedFile {
  /** Absolute path (the walk root joined with `rel`), as shown. */
  path: string;
  /** The real path to read: a symlink's target, else `path`. */
  real: string;
  /** Path relative to the walk root, `/`-separated. */
  rel: string;
}

/** A search's walk options from its context: the workspace bounds its links, its rules refuse paths. */
export function searchBounds(
  ctx: Pick<ToolContext, "workspaceRoot" | "worktree" | "pathRefusal">,
  tool: string,
  onSkip: (skip: WalkSkip) => void,
): Pick<WalkOptions, "bounds" | "refusal" | "onSkip"> {
  const refusal = ctx.pathRefusal;
  return {
    bounds: [ctx.workspaceRoot, ...(ctx.worktree === undefined ? [] : [ctx.worktree.parentCheckout])],
    ...(refusal === undefined ? {} : { refusal: (path: string) => refusal(tool, path) }),
    onSkip,
  };
}

/** The noise folders a pattern does not mention, to be skipped. */
export function skippedNoiseDirs(...patterns: (string | undefined)[]): Set<string> {
  return new Set(NOISE_DIRS.filter((d) => !patterns.some((p) => p !== undefined && p.includes(d))));
}

/** Every file below `root` (files reached through symlinks inside its bounds included), in sorted order. */
export async function* walkFiles(
  fs: Fs,
  root: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkedFile> {
  const bounds = [root, ...options.bounds ?? []];
  const skip = (s: WalkSkip) => options.onSkip?.(s);
  const failed = (path: string, error: unknown) => {
    const skipped = unreadable(path, error);
    if (skipped !== undefined) skip(skipped);
  };
  const stack: string[] = [""];
  while (stack.length > 0) {
    if (options.signal?.aborted || options.stop?.() === true) return;
    const relDir = stack.pop()!;
    const dir = relDir === "" ? root : join(root, relDir);
    let entries;
    try {
      entries = await fs.readDir(dir);
    } catch (e) {
      failed(dir, e); // a folder that vanished since it was listed is just gone
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      const path = join(root, rel);
      let real = path;
      let isFile = entry.isFile;
      const isDirectory = entry.isDirectory && !entry.isSymlink; // never follow symlinked folders
      if (entry.isSymlink) {
        let target: string;
        try {
          target = await fs.realPath(path);
        } catch (e) {
          failed(path, e); // a dangling link has nothing to read
          continue;
        }
        if (!bounds.some((b) => isInside(target, b))) {
          skip({ kind: "link", rel, target });
          continue;
        }
        real = target;
        try {
          isFile = (await fs.stat(target))?.isFile ?? false;
        } catch (e) {
          failed(target, e);
          continue;
        }
      }
      if (!isFile && !isDirectory) continue;
      const refused = options.refusal?.(real);
      if (refused !== undefined) {
        skip({ kind: "refused", reason: refused });
        continue;
      }
      if (isFile) yield { path, real, rel };
      else if (!options.skipDirs?.has(entry.name) && (options.enterDir?.(rel) ?? true)) subdirs.push(rel);
    }
    // Reverse so the stack pops folders in sorted order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}

/** The tool error when the path a search was asked for could not be read itself, else undefined. */
export function unreadableRoot(skips: readonly WalkSkip[], root: string): string | undefined {
  const failed = skips.find((s) => s.kind === "unreadable" && s.path === root);
  return failed?.kind === "unreadable" ? `Cannot read ${root}: ${failed.reason}.` : undefined;
}

/** The note a search appends about what its walk skipped (empty when nothing was). */
export function skippedNote(skips: readonly WalkSkip[], max = 5): string {
  const links = skips.filter((s) => s.kind === "link");
  const refused = skips.filter((s) => s.kind === "refused");
  const failed = skips.filter((s) => s.kind === "unreadable");
  const parts: string[] = [];
  if (links.length > 0) {
    const shown = links.slice(0, max).map((l) => `${l.rel} -> ${l.target}`).join(", ");
    const more = links.length > max ? ` and ${links.length - max} more` : "";
    parts.push(
      `Not followed: ${
        plural(links.length, "symbolic link")
      } leading outside the workspace (${shown}${more}).`,
    );
  }
  if (refused.length > 0) {
    const reasons = [...new Set(refused.map((r) => r.reason))].join("; ");
    parts.push(`Not searched: ${plural(refused.length, "path")} refused by ${reasons}.`);
  }
  if (failed.length > 0) {
    const shown = failed.slice(0, max).map((f) => `${f.path}: ${f.reason}`).join("; ");
    const more = failed.length > max ? `; and ${failed.length - max} more` : "";
    parts.push(`Could not read ${plural(failed.length, "path")}: ${shown}${more}.`);
  }
  return parts.length === 0 ? "" : `\n(${parts.join(" ")})`;
}
