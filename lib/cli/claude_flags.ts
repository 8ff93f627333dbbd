// Owns the Claude Code flags Blade accepts beyond its own (docs/guides/migrating-from-claude-code.md):
// every flag of `claude --help` 2.1.332 and the hidden ones the Agent SDK passes, as a parseArgs table;
// the flags Blade accepts but does not honour (one warning line naming each, never exit 2); and those
// Claude Code itself refuses in print mode (a usage error saying why). The command-line form
// (variadic and optional values) is lib/cli/claude_argv.ts. `--bare` is honoured by cli/context_wiring.ts.

import { usageError } from "../errors.ts";

/** parseArgs options for the Claude Code flags (merged into the run options of -p and run). */
export const CLAUDE_OPTIONS = {
  verbose: { type: "boolean" },
  "include-partial-messages": { type: "boolean" },
  "input-format": { type: "string" },
  "replay-user-messages": { type: "boolean" },
  "session-id": { type: "string" },
  "fork-session": { type: "boolean" },
  settings: { type: "string" },
  "add-dir": { type: "string", multiple: true },
  "system-prompt-file": { type: "string" },
  "append-system-prompt-file": { type: "string" },
  "fallback-model": { type: "string" },
  "json-schema": { type: "string" },
  tools: { type: "string", multiple: true },
  "max-budget-usd": { type: "string" },
  "no-session-persistence": { type: "boolean" },
  agent: { type: "string" },
  "dangerously-skip-permissions": { type: "boolean" },
  // The Agent SDK's allowDangerouslySkipPermissions: a later set_permission_mode may go up to
  // bypassPermissions (cli/sdk_session.ts); it grants nothing by itself.
  "allow-dangerously-skip-permissions": { type: "boolean" },
  "setting-sources": { type: "string" },
  "mcp-config": { type: "string", multiple: true },
  "strict-mcp-config": { type: "boolean" },
  "permission-prompt-tool": { type: "string" },
  // No memory, commands, skills, output styles or MCP servers from files (cli/context_wiring.ts).
  bare: { type: "boolean" },
  "permission-prompts": { type: "string" },
  effort: { type: "string" },
  "debug-file": { type: "string" },
  "debug-to-stderr": { type: "boolean" },
  name: { type: "string", short: "n" },
  worktree: { type: "string", short: "w" },
  "include-hook-events": { type: "boolean" },
  "forward-subagent-text": { type: "boolean" },
  "disable-slash-commands": { type: "boolean" },
  betas: { type: "string", multiple: true },
  restricted: { type: "boolean" },
  // The Agent SDK's: MCP servers (and more) arrive in its initialize request (cli/sdk_session.ts).
  "await-initialize": { type: "boolean" },
  // The Agent SDK's thinking options: thinking adaptive|enabled|disabled, a budget, its display.
  thinking: { type: "string" },
  "max-thinking-tokens": { type: "string" },
  "thinking-display": { type: "string" },
  // Accepted, not honoured (NOT_YET_HONOURED says what happens instead).
  autocompact: { type: "string" },
  "ax-screen-reader": { type: "boolean" },
  brief: { type: "boolean" },
  chrome: { type: "boolean" },
  "no-chrome": { type: "boolean" },
  "exclude-dynamic-system-prompt-sections": { type: "boolean" },
  ide: { type: "boolean" },
  "plugin-dir": { type: "string", multiple: true },
  "plugin-dir-no-mcp": { type: "string", multiple: true },
  "plugin-url": { type: "string", multiple: true },
  "remote-control-session-name-prefix": { type: "string" },
  "safe-mode": { type: "boolean" },
  "system-prompt-snapshot": { type: "string" },
  "task-budget": { type: "string" },
  "session-mirror": { type: "boolean" },
  "project-config-root": { type: "string" },
  "managed-settings": { type: "string" },
  "managed-settings-in-initialize": { type: "boolean" },
  "initialize-fields": { type: "string" },
  channels: { type: "string", multiple: true },
  "sdk-url": { type: "string" },
  // Optional values (claude_argv.ts makes them inline: `--from-pr=` when none is given).
  "from-pr": { type: "string" },
  "remote-control": { type: "string" },
  "prompt-suggestions": { type: "string" },
  // Refused in print mode, as Claude Code refuses them (REFUSED_IN_PRINT).
  bg: { type: "boolean" },
  cloud: { type: "string" },
  desktop: { type: "boolean" },
  environment: { type: "string" },
  file: { type: "string", multiple: true },
  teleport: { type: "string" },
  tmux: { type: "string" },
  "resume-session-at": { type: "string" },
  "resume-drops-turn": { type: "string" },
} as const;

