// Owns the sidecar text format: decoding a file's text into a validated record or a diagnostic
// (fail closed, never a throw, never a half record) and encoding a record as pretty JSON. Does not
// touch the file system.

import { BladeError } from "../errors.ts";
import { validateSessionId } from "../protocol/ids.ts";
import { isLegacyRecord, normaliseLegacy } from "./legacy.ts";
import { type SidecarRecord, SidecarRecordSchema } from "./schema.ts";

export type SidecarDiagnosticCode =
  | "unreadable"
  | "invalid_json"
  | "id_mismatch"
  | "unsupported_version"
  | "invalid_record"
  | "not_a_file"
  | "too_large"
  | "invalid_file_name";

/** Why a stored sidecar could not be used. `file` is set by stores that keep files. */
export interface SidecarDiagnostic {
  id: string;
  code: SidecarDiagnosticCode;
  message: string;
  file?: string;
}

/** `legacy` tells callers the record was migrated from v1 in memory (the file is unchanged). */
export type LoadResult = { record: SidecarRecord; legacy: boolean } | { diagnostic: SidecarDiagnostic };

/** Decodes the stored text of sidecar `id`. */
export function decodeSidecar(text: string, id: string): LoadResult {
  const bad = (code: SidecarDiagnosticCode, why: string) => ({
    diagnostic: { id, code, message: `Sidecar ${JSON.stringify(id)} ${why}` },
  });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return bad("invalid_json", `is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return bad("invalid_record", "is not a JSON object");
  }
  const fields = raw as Record<string, unknown>;
  if (fields["id"] !== id) {
    return bad(
      "id_mismatch",
      `holds id ${JSON.stringify(fields["id"]) ?? "(none)"}; it must match its file name`,
    );
  }
  const legacy = isLegacyRecord(fields);
  if (!legacy && fields["schemaVersion"] !== 2) {
    return bad(
      "unsupported_version",
      `has schemaVersion ${JSON.stringify(fields["schemaVersion"])} (expected 2)`,
    );
  }
  const candidate = legacy ? normaliseLegacy(fields) : fields;
  const parsed = SidecarRecordSchema.safeParse(candidate);
  if (!parsed.success) return bad("invalid_record", `is invalid: ${describeIssues(parsed.error.issues)}`);
  // Validated; keep the decoded object itself so unknown fields survive a re-save.
  return { record: candidate as SidecarRecord, legacy };
}

/** Pretty JSON + newline. Throws BladeError `invalid_session_id` / `invalid_sidecar` for bad records. */
export function encodeSidecar(record: SidecarRecord): string {
  validateSessionId(record.id);
  const parsed = SidecarRecordSchema.safeParse(record);
  if (!parsed.success) {
    throw new BladeError(
      "invalid_sidecar",
      `Refusing to write sidecar ${JSON.stringify(record.id)}: ${describeIssues(parsed.error.issues)}`,
    );
  }
  return `${JSON.stringify(record, null, 2)}\n`;
}

function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const shown = issues.slice(0, 3).map((i) => {
    const path = i.path.map(String).join(".");
    return path === "" ? i.message : `${path}: ${i.message}`;
  });
  const more = issues.length > 3 ? ` (+${issues.length - 3} more)` : "";
  return `${shown.join("; ")}${more}`;
}
