// Owns the immutable registry snapshot a session works on: the winning agent definitions of one
// workspace, frozen, plus the text that lists them for the model. Does not load or reload anything:
// a reload builds a new snapshot and never changes an existing one.

import { BladeError } from "../errors.ts";
import type { AgentDefinition } from "./schema.ts";

function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function frozenCopy(definition: AgentDefinition): AgentDefinition {
  return Object.freeze({
    ...definition,
    tools: definition.tools === null ? null : Object.freeze([...definition.tools]) as string[],
    disallowedTools: Object.freeze([...definition.disallowedTools]) as string[],
    skills: Object.freeze([...definition.skills]) as string[],
  });
}

/** How an agent's tools read for the model and for people. */
export function describeTools(definition: Pick<AgentDefinition, "tools" | "disallowedTools">): string {
  const denied = new Set(definition.disallowedTools);
  if (definition.tools === null) {
    return denied.size === 0 ? "All tools" : `All tools except ${[...denied].join(", ")}`;
  }
  const tools = definition.tools.filter((t) => !denied.has(t));
  return tools.length === 0 ? "No tools" : tools.join(", ");
}

export class RegistrySnapshot {
  /** Canonical path of the workspace this snapshot belongs to. */
  readonly workspace: string;
  readonly #byName: ReadonlyMap<string, AgentDefinition>;
  readonly #list: readonly AgentDefinition[];

  /** Later definitions of the same name win (callers pass them in precedence order). */
  constructor(workspace: string, definitions: readonly AgentDefinition[]) {
    const byName = new Map<string, AgentDefinition>();
    for (const d of definitions) byName.set(d.name, frozenCopy(d));
    this.workspace = workspace;
    this.#list = Object.freeze([...byName.values()].sort((a, b) => compareNames(a.name, b.name)));
    this.#byName = byName;
    Object.freeze(this);
  }

  get(name: string): AgentDefinition | undefined {
    return this.#byName.get(name);
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The definition, or a BladeError "agent_not_found" that lists the available names. */
  require(name: string): AgentDefinition {
    const found = this.#byName.get(name);
    if (found !== undefined) return found;
    const near = this.names().find((n) => n.toLowerCase() === name.toLowerCase());
    const available = this.names();
    throw new BladeError("agent_not_found", `Unknown agent "${name}"`, {
      hint: near !== undefined
        ? `Did you mean "${near}"? Available agents: ${available.join(", ")}`
        : available.length === 0
        ? "No agents are available"
        : `Available agents: ${available.join(", ")}`,
    });
  }

  /** Names sorted case-insensitively. */
  names(): string[] {
    return this.#list.map((d) => d.name);
  }

  list(): readonly AgentDefinition[] {
    return this.#list;
  }

  get size(): number {
    return this.#list.length;
  }

  /** The agent listing the parent model sees in its Task tool description. */
  describeForModel(): string {
    if (this.#list.length === 0) return "No subagents available.";
    const lines = this.#list.map((d) => `- ${d.name}: ${d.description} (Tools: ${describeTools(d)})`);
    return ["Available agent types and the tools they have access to:", ...lines].join("\n");
  }
}
