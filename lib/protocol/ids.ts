// Owns session/agent id validation (SPEC §7): checked before any path is built from an id.

import { BladeError } from "../errors.ts";

const ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

export function isValidSessionId(id: string): boolean {
  return ID.test(id) && id !== "." && id !== "..";
}

export function validateSessionId(id: string): string {
  if (!isValidSessionId(id)) {
    const shown = JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
    throw new BladeError("invalid_session_id", `Invalid session ID: ${shown}`, {
      hint: "Session ids contain only letters, digits, `_`, `-` and `.`, at most 200 characters.",
    });
  }
  return id;
}
