// Owns how a session id becomes a NATS KV key and back. Session ids may hold '.', which NATS reads as
// a token separator ("a..b" is no key at all), so '.' is written as '=' — a character no session id
// has, so the mapping is one to one. Pure.

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
