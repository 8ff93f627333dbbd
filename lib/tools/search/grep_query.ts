// Owns what one Grep search asks and what it finds, the same for both engines (docs/reference/search.md,
// "Grep"): ripgrep run as Claude Code runs it (rg_engine.ts) and the built-in search (builtin_engine.ts).
// An engine finds; grep_format.ts turns the findings into the tool's text. Pure, no I/O.

/** The folders Grep never searches (version control), as Claude Code excludes them. */
export const VCS_DIRS: readonly string[] = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];
/** Files larger than this are not searched (a generated blob, a log); rg --max-filesize. */
export const GREP_MAX_FILE_BYTES = 20 * 1024 * 1024;
/** A search stops here and answers with what it found, saying so (Grep over `/` must end). */
export const GREP_TIME_LIMIT_MS = 20_000;

export type GrepMode = "content" | "files_with_matches" | "count";

export interface GrepQuery {
  pattern: string;
  /** Real absolute path of the file or folder searched. */
  root: string;
  /** The root is a file (searched even when binary-looking, as rg searches a file it is given). */
  rootIsFile: boolean;
  mode: GrepMode;
  ignoreCase: boolean;
  multiline: boolean;
  onlyMatching: boolean;
  before: number;
  after: number;
  /** rg --glob values, in order (a leading `!` excludes). */
  globs: string[];
  /** rg --type. */
  type?: string;
  /** When the search must stop (epoch ms of `now()`). */
  deadline: number;
  now: () => number;
  signal: AbortSignal;
}

/** One output line of content mode: a match (`:`), a context line (`-`). */
export interface ContentLine {
  line: number;
  match: boolean;
  text: string;
}

export interface FileFinding {
  /** Absolute path as found below the root. */
  path: string;
  /** Matching lines (count mode), or 1 (files mode). */
  count: number;
  /** Content mode: the lines to show, in order. */
  lines?: ContentLine[];
  /** Content mode, a binary file given as the root: where its first NUL byte is. */
  binaryOffset?: number;
}

export interface GrepFindings {
  files: FileFinding[];
  /** The search stopped at its time limit: more may exist. */
  timedOut: boolean;
  /** Paths that exist but could not be read, and why. */
  unreadable: { path: string; reason: string }[];
}

/** A refusal of the search itself (a bad pattern, an unknown type): the tool's error text. */
export class GrepRefusal extends Error {}

/** The `glob` input as rg globs: split on white space, and on commas outside braces (Claude Code's reading). */
export function splitGlobs(glob: string | undefined): string[] {
  if (glob === undefined) return [];
  const out: string[] = [];
  for (const part of glob.split(/\s+/)) {
    if (part === "") continue;
    if (part.includes("{") && part.includes("}")) out.push(part);
    else out.push(...part.split(",").filter((p) => p !== ""));
  }
  return out;
}
