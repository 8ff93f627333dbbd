// Owns the vocabulary of project memory (docs/guides/memory.md): one loaded instruction file, its kind
// (managed, user, project, local) and who imported it, and the labels Claude Code gives each kind.
// No I/O.

export type MemoryKind = "managed" | "user" | "project" | "local";

export interface MemoryFile {
  /** Absolute path as found (not resolved through symlinks). */
  path: string;
  kind: MemoryKind;
  /** The text, as read (line ends as in the file). */
  content: string;
  /** The file whose `@path` brought this one in; absent for a file found by its name. */
  importedBy?: string;
}

/** What a loader noticed and skipped: an import outside the allowed folders, a missing file, … */
export interface MemoryDiagnostic {
  path: string;
  message: string;
}

/** The note after a file's path in the model's context, as Claude Code 2.1.332 words it. */
export const MEMORY_LABELS: Readonly<Record<MemoryKind, string>> = {
  managed: "organization-managed policy instructions",
  user: "user's private global instructions for all projects",
  project: "project instructions, checked into the codebase",
  local: "user's private project instructions, not checked in",
};

/** A rough token count (4 characters a token), what `blade memory` and /memory show. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
