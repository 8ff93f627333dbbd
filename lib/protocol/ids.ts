// Owns session/agent id validation (docs/reference/sidecars.md): the one check every store, command and tool runs
// before it builds a path from an id. Does not generate ids (lib/sys/ids.ts does). No I/O.

import { BladeError } from "../errors.ts";

/** A session or child id: safe as a file name, never `.`/`..`, at most 200 characters. */
export const SESSION_ID_PATTERN: RegExp = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

export function isValidSessionId(id: unknown): id is string {
  return typeof id === "string" && id !== "." && id !== ".." && SESSION_ID_PATTERN.test(id);
}

/** Returns `id` when it is a valid session id; throws BladeError `invalid_session_id` otherwise. */
export function validateSessionId(id: unknown): string {
  if (isValidSessionId(id)) return id;
  const shown = (JSON.stringify(id) ?? String(id)).slice(0, 80);
  throw new BladeError("invalid_session_id", `Invalid session ID: ${shown}`, {
    hint: "Session ids use letters, digits, '.', '_' and '-' (at most 200 characters).",
  });
}
