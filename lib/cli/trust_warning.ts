// Owns the start-up line of a run in an untrusted folder whose flags or settings ask for writes or Bash
// (CI checkouts are untrusted): what trust withholds, the three ways to grant it, and the project agents
// that were not loaded. `trustWarning` is pure; `printTrustWarning` looks up the project's agent files
// and prints the lines on stderr (used by `blade -p` and `blade run`).

import type { PermissionMode } from "../protocol/permission_mode.ts";
import { terminalSafe } from "./sanitize.ts";
import type { Ports } from "../sys/mod.ts";
import type { Io } from "./io.ts";

const WRITE_TOOLS = /^(Write|Edit|MultiEdit|NotebookEdit|Bash)\b/;

export interface TrustWarningInput {
  trusted: boolean;
  mode: PermissionMode;
  /** The run's allow rules (flags and settings), as written. */
  allow: readonly string[];
  /** Agent files of the project (`.claude/agents`, `.blade/agents`) that were not loaded. */
  skippedAgents: readonly string[];
}

/** The warning lines, or none when the folder is trusted or nothing asked for what trust withholds. */
export function trustWarning(o: TrustWarningInput): string[] {
  if (o.trusted) return [];
  const asked: string[] = [];
  if (o.mode === "autoEdit" || o.mode === "yolo" || o.mode === "dontAsk") {
    asked.push(`permission mode ${o.mode}`);
  }
  const rules = o.allow.filter((r) => WRITE_TOOLS.test(r.trim()));
  if (rules.length > 0) asked.push(`allow rules ${rules.join(", ")}`);
  if (asked.length === 0 && o.skippedAgents.length === 0) return [];
  const lines = [
    `blade: warning: this folder is not trusted, so every write, edit and Bash call is refused` +
    (asked.length > 0 ? ` (even with ${asked.join(" and ")})` : "") +
    ` and project settings and agents are not loaded. Trust it with --trust-workspace (this run), ` +
    "BLADE_TRUST_WORKSPACE=1 (e.g. in CI) or `blade trust`.\n",
  ];
  if (o.skippedAgents.length > 0) {
    lines.push(
      `blade: warning: project agents not loaded (untrusted folder): ${o.skippedAgents.join(", ")}.\n`,
    );
  }
  return lines;
}

/** Agent files in the project's agent folders (what an untrusted run does not load). */
async function projectAgentNames(ports: Ports, workspace: string): Promise<string[]> {
  const names: string[] = [];
  // Both folders read together; a missing one lists nothing (looked for first: a stat is synchronous,
  // a folder read an async op, and usually neither folder exists).
  const list = async (dir: string) =>
    (await ports.fs.stat(dir).catch(() => null))?.isDirectory === true ? await ports.fs.readDir(dir) : [];
  const listed = await Promise.all(
    [".claude/agents", ".blade/agents"].map((dir) => list(`${workspace}/${dir}`).catch(() => [])),
  );
  for (const e of listed.flat()) {
    if (e.isFile && e.name.endsWith(".md")) names.push(e.name.slice(0, -3));
  }
  return [...new Set(names)].sort();
}

/** Prints the start-up warning of a run (nothing in a trusted folder). */
export async function printTrustWarning(
  ports: Ports,
  io: Io,
  o: { trusted: boolean; workspace: string; mode: PermissionMode; allow: readonly string[] },
): Promise<void> {
  if (o.trusted) return;
  const skippedAgents = await projectAgentNames(ports, o.workspace);
  for (const line of trustWarning({ trusted: false, mode: o.mode, allow: o.allow, skippedAgents })) {
    io.err(terminalSafe(line)); // project agent names come from the repository's files
  }
}
