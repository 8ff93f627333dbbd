// Owns the start-up lines of a print-mode run in an untrusted folder (CI checkouts are untrusted): the
// settings that granted permissions and were not applied (in such a folder only the command line
// grants: permissions/command_line_grant.ts), the three ways to trust the folder, and the project agents
// that were not loaded. `trustWarning` is pure; `printTrustWarning` looks up the project's agent files
// and prints the lines on stderr (used by `blade -p` and `blade run`).

import type { PermissionMode } from "../protocol/permission_mode.ts";
import { claudeModeName } from "../protocol/permission_mode.ts";
import { terminalSafe } from "./sanitize.ts";
import type { Ports } from "../sys/mod.ts";
import type { Io } from "./io.ts";

export interface TrustWarningInput {
  trusted: boolean;
  /** A settings permission mode wider than default that was not applied. */
  cappedMode?: PermissionMode;
  /** Settings allow rules that were not applied. */
  droppedAllow?: readonly string[];
  /** Agent files of the project (`.claude/agents`, `.blade/agents`) that were not loaded. */
  skippedAgents: readonly string[];
}

const TRUST_WAYS =
  "Trust it with --trust-workspace (this run), BLADE_TRUST_WORKSPACE=1 (e.g. in CI) or `blade trust`.";

/** The warning lines, or none when the folder is trusted or nothing was withheld. */
export function trustWarning(o: TrustWarningInput): string[] {
  if (o.trusted) return [];
  const withheld: string[] = [];
  if (o.cappedMode !== undefined) {
    withheld.push(`the settings' permission mode ${claudeModeName(o.cappedMode)}`);
  }
  if ((o.droppedAllow ?? []).length > 0) {
    withheld.push(`the settings' allow rules ${o.droppedAllow!.join(", ")}`);
  }
  const lines: string[] = [];
  if (withheld.length > 0) {
    lines.push(
      `blade: warning: this folder is not trusted, so only the command line grants permissions ` +
        `(--permission-mode, --dangerously-skip-permissions, --allowed-tools): ${withheld.join(" and ")} ` +
        `do not apply, and project settings and agents are not loaded. ${TRUST_WAYS}\n`,
    );
  }
  if (o.skippedAgents.length > 0) {
    lines.push(
      `blade: warning: project agents not loaded (untrusted folder): ${
        o.skippedAgents.join(", ")
      }. ${TRUST_WAYS}\n`,
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
  o: Omit<TrustWarningInput, "skippedAgents"> & { workspace: string },
): Promise<void> {
  if (o.trusted) return;
  const skippedAgents = await projectAgentNames(ports, o.workspace);
  for (const line of trustWarning({ ...o, skippedAgents })) {
    io.err(terminalSafe(line)); // project agent names come from the repository's files
  }
}