/** Flags Blade accepts and does not honour, with what happens instead (the warning's text). */
export const NOT_YET_HONOURED: Readonly<Record<string, string>> = {
  "permission-prompt-tool":
    "an approval tool is honoured as `stdio` with stream-json input (the Agent SDK's canUseTool) or an MCP tool `mcp__<server>__<tool>`",
  "no-session-persistence": "Blade always saves the session (its transcript is what makes runs durable)",
  autocompact:
    "the flag is not read: Blade compacts at the model's window; set CLAUDE_CODE_AUTO_COMPACT_WINDOW for another size",
  "ax-screen-reader": "print mode has no decorations to remove",
  brief: "there is no SendUserMessage tool; answers arrive as the result",
  chrome: "there is no browser integration",
  "no-chrome": "there is no browser integration",
  "exclude-dynamic-system-prompt-sections": "the system prompt keeps its environment section",
  ide: "there is no IDE integration",
  "plugin-dir": "Claude Code plugins are not loaded",
  "plugin-dir-no-mcp": "Claude Code plugins are not loaded",
  "plugin-url": "Claude Code plugins are not loaded",
  "remote-control": "there is no Remote Control",
  "remote-control-session-name-prefix": "there is no Remote Control",
  "from-pr": "sessions are not linked to pull requests; a new session starts",
  "prompt-suggestions": "no prompt suggestions are sent",
  "safe-mode": "customizations load as usual (project ones only in a trusted folder)",
  "system-prompt-snapshot": "the system prompt is built for each request",
  "task-budget": "task budgets are not supported; --max-budget-usd limits a run's cost",
  "session-mirror": "the transcript is not mirrored to the SDK",
  "project-config-root": "project configuration is read from the working folder",
  "managed-settings": "managed settings are not read",
  "managed-settings-in-initialize": "managed settings are not read",
  "initialize-fields": "settings and disallowedTools are read from the command line only",
  channels: "there are no channels",
  "sdk-url": "the SDK is spoken on standard input and output only",
  tmux: "there is no tmux session; the worktree session runs here",
};

/**
 * Flags Claude Code refuses in print mode (`claude -p` exits 1 saying so): Blade refuses them too, as
 * usage errors, with Claude Code's reason.
 */
export const REFUSED_IN_PRINT: Readonly<Record<string, string>> = {
  bg: "--bg starts a background session, and print mode runs in the foreground",
  cloud: "--cloud starts a cloud session, which print mode cannot do",
  desktop: "--desktop opens the Claude Desktop app, which print mode cannot do",
  environment: "--environment starts a cloud session on a self-hosted environment, which Blade cannot do",
  file: "--file downloads files from the Files API, which Blade cannot do",
  teleport: "--teleport resumes a cloud session, which Blade cannot do",
  "resume-session-at": "--resume-session-at is not supported",
  "resume-drops-turn": "--resume-drops-turn is not supported",
};

const present = (v: unknown) => v !== undefined && v !== false;

/** The warning lines for the not-honoured flags present in `values`. */
export function notYetWarnings(values: Record<string, unknown>): string[] {
  const prompt = values["permission-prompt-tool"];
  // `stdio` with stream-json input is the Agent SDK's canUseTool; `mcp__server__tool` an MCP tool: honoured.
  const honouredPrompt = typeof prompt === "string" &&
    ((prompt === "stdio" && values["input-format"] === "stream-json") || /^mcp__.+__.+$/.test(prompt));
  return Object.entries(NOT_YET_HONOURED)
    .filter(([flag]) => present(values[flag]))
    .filter(([flag]) => !(honouredPrompt && flag === "permission-prompt-tool"))
    .map(([flag, what]) => `blade: warning: --${flag} is accepted but not honoured: ${what}.\n`);
}

/** Refuses a flag Claude Code refuses in print mode (a usage error naming it and why). */
export function refusePrintOnly(values: Record<string, unknown>): void {
  for (const [flag, why] of Object.entries(REFUSED_IN_PRINT)) {
    if (present(values[flag])) throw usageError(`${why}.`, `Remove --${flag}. See \`blade --help\`.`);
  }
  const bypass = values["dangerously-skip-permissions"] === true ||
    ["bypassPermissions", "yolo"].includes(String(values["permission-mode"] ?? values.permissionMode));
  if (values.restricted === true && bypass) {
    throw usageError(
      "--restricted refuses bypassPermissions.",
      "Remove --dangerously-skip-permissions or --permission-mode bypassPermissions.",
    );
  }
  if (values.background === true) {
    throw usageError(
      "--background starts a background session, and print mode runs in the foreground.",
      "Remove --background (`blade run <agent> --background` starts a background subagent).",
    );
  }
  if (present(values.tmux) && values.worktree === undefined) {
    throw usageError("--tmux needs --worktree.", "Remove --tmux, or add --worktree.");
  }
}
