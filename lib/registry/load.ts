// Owns loading every agent source of a workspace in precedence order (docs/reference/registry.md): built-ins <
// ~/.claude/agents < <ws>/.claude/agents (trusted) < <blade home>/agents < <ws>/.blade/agents (trusted)
// < --agents. Later wins by name, with an info diagnostic. All file access goes through the Fs port.
// Never throws for a bad file; a bad --agents value throws (it is a usage error for the whole run).

import { join } from "../path.ts";
import { describeError } from "../errors.ts";
import type { Fs } from "../sys/fs.ts";
import { builtinAgents } from "./builtin.ts";
import { type Diagnostic, diagnostic } from "./diagnostic.ts";
import { agentSourceDirs } from "./discover.ts";
import type { ParseAgentResult } from "./parse.ts";
import type { AgentDefinition, AgentSource } from "./schema.ts";

export interface LoadAgentsInput {
  fs: Fs;
  home: string | undefined;
  /** Canonical workspace path. */
  workspace: string;
  trusted: boolean;
  /** Blade storage root; default `<home>/.blade`. Its `agents` folder is the user source. */
  bladeHome?: string | undefined;
  /** Claude Code's user folder (CLAUDE_CONFIG_DIR); default `<home>/.claude`. */
  claudeDir?: string | undefined;
  /** The raw `--agents` value. */
  agentsJson?: string | undefined;
}

export interface LoadedAgents {
  /** The winning definition of each name. */
  agents: AgentDefinition[];
  /** Definitions replaced by a later source with the same name. */
  overridden: AgentDefinition[];
  diagnostics: Diagnostic[];
  /** How many agent files were read, built-ins included. */
  files: number;
}

/** Larger files are refused: an agent prompt is text a model reads on every run. */
export const MAX_AGENT_FILE_BYTES = 1024 * 1024;

const READ_CONCURRENCY = 32;

export async function loadAgents(input: LoadAgentsInput): Promise<LoadedAgents> {
  // The parser and its zod schema load only for agents to parse: the built-ins come parsed.
  const flagAgents = input.agentsJson === undefined
    ? []
    : (await import("./agents_flag.ts")).parseAgentsFlag(input.agentsJson);
  const builtin = await builtinAgents();
  const diagnostics: Diagnostic[] = [...builtin.diagnostics];
  const layers: AgentDefinition[][] = [builtin.definitions];
  let files = builtin.definitions.length;

  const dirs = agentSourceDirs(input);
  for (const { source, dir } of dirs.load) {
    const paths = await listAgentFiles(input.fs, dir, diagnostics);
    files += paths.length;
    const results = await mapLimit(paths, READ_CONCURRENCY, (path) => loadAgentFile(input.fs, path, source));
    layers.push(oneLayer(results, diagnostics));
  }
  for (const { dir } of dirs.untrusted) {
    if ((await statOrWarn(input.fs, dir, diagnostics))?.isDirectory) {
      diagnostics.push(
        diagnostic(
          "info",
          dir,
          "Project agents in this folder are not loaded: the workspace is not trusted",
          {
            hint: "Run `blade trust` in the workspace to load them",
          },
        ),
      );
    }
  }
  layers.push(flagAgents);
  const overridden: AgentDefinition[] = [];
  const agents = mergeLayers(layers, { diagnostics, overridden });
  return { agents, overridden, diagnostics, files };
}

/** Reads and parses one agent file; unreadable or oversized files become error diagnostics. */
export async function loadAgentFile(fs: Fs, path: string, source: AgentSource): Promise<ParseAgentResult> {
  const fail = (message: string, hint?: string) => ({
    diagnostics: [diagnostic("error", path, message, { hint })],
  });
  let text: string;
  try {
    const info = await fs.stat(path);
    if (info === null) return fail("File not found");
    if (!info.isFile) return fail("Not a file", "Agent definitions are Markdown files ending in .md");
    if (info.size > MAX_AGENT_FILE_BYTES) {
      return fail(`File too large (${info.size} bytes, at most ${MAX_AGENT_FILE_BYTES}); agent not loaded`);
    }
    text = await fs.readText(path);
  } catch (e) {
    return fail(`Cannot read the file: ${describeError(e)}`, "Check the file's permissions");
  }
  const { parseAgentFile } = await import("./parse.ts");
  return parseAgentFile(text, { path, source });
}

