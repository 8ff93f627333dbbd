// Print-mode flag resolution: output format, App flags, run rules, session and wait flags, the user
// turns (prompt or stream-json input). Each throws a usage error (exit 2) for a bad value.

import type { Ports } from "../sys/mod.ts";
import { usageError } from "../errors.ts";
import { isValidSessionId } from "../protocol/ids.ts";
import {
  checkSessionName,
  readSessionNames,
  sessionByName,
  setSessionName,
} from "../session/session_names.ts";
import type { App, AppFlags } from "../app.ts";
import { readStdin } from "../sys/signals.ts";
import type { Io } from "./io.ts";
import type { OutputFormat } from "./print_render.ts";
import { type RunRules, runRules } from "../permissions/run_rules.ts";
import { commandLineGrant } from "../permissions/command_line_grant.ts";
import { settingsFlagLayer, settingSourcesOf } from "../config/claude_settings.ts";
import { printTrustWarning } from "./trust_warning.ts";

// deno-lint-ignore no-explicit-any
export type Values = Record<string, any>;

export function outputFormatOf(values: Values): OutputFormat {
  const f = values["output-format"] ?? "text";
  if (f === "text" || f === "json" || f === "stream-json" || f === "blade-events") return f;
  throw usageError(
    `Unknown output format "${f}".`,
    "Use --output-format text, json, stream-json or blade-events.",
  );
}

function intFlag(values: Values, name: string, min: number, max: number): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw usageError(
      `--${name} must be a whole number from ${min} to ${max}, got "${raw}".`,
      `Pass --${name} with a value from ${min} to ${max}, e.g. --${name} 10. See \`blade --help\`.`,
    );
  }
  return n;
}

export function appFlagsOf(values: Values): AppFlags {
  const maxTurns = intFlag(values, "max-turns", 1, 1000);
  // --dangerously-skip-permissions is Claude Code's bypassPermissions; it does not grant Workspace Trust.
  const mode = values["permission-mode"] ?? values.permissionMode ??
    (values["dangerously-skip-permissions"] === true ? "bypassPermissions" : undefined);
  return {
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.provider === undefined ? {} : { provider: values.provider }),
    ...(values.script === undefined ? {} : { script: values.script }),
    ...(mode === undefined ? {} : { permissionMode: mode }),
    ...(maxTurns === undefined ? {} : { maxTurns }),
    // `--debug [filter]` (every category: Blade has one), `--debug-file`, `--debug-to-stderr`.
    ...(values.debug !== undefined || values["debug-file"] !== undefined || values["debug-to-stderr"] === true
      ? { debug: true }
      : {}),
    ...(values.effort === undefined ? {} : { effort: values.effort }),
    ...(values["disable-slash-commands"] === true ? { disableSlashCommands: true } : {}),
    ...(values.betas === undefined ? {} : { betas: values.betas }),
    // `--restricted` reads no settings files (only --settings).
    ...(values.restricted === true
      ? { settingSources: new Set() }
      : values["setting-sources"] === undefined
      ? {}
      : { settingSources: settingSourcesOf(values["setting-sources"]) }),
    ...thinkingOf(values),
    ...(values["trust-workspace"] === true ? { trustWorkspace: true } : {}),
    ...(values.agents === undefined ? {} : { agentsJson: values.agents }),
    ...(values.settings === undefined ? {} : { settings: values.settings }),
    ...(values["fallback-model"] === undefined ? {} : { fallbackModel: values["fallback-model"] }),
    ...(values["add-dir"] === undefined ? {} : { addDirs: values["add-dir"] }),
    ...(values.bare === true ? { bare: true } : {}),
    ...(values["output-style"] === undefined ? {} : { outputStyle: values["output-style"] }),
    ...(values["require-sandbox"] === true ? { requireSandbox: true } : {}),
    ...(values["remote-children"] === true ? { remoteChildren: true } : {}),
    ...storeFlagsOf(values),
  };
}

/** `--store` and `--store-creds` (docs/guides/remote.md), for every command that opens the store. */
export function storeFlagsOf(values: Values): { store?: string; storeCreds?: string } {
  return {
    ...(values.store === undefined ? {} : { store: values.store }),
    ...(values["store-creds"] === undefined ? {} : { storeCreds: values["store-creds"] }),
  };
}

/** The Agent SDK's `--thinking`, `--max-thinking-tokens`, `--thinking-display`. */
function thinkingOf(values: Values): Pick<AppFlags, "thinking"> {
  const mode = values.thinking;
  if (mode !== undefined && mode !== "adaptive" && mode !== "enabled" && mode !== "disabled") {
    throw usageError(`Unknown --thinking "${mode}".`, "Use --thinking adaptive, enabled or disabled.");
  }
  const budget = intFlag(values, "max-thinking-tokens", 0, 10_000_000);
  const display = thinkingDisplayOf(values);
  if (mode === undefined && budget === undefined && display === undefined) return {};
  return {
    thinking: {
      ...(mode === undefined ? {} : { mode }),
      ...(budget === undefined ? {} : { budget }),
      ...(display === undefined ? {} : { display }),
    },
  };
}

/**
 * `thinking.display` as Claude Code 2.1.332 asks for it: `summarized` or `highlights` when given; else
 * `updates` when the messages are printed (json or stream-json with --verbose, as the Agent SDK runs it),
 * else what was given (tests/fixtures/claude/models/: thinking_display*).
 */
function thinkingDisplayOf(values: Values): string | undefined {
  const given = values["thinking-display"];
  if (given === "summarized" || given === "highlights") return given;
  const format = values["output-format"];
  const printed = values.verbose === true && (format === "json" || format === "stream-json");
  return printed ? "updates" : given;
}

