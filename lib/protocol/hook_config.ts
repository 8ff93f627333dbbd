// Owns Claude Code's hook configuration format (docs/guides/hooks.md), vocabulary every layer may read
// (the agent registry checks an agent file's with it): the `hooks` object of a settings file,
// `--settings`, or an agent file's frontmatter — `{Event: [{matcher, hooks: [{type:
// "command", command, timeout}]}]}` — read into a flat list of hooks, each saying where it came from.
// Malformed entries are left out and named (a problem list), never an error: a broken hook file must
// not stop a session, and the user is told. Pure.

/** The events Blade fires, Claude Code's names. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
] as const;

export type HookEvent = typeof HOOK_EVENTS[number];

/** Events whose matcher is matched against a tool name (the others' matchers: `source`, `trigger`…). */
export const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
]);

/** Where a hook was configured (`blade hooks list` shows it). */
export type HookSource = "user" | "project" | "local" | "flag" | "agent" | "sdk";

/**
 * Seconds a command hook may run when it sets no `timeout`: Claude Code's default, 10 minutes. Claude
 * Code 2.1.332 lets such a hook run past 60 s and takes its answer
 * (tests/fixtures/claude/hooks_command_default_timeout_70) and cancels it at 600 s (…_610; both read
 * by tests/claude_hooks_golden_test.ts). Other kinds' defaults: lib/hooks/hook_timeout.ts.
 */
export const DEFAULT_HOOK_TIMEOUT_S = 600;

/** Seconds an Agent SDK callback may take when its matcher sets no `timeout` (the SDK's default). */
export const DEFAULT_CALLBACK_HOOK_TIMEOUT_S = 60;

/**
 * One configured hook: a shell command, a `prompt` hook (the model judges the event: lib/hooks/prompt_hook.ts),
 * an `agent` hook (a verifier subagent judges it, `agent` being its prompt: lib/hooks/agent_hook.ts), or
 * an Agent SDK callback (by its id).
 */
export interface HookEntry {
  event: HookEvent;
  /** Claude Code's matcher (a tool name, `A|B`, a regular expression); undefined matches all. */
  matcher?: string | undefined;
  run:
    | { command: string }
    | { prompt: string; model?: string | undefined }
    | { agent: string; model?: string | undefined }
    | { callbackId: string };
  /** Seconds; undefined = the default of its kind (lib/hooks/hook_timeout.ts). */
  timeoutSeconds?: number | undefined;
  source: HookSource;
  /** The file (or `--settings`, an agent's name, `Agent SDK`) it came from. */
  where: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The hooks of one `hooks` object; `where` names its file in problems. An agent file's (`source:
 * "agent"`) `Stop` hooks are its run's `SubagentStop` hooks, as Claude Code 2.1.332 runs them
 * (tests/fixtures/claude/hooks_subagent).
 */
export function hooksOf(
  json: unknown,
  o: { source: HookSource; where: string },
): { hooks: HookEntry[]; problems: string[] } {
  const hooks: HookEntry[] = [];
  const problems: string[] = [];
  if (json === undefined) return { hooks, problems };
  if (!isRecord(json)) return { hooks, problems: [`${o.where}: hooks is not an object; ignored`] };
  for (const [event, list] of Object.entries(json)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push(`${o.where}: hooks.${event} is not an event Blade fires; ignored`);
      continue;
    }
    if (!Array.isArray(list)) {
      problems.push(`${o.where}: hooks.${event} is not a list; ignored`);
      continue;
    }
    for (const [i, group] of list.entries()) {
      const at = `${o.where}: hooks.${event}[${i}]`;
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        problems.push(`${at} has no "hooks" list; ignored`);
        continue;
      }
      const matcher = typeof group.matcher === "string" && group.matcher !== "" ? group.matcher : undefined;
      if (matcher !== undefined && !validMatcher(matcher)) {
        problems.push(`${at}: matcher "${matcher.slice(0, 80)}" is not a valid pattern; ignored`);
        continue;
      }
      for (const [j, hook] of group.hooks.entries()) {
        const run = hookRun(hook, `${at}.hooks[${j}]`);
        if (typeof run === "string") {
          problems.push(run);
          continue;
        }
        const timeout = isRecord(hook) && typeof hook.timeout === "number" && hook.timeout > 0
          ? hook.timeout
          : undefined;
        hooks.push({
          event: o.source === "agent" && event === "Stop" ? "SubagentStop" : event as HookEvent,
          matcher,
          run,
          timeoutSeconds: timeout,
          source: o.source,
          where: o.where,
        });
      }
    }
  }
  return { hooks, problems };
}

/** What one hook runs (`command`, `prompt` or `agent`), or the problem that skips it. */
function hookRun(hook: unknown, at: string): HookEntry["run"] | string {
  if (isRecord(hook) && hook.type === "command") {
    if (typeof hook.command !== "string" || hook.command.trim() === "") {
      return `${at} has no command; ignored`;
    }
    return { command: hook.command };
  }
  if (isRecord(hook) && hook.type === "prompt") {
    if (typeof hook.prompt !== "string" || hook.prompt.trim() === "") return `${at} has no prompt; ignored`;
    return {
      prompt: hook.prompt,
      model: typeof hook.model === "string" && hook.model !== "" ? hook.model : undefined,
    };
  }
  if (isRecord(hook) && hook.type === "agent") {
    if (typeof hook.prompt !== "string" || hook.prompt.trim() === "") return `${at} has no prompt; ignored`;
    return {
      agent: hook.prompt,
      model: typeof hook.model === "string" && hook.model !== "" ? hook.model : undefined,
    };
  }
  const type = isRecord(hook) && typeof hook.type === "string" ? `"${hook.type.slice(0, 40)}"` : "missing";
  return `${at}: type ${type} is not supported (only "command", "prompt" and "agent"); ignored`;
}

function validMatcher(matcher: string): boolean {
  try {
    new RegExp(matcher);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a Claude Code matcher matches `value` (a tool name; SessionStart's `source`, PreCompact's
 * `trigger`, Notification's type): absent, empty or `*` match all; names made of word characters and
 * `|` are exact alternatives (`Edit|Write`, `mcp__server__tool`); anything else is a regular
 * expression over the whole value (`mcp__github__.*`, `Notebook.*`).
 */
export function matcherMatches(matcher: string | undefined, value: string): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (/^[\w|-]+$/.test(matcher)) return matcher.split("|").includes(value);
  try {
    return new RegExp(`^(?:${matcher})$`).test(value);
  } catch {
    return false;
  }
}
