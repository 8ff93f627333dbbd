// Owns the evidence collected from a child's tool results (docs/reference/verification.md): the files
// it modified (Write/Edit paths, `<bash-mutation>` for a Bash command that is neither read-only nor a
// recognised verification command, and what nested Task runs report) and the verification commands
// that succeeded after the last edit (an edit clears them: they no longer prove the current state).
// Pure: it reads results, never the file system.

import { isAbsolute, relative, sep } from "../path.ts";
import { classifyCommand } from "./commands.ts";

/** Stands for "a Bash command may have changed files", which no path can name. */
export const BASH_MUTATION = "<bash-mutation>";

export interface ToolEvidenceInput {
  name: string;
  input: Record<string, unknown>;
  result: { isError: boolean; metadata?: Record<string, unknown> };
}

export interface Evidence {
  modifiedFiles: string[];
  verificationCommands: string[];
}

/** A path shown relative to the workspace when it lies inside it, else as given. */
function normalise(path: string, workspaceRoot: string): string {
  if (path === BASH_MUTATION || !isAbsolute(path)) return path;
  const rel = relative(workspaceRoot, path);
  return rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? path : rel;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v !== "") : [];
}

export function collectEvidence(results: readonly ToolEvidenceInput[], workspaceRoot: string): Evidence {
  const modified = new Set<string>();
  let verified: string[] = [];
  const edited = (paths: readonly string[]) => {
    if (paths.length === 0) return;
    for (const p of paths) modified.add(normalise(p, workspaceRoot));
    verified = [];
  };
  for (const r of results) {
    const meta = r.result.metadata ?? {};
    if (r.name === "Bash") {
      const command = typeof r.input["command"] === "string" ? r.input["command"] : "";
      if (r.input["run_in_background"] === true) {
        edited([BASH_MUTATION]);
        continue;
      }
      const kind = classifyCommand(command, workspaceRoot);
      if (kind.kind === "verification") {
        if (!r.result.isError && !verified.includes(kind.command)) verified.push(kind.command);
      } else if (kind.kind === "rejected") {
        // A refused call ran nothing; any other command may have written anything.
        if (!(r.result.isError && meta["exitCode"] === undefined)) edited([BASH_MUTATION]);
      }
      continue;
    }
    // Write and Edit report their real paths; a nested Task reports its child's files.
    edited(stringsOf(meta["modifiedFiles"]));
  }
  return { modifiedFiles: [...modified], verificationCommands: verified };
}
