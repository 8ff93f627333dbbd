// Owns the port to hooks that live in another process: the Agent SDK's hook callbacks, registered by
// its `initialize` control request (`hooks: {PreToolUse: [{matcher, hookCallbackIds, timeout}]}`) and
// run with a `hook_callback` control request whose answer is the hook's JSON output (Claude Code's
// hook output: `decision`, `reason`, `continue`, `hookSpecificOutput`, …). The hook model (which
// events fire when, what an answer means) is not here: whoever fires hooks asks this port. No I/O.

/** One matcher the SDK registered for an event, with the callbacks to run when it matches. */
export interface HookCallbackMatcher {
  /** Claude Code's matcher (a tool name, `Edit|Write`, a regular expression); undefined = every call. */
  matcher?: string;
  /** The callbacks' ids, in order (`hook_0`, …). */
  callbackIds: readonly string[];
  /** Seconds the SDK gives its callbacks (its `timeout`); undefined = the hook engine's default. */
  timeoutSeconds?: number;
}

/** The SDK's answer to one `hook_callback`: the hook's output object (`{}` when it said nothing). */
export type HookCallbackAnswer = Record<string, unknown>;

export interface HookCallbacks {
  /** The events the SDK registered callbacks for (`PreToolUse`, `Stop`, …). */
  events(): readonly string[];
  /** The matchers of `event`, in the order the SDK gave them (none: an empty list). */
  matchers(event: string): readonly HookCallbackMatcher[];
  /**
   * Runs one callback: sends `hook_callback {callback_id, input, tool_use_id}` and resolves with the
   * SDK's answer. Rejects when the SDK answers with an error, the input has ended, or `signal` aborts
   * (the request is then withdrawn with `control_cancel_request`).
   */
  call(
    callbackId: string,
    input: Record<string, unknown>,
    options: { toolUseId?: string; signal: AbortSignal },
  ): Promise<HookCallbackAnswer>;
}

/** The matchers of an initialize's `hooks` field; malformed entries are left out (and named). */
export function hookMatchersOf(
  hooks: unknown,
): { byEvent: Map<string, HookCallbackMatcher[]>; problems: string[] } {
  const byEvent = new Map<string, HookCallbackMatcher[]>();
  const problems: string[] = [];
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) return { byEvent, problems };
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) {
      problems.push(`hooks.${event} is not a list`);
      continue;
    }
    const matchers: HookCallbackMatcher[] = [];
    for (const [i, m] of list.entries()) {
      const ids = (m as { hookCallbackIds?: unknown })?.hookCallbackIds;
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) {
        problems.push(`hooks.${event}[${i}] has no hookCallbackIds`);
        continue;
      }
      const matcher = (m as { matcher?: unknown }).matcher;
      const timeout = (m as { timeout?: unknown }).timeout;
      matchers.push({
        ...(typeof matcher === "string" && matcher !== "" ? { matcher } : {}),
        callbackIds: ids as string[],
        ...(typeof timeout === "number" && timeout > 0 ? { timeoutSeconds: timeout } : {}),
      });
    }
    if (matchers.length > 0) byEvent.set(event, matchers);
  }
  return { byEvent, problems };
}

/** Whether a Claude Code matcher matches a tool name: absent, `*`, an exact name, `A|B`, or a regex. */
export function hookMatcherMatches(matcher: string | undefined, toolName: string): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (/^[\w|]+$/.test(matcher)) return matcher.split("|").includes(toolName);
  try {
    return new RegExp(`^(?:${matcher})$`).test(toolName);
  } catch {
    return false;
  }
}
