// Owns the Diagnostic record every registry loader returns instead of throwing for one bad file.
// Does not render diagnostics: cli/ decides how they look.

export type DiagnosticSeverity = "error" | "warning" | "info";

/** One finding about one agent source: what is wrong, where, and how to fix it. */
export interface Diagnostic {
  /** File path, `builtin:<file>` for embedded agents, or `--agents`. */
  file: string;
  /** 1-based line in the file, when known. */
  line?: number;
  severity: DiagnosticSeverity;
  /** The frontmatter field concerned, when there is one. */
  field?: string;
  message: string;
  /** What to do about it. */
  hint?: string;
}

export interface DiagnosticFields {
  line?: number | undefined;
  field?: string | undefined;
  hint?: string | undefined;
}

const MAX_MESSAGE = 300;

/** Builds a Diagnostic with a stable key order, leaving out optional keys that are undefined. */
export function diagnostic(
  severity: DiagnosticSeverity,
  file: string,
  message: string,
  fields: DiagnosticFields = {},
): Diagnostic {
  return {
    file,
    ...(fields.line === undefined ? {} : { line: fields.line }),
    severity,
    ...(fields.field === undefined ? {} : { field: fields.field }),
    // A message may quote a file's value (a 20 KB list, a whole line): bounded, so a report stays readable.
    message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}… (cut)` : message,
    ...(fields.hint === undefined ? {} : { hint: fields.hint }),
  };
}

/** Counts diagnostics per severity. */
export function countDiagnostics(diagnostics: readonly Diagnostic[]): Record<DiagnosticSeverity, number> {
  const counts = { error: 0, warning: 0, info: 0 };
  for (const d of diagnostics) counts[d.severity]++;
  return counts;
}