/** The entry, null when it does not exist; a path that cannot be examined (EACCES…) is a warning. */
async function statOrWarn(fs: Fs, path: string, diagnostics: Diagnostic[]) {
  try {
    return await fs.stat(path);
  } catch (e) {
    diagnostics.push(
      diagnostic("warning", path, `Cannot examine it: ${describeError(e)}`, {
        hint: "Check its permissions",
      }),
    );
    return null;
  }
}

/** The `*.md` files directly in `dir` (symlinks to files included, hidden files and sub-folders not). */
export async function listAgentFiles(fs: Fs, dir: string, diagnostics: Diagnostic[]): Promise<string[]> {
  try {
    const info = await fs.stat(dir);
    if (info === null) return [];
    if (!info.isDirectory) {
      diagnostics.push(diagnostic("warning", dir, "Expected a folder of agent files, found a file; ignored"));
      return [];
    }
    const paths: string[] = [];
    for (const entry of await fs.readDir(dir)) {
      if (!entry.name.endsWith(".md") || entry.name.startsWith(".") || entry.isDirectory) continue;
      const path = join(dir, entry.name);
      if (entry.isFile) {
        paths.push(path);
        continue;
      }
      const reported = diagnostics.length;
      const target = await statOrWarn(fs, path, diagnostics);
      if (target?.isFile) paths.push(path);
      else if (target === null && entry.isSymlink && diagnostics.length === reported) {
        diagnostics.push(
          diagnostic("warning", path, "A broken symbolic link (its target does not exist); ignored"),
        );
      } else if (target !== null && !target.isDirectory) {
        // A FIFO, socket or device is never opened: reading it could block forever.
        diagnostics.push(
          diagnostic("warning", path, "Not a regular file (a FIFO, socket or device); ignored"),
        );
      }
    }
    return paths.sort();
  } catch (e) {
    diagnostics.push(
      diagnostic("warning", dir, `Cannot read the folder: ${describeError(e)}`, {
        hint: "Check the folder's permissions",
      }),
    );
    return [];
  }
}

/** Definitions of one folder; a name defined twice keeps the first file (by file name). */
function oneLayer(results: readonly ParseAgentResult[], diagnostics: Diagnostic[]): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  for (const result of results) {
    diagnostics.push(...result.diagnostics);
    const def = result.definition;
    if (def === undefined) continue;
    const first = byName.get(def.name);
    if (first === undefined) byName.set(def.name, def);
    else {
      diagnostics.push(
        diagnostic(
          "warning",
          def.path,
          `Agent "${def.name}" is also defined in ${first.path}; this file is ignored`,
          {
            field: "name",
            hint: "Give each agent in a folder its own name",
          },
        ),
      );
    }
  }
  return [...byName.values()];
}

function mergeLayers(
  layers: readonly AgentDefinition[][],
  out: { diagnostics: Diagnostic[]; overridden: AgentDefinition[] },
): AgentDefinition[] {
  const winners = new Map<string, AgentDefinition>();
  for (const layer of layers) {
    for (const def of layer) {
      const previous = winners.get(def.name);
      if (previous !== undefined) {
        out.overridden.push(previous);
        out.diagnostics.push(
          diagnostic(
            "info",
            def.path,
            `Agent "${def.name}" from ${def.source} overrides the one from ${previous.source} (${previous.path})`,
            { field: "name" },
          ),
        );
      }
      winners.set(def.name, def);
    }
  }
  return [...winners.values()];
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
