// Owns the command-line vocabulary shared by several commands: the options of every agent-running
// command (-p and run), the global options management commands accept, durations such as `7d`, and
// turning a parser's complaint into a usage error (exit 2) that points at the command's --help.

import { BladeError, usageError } from "../errors.ts";
import { CLAUDE_OPTIONS } from "./claude_flags.ts";

/** Options every agent-running command shares (-p and run). */
export const RUN_OPTIONS = {
  print: { type: "boolean", short: "p" },
  "output-format": { type: "string" },
  model: { type: "string" },
  provider: { type: "string" },
  script: { type: "string" },
  "permission-mode": { type: "string" },
  permissionMode: { type: "string" },
  "allowed-tools": { type: "string", multiple: true },
  allowedTools: { type: "string", multiple: true },
  "disallowed-tools": { type: "string", multiple: true },
  disallowedTools: { type: "string", multiple: true },
  "system-prompt": { type: "string" },
  "append-system-prompt": { type: "string" },
  "output-style": { type: "string" },
  "max-turns": { type: "string" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "string", short: "r" },
  agents: { type: "string" },
  "trust-workspace": { type: "boolean" },
  "require-sandbox": { type: "boolean" },
  store: { type: "string" },
  "store-creds": { type: "string" },
  "remote-children": { type: "boolean" },
  "background-wait": { type: "string" },
  background: { type: "boolean" },
  // `--debug [filter]` / `-d`: optional value, made inline by cli/claude_argv.ts (`--debug=`).
  debug: { type: "string", short: "d" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
  ...CLAUDE_OPTIONS,
} as const;

/** Runs a parser; anything it throws that is not a BladeError becomes a usage error. */
export function parseOrUsage<T>(fn: () => T, help: string): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof BladeError) throw e;
    const message = e instanceof Error ? e.message.replace(/\. To specify a positional.*$/s, ".") : String(e);
    throw usageError(message, `See \`${help} --help\`.`);
  }
}

/** Pulls the global options every command accepts out of argv. */
export function globalOptions(
  argv: string[],
): { rest: string[]; agentsJson?: string; trustWorkspace: boolean } {
  const rest: string[] = [];
  let agentsJson: string | undefined;
  let trustWorkspace = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--trust-workspace") trustWorkspace = true;
    else if (a === "--agents") {
      const v = argv[++i];
      if (v === undefined) {
        throw usageError("--agents needs a JSON value.", `Example: --agents '{"x":{...}}'`);
      }
      agentsJson = v;
    } else if (a.startsWith("--agents=")) agentsJson = a.slice("--agents=".length);
    else rest.push(a);
  }
  return agentsJson === undefined ? { rest, trustWorkspace } : { rest, agentsJson, trustWorkspace };
}

/** `30m`, `12h`, `7d` (days when no unit) → milliseconds; a usage error for anything else. */
export function parseAge(text: string): number {
  const m = /^(\d+)\s*(ms|s|m|h|d)?$/.exec(text.trim());
  if (m === null) {
    throw usageError(`Cannot read the age "${text}".`, "Use a number with a unit: 30m, 12h, 7d.");
  }
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? "d"]!;
  return Number(m[1]) * unit;
}