export function listFlag(values: Values, ...names: string[]): string[] {
  return names.flatMap((n) => (values[n] as string[] | undefined) ?? []);
}

/** The run's rules from --allowed-tools / --disallowed-tools; warns about rules naming no tool. */
export function rulesFromFlags(values: Values, io: Io, app?: Pick<App, "claude">): RunRules {
  const rules = runRules({
    allowedTools: listFlag(values, "allowed-tools", "allowedTools"),
    disallowedTools: listFlag(values, "disallowed-tools", "disallowedTools"),
    // settings permissions (Claude Code's files and Blade's; project ones only when trusted, deny always).
    ...(app === undefined
      ? {}
      : { settings: { allow: app.claude.allow, deny: app.claude.deny, ask: app.claude.ask } }),
  });
  for (const w of rules.warnings) io.err(`blade: warning: ${w}\n`);
  return rules;
}

/**
 * `--input-format`: `text`, or `stream-json` (the Agent SDK's lines on stdin, cli/sdk_session.ts),
 * which needs `--output-format stream-json` as in Claude Code.
 */
export function inputFormatOf(values: Values): "text" | "stream-json" {
  const input = values["input-format"] ?? "text";
  if (input !== "text" && input !== "stream-json") {
    throw usageError(`Unknown input format "${input}".`, "Use --input-format text or stream-json.");
  }
  if (input === "stream-json" && values["output-format"] !== "stream-json") {
    throw usageError("--input-format stream-json needs --output-format stream-json (as in Claude Code).");
  }
  return input;
}

/** The prompt of a text-input run: the arguments, else stdin (when it is not a terminal). */
export async function textPrompt(positionals: string[], ports: Ports): Promise<string> {
  let prompt = positionals.join(" ");
  if (prompt.trim() === "" && !ports.env.stdinIsTerminal()) prompt = (await readStdin()).trim();
  if (prompt.trim() === "") {
    throw usageError("No prompt given.", 'Pass it after -p (blade -p "…") or on standard input.');
  }
  return prompt;
}

/** Checks --resume / --continue / --session-id: not both of the first two, ids well-formed. */
export function checkSessionFlags(values: Values): void {
  if (values.resume !== undefined && values.continue === true) {
    throw usageError("--resume and --continue cannot be used together.");
  }
  checkId("session-id", values["session-id"]);
  if (typeof values.name === "string") checkSessionName(values.name);
}

function checkId(flag: string, id: string | undefined): void {
  if (id !== undefined && !isValidSessionId(id)) {
    throw usageError(
      `Invalid session ID for --${flag}: ${JSON.stringify(id).slice(0, 80)}`,
      "Session ids use letters, digits, '.', '_' and '-' (at most 200 characters); `blade tasks list` shows them.",
    );
  }
}

/** `--resume <id or name>`: a session of this folder named so (`--name`) is resumed by its id. */
export async function resumeTarget(app: App, values: Values): Promise<string | undefined> {
  const value = values.resume as string | undefined;
  if (value === undefined) return undefined;
  const names = await readSessionNames(app.ports.fs, app.layout.projectDir(app.workspace));
  const id = Object.hasOwn(names, value) ? value : sessionByName(names, value) ?? value;
  checkId("resume", id);
  return id;
}

/** `--background-wait <seconds>` in milliseconds, if given. */
export function backgroundWaitOf(values: Values): number | undefined {
  const waitRaw = values["background-wait"];
  if (waitRaw === undefined) return undefined;
  const n = Number(waitRaw);
  if (!Number.isFinite(n) || n < 0) {
    throw usageError(`--background-wait must be a number of seconds, got "${waitRaw}".`);
  }
  return Math.round(n * 1000);
}

/**
 * The run's App and rules: in a folder without Workspace Trust only the command line grants
 * (permissions/command_line_grant.ts) — a settings mode wider than default and settings allow rules
 * are withheld, and the start-up warning says so.
 */
export async function grantedRun(app: App, values: Values, io: Io): Promise<{ app: App; rules: RunRules }> {
  // `--settings` is named on the command line: its mode and allow rules are the user's for this run.
  const layer = values.settings === undefined || app.trust.trusted
    ? undefined
    : await settingsFlagLayer(app.ports.fs, values.settings, app.ports.env.cwd());
  const grant = commandLineGrant({
    trusted: app.trust.trusted,
    mode: app.config.permissionMode,
    modeFromFlag: appFlagsOf(values).permissionMode !== undefined || layer?.defaultMode !== undefined,
    settingsAllow: app.claude.allow,
    flagAllow: layer?.allow ?? [],
  });
  const granted: App = {
    ...app,
    config: { ...app.config, permissionMode: grant.mode },
    workspaceGrant: grant.workspace,
  };
  const rules = rulesFromFlags(values, io, { claude: { ...app.claude, allow: [...grant.settingsAllow] } });
  // Before the agent is looked up: an agent of the untrusted project is named in the warning.
  await printTrustWarning(app.ports, io, {
    trusted: app.trust.trusted,
    workspace: app.workspace,
    ...(grant.cappedMode === undefined ? {} : { cappedMode: grant.cappedMode }),
    droppedAllow: app.claude.allow.filter((r) => !grant.settingsAllow.includes(r)),
  });
  return { app: granted, rules };
}

/** `-n, --name`: the session's display name (resume lists show it; `--resume <name>` finds it). */
export async function nameSession(app: App, o: { values: Values; sessionId: string }): Promise<void> {
  if (typeof o.values.name !== "string") return;
  const dir = app.layout.projectDir(app.workspace);
  await setSessionName(app.ports.fs, dir, { sessionId: o.sessionId, name: o.values.name });
}
