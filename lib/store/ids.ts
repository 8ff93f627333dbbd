// Re-exports the session id rules (lib/protocol/ids.ts) where the store has always imported them.
export { isValidSessionId, SESSION_ID_PATTERN, validateSessionId } from "../protocol/ids.ts";
