// Owns creating a new agent definition file (`blade agents create`): the name and description rules,
// the trust check for project agents, rendering the Markdown, proving the result loads, and the
// atomic write (never over an existing file unless `force`). Does not parse the command line or print
// (lib/cli/agents_cmd.ts does).

import { join } from "../path.ts";
import { BladeError, usageError } from "../errors.ts";
import type { Fs } from "../sys/fs.ts";
import { isReservedAgentName, reservedNameMessage, splitNameList, strictNameProblem } from "./names.ts";
import { parseAgentFile } from "./parse.ts";
import { defaultAgentPrompt, renderAgentFile } from "./render.ts";
import type { AgentSource } from "./schema.ts";

export interface NewAgent {
  name: string;
  description: string | undefined;
  /** A comma or space separated tool list, as typed. */
  tools?: string | undefined;
  model?: string | undefined;
  prompt?: string | undefined;
  /** `<workspace>/.blade/agents` (trusted workspaces only) instead of `<storageRoot>/agents`. */
  project: boolean;
  force: boolean;
}

export interface AgentPlace {
  /** Canonical path of the working folder. */
  workspace: string;
  trusted: boolean;
  storageRoot: string;
}

export interface CreatedAgent {
  name: string;
  source: AgentSource;
  path: string;
  overwritten: boolean;
}

/** Checks, renders and writes the file; every refusal is a BladeError saying what to do instead. */
export async function createAgentFile(fs: Fs, agent: NewAgent, place: AgentPlace): Promise<CreatedAgent> {
  const { name } = agent;
  const nameProblem = strictNameProblem(name);
  if (nameProblem !== undefined) {
    throw usageError(`Invalid agent name "${name}": ${nameProblem}`, 'Use a name such as "code-reviewer"');
  }
  if (isReservedAgentName(name)) {
    throw new BladeError("agent_reserved", reservedNameMessage(name), {
      exitCode: 2,
      hint: "Choose another name; the built-in verification agents cannot be replaced",
    });
  }
  const description = agent.description?.trim();
  if (description === undefined || description === "") {
    throw usageError(
      "Missing --description",
      'Say when the parent should use this agent, e.g. --description "Reviews diffs for security problems"',
    );
  }
  if (agent.model !== undefined && agent.model.trim() === "") throw usageError("--model must not be empty");
  if (agent.project && !place.trusted) {
    throw new BladeError(
      "workspace_untrusted",
      `Cannot create a project agent: ${place.workspace} is not trusted`,
      {
        hint: "Run `blade trust` to trust this workspace, or use --user to create a user agent",
      },
    );
  }
  const source: AgentSource = agent.project ? "project" : "user";
  const folder = agent.project
    ? join(place.workspace, ".blade", "agents")
    : join(place.storageRoot, "agents");
  const path = join(folder, `${name}.md`);
  const text = renderAgentFile({
    name,
    description,
    tools: agent.tools === undefined ? undefined : splitNameList(agent.tools),
    model: agent.model?.trim(),
    prompt: agent.prompt?.trim() || defaultAgentPrompt(name, description),
  });
  const problem = (await parseAgentFile(text, { path, source })).diagnostics.find((d) =>
    d.severity === "error"
  );
  if (problem !== undefined) {
    throw usageError(`Cannot create agent "${name}": ${problem.message}`, problem.hint);
  }
  const existed = (await fs.lstat(path)) !== null;
  if (existed && !agent.force) {
    throw new BladeError("agent_exists", `Agent file already exists: ${path}`, {
      hint: "Pass --force to overwrite it, or choose another name",
    });
  }
  await fs.writeAtomic(path, text, { mode: 0o600 });
  return { name, source, path, overwritten: existed };
}
