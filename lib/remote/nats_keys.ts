// Owns how a session id becomes a NATS KV key and back. Session ids may hold '.', which NATS reads as
// a token separator ("a..b" is no key at all), so '.' is written as '=' — a character no session id
// has, so the mapping is one to one. A record's key is one token; the running index's markers are
// `running.<key>` (two tokens), so the filter `*` lists records only and `running.*` markers only. Pure.

import { isValidSessionId } from "../protocol/ids.ts";

/** The KV key of a valid session id. */
export function keyOfId(id: string): string {
  return id.replaceAll(".", "=");
}

/** The session id a key stores, or null when the key is not one Blade wrote (a foreign writer's). */
export function idOfKey(key: string): string | null {
  const id = key.replaceAll("=", ".");
  return isValidSessionId(id) && keyOfId(id) === key ? id : null;
}

/** The filter that lists records' keys (one token each), not the running index's markers. */
export const RECORD_KEYS = "*";
/** The filter that lists the running index's markers. */
export const RUNNING_KEYS = "running.*";

/** The running index's marker of a valid session id: present while its record may be running. */
export function runningKeyOfId(id: string): string {
  return `running.${keyOfId(id)}`;
}

/** The session id a marker names, or null when it is not one Blade wrote. */
export function idOfRunningKey(key: string): string | null {
  return key.startsWith("running.") ? idOfKey(key.slice("running.".length)) : null;
}
