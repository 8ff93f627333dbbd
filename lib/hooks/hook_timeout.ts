// Owns how long one hook may run: its own `timeout`, else the default of its kind, as Claude Code's
// (docs/guides/hooks.md): a command hook 600 s (DEFAULT_HOOK_TIMEOUT_S), a `prompt` hook 30 s, an
// `agent` hook 60 s, an Agent SDK callback 60 s (the SDK's documented default for a matcher's timeout).
// Pure; table-tested.

import {
  DEFAULT_CALLBACK_HOOK_TIMEOUT_S,
  DEFAULT_HOOK_TIMEOUT_S,
  type HookEntry,
} from "../protocol/hook_config.ts";
import { DEFAULT_AGENT_HOOK_TIMEOUT_S } from "./agent_hook.ts";
import { DEFAULT_PROMPT_HOOK_TIMEOUT_S } from "./prompt_hook.ts";

/** Seconds `hook` may run. */
export function hookTimeoutSeconds(hook: Pick<HookEntry, "run" | "timeoutSeconds">): number {
  if (hook.timeoutSeconds !== undefined) return hook.timeoutSeconds;
  if ("prompt" in hook.run) return DEFAULT_PROMPT_HOOK_TIMEOUT_S;
  if ("agent" in hook.run) return DEFAULT_AGENT_HOOK_TIMEOUT_S;
  if ("callbackId" in hook.run) return DEFAULT_CALLBACK_HOOK_TIMEOUT_S;
  return DEFAULT_HOOK_TIMEOUT_S;
}
