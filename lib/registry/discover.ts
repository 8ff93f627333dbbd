// Owns where agent files live (docs/reference/registry.md) and which of those folders trust lets Blade read. Pure path
// logic: does not touch the file system. Precedence is the order of the returned list (later wins).

import { join } from "../path.ts";
import type { AgentSource } from "./schema.ts";

export interface AgentSourceDir {
  source: Exclude<AgentSource, "builtin" | "flag">;
  dir: string;
}

export interface DiscoverInput {
  home: string | undefined;
  /** Canonical workspace path. */
  workspace: string;
  trusted: boolean;
  /** Blade storage root; default `<home>/.blade`. */
  bladeHome?: string | undefined;
  /** Claude Code's user folder (CLAUDE_CONFIG_DIR); default `<home>/.claude`. */
  claudeDir?: string | undefined;
}

export interface AgentSourceDirs {
  /** Folders to read, lowest precedence first. */
  load: AgentSourceDir[];
  /** Project folders left out because the workspace is not trusted. */
  untrusted: AgentSourceDir[];
}

/** Folders between the built-ins and `--agents`, in precedence order. */
export function agentSourceDirs(input: DiscoverInput): AgentSourceDirs {
  const bladeHome = input.bladeHome ?? (input.home === undefined ? undefined : join(input.home, ".blade"));
  const claudeDir = input.claudeDir ?? (input.home === undefined ? undefined : join(input.home, ".claude"));
  const all: (AgentSourceDir | undefined)[] = [
    claudeDir === undefined ? undefined : { source: "user-claude", dir: join(claudeDir, "agents") },
    { source: "project-claude", dir: join(input.workspace, ".claude", "agents") },
    bladeHome === undefined ? undefined : { source: "user", dir: join(bladeHome, "agents") },
    { source: "project", dir: join(input.workspace, ".blade", "agents") },
  ];
  const load: AgentSourceDir[] = [];
  const untrusted: AgentSourceDir[] = [];
  const seen = new Set<string>();
  for (const entry of all) {
    if (entry === undefined) continue;
    const isProject = entry.source === "project" || entry.source === "project-claude";
    // When the workspace is the home folder, its project folder is the user folder: read it once.
    if (seen.has(entry.dir)) continue;
    if (isProject && !input.trusted) untrusted.push(entry);
    else {
      seen.add(entry.dir);
      load.push(entry);
    }
  }
  return { load, untrusted };
}
