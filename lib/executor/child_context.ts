// Owns what a subagent gets of its run's project context (docs/guides/memory.md), as Claude Code 2.1.332
// gives it (tests/fixtures/claude/context_subagent_context): the memory block (not for Explore, Plan and
// the verification agents, which work from their task alone), the skills listing and a Skill tool over the
// run's skills (when its tools allow Skill), and its definition's `skills:` loaded after its task. The
// skills' files are read by the child itself, under its own grant.

import type { Fs } from "../sys/fs.ts";
import type { AnyTool } from "../tools/tool.ts";
import { type SkillCatalog, skillTool } from "../tools/skill.ts";
import type { SkillFile } from "../skills/skill_file.ts";
import { loadSkill } from "../skills/skill_file.ts";
import { skillInstructions } from "../skills/skills_context.ts";
import { substituteArguments } from "../commands/expand_command.ts";
import { narrowingOf } from "../permissions/narrowing.ts";
import type { NarrowingGate } from "./narrowing_gate.ts";

/** What a run offers its subagents (built with the main session's context). */
export interface ChildContext {
  /** The memory block; absent for an agent that works without memory. */
  memory?: string;
  /** The skills listing block. */
  listing?: string;
  /** The skills a Skill call may load. */
  skills: SkillFile[];
}

/** Built-in agents that get no memory (Claude Code's Explore and Plan; Blade's auditors). */
export const AGENTS_WITHOUT_MEMORY: readonly string[] = [
  "Explore",
  "Plan",
  "verification",
  "goal-verification",
];

/** The context an agent gets of its run's. */
export function childContextFor(agent: string, context: ChildContext | undefined): ChildContext | undefined {
  if (context === undefined) return undefined;
  if (!AGENTS_WITHOUT_MEMORY.includes(agent)) return context;
  const { memory: _, ...rest } = context;
  return rest;
}

/** The blocks opening each of the child's requests. */
export function childBlocks(context: ChildContext | undefined): string[] {
  return [context?.memory, context?.listing].filter((b): b is string => b !== undefined);
}

/** The child's catalog: the run's listed skills, read through the child's own file system port. */
export function childCatalog(context: ChildContext | undefined, fs?: Fs, gate?: NarrowingGate): SkillCatalog {
  const listed = (context?.skills ?? []).filter((s) => !s.userOnly);
  return {
    names: () => listed.map((s) => s.name),
    // A carried skill (a remote child's, not in its checkout) has no folder here to make readable.
    folders: () => listed.filter((s) => s.dir !== "").map((s) => s.dir),
    load: async (name, args) => {
      const skill = listed.find((s) => s.name === name)!;
      const loaded = fs === undefined
        ? `Cannot read the skill ${name} (${skill.path}).`
        : await loadSkill(fs, skill);
      if (typeof loaded === "string") return loaded;
      const text = skillInstructions(skill, substituteArguments(loaded.body, args));
      return skill.allowedTools === undefined ? { text } : { text, allowedTools: skill.allowedTools };
    },
    narrow: (name, tools) => gate?.add(narrowingOf(`the skill ${name}`, tools)),
  };
}

/** The Skill tool when the run has skills (the child's tool lists then decide whether it keeps it). */
export function childSkillTools(context: ChildContext | undefined, fs?: Fs, gate?: NarrowingGate): AnyTool[] {
  const catalog = childCatalog(context, fs, gate);
  return catalog.names().length === 0 ? [] : [skillTool(catalog)];
}

/**
 * The definition's `skills:` as Claude Code loads them into a subagent: after its task, each skill's
 * command header and instructions. A name the run has no skill of is skipped.
 */
export async function preloadedSkills(
  names: readonly string[],
  context: ChildContext | undefined,
  fs: Fs,
): Promise<string[]> {
  const blocks: string[] = [];
  for (const name of names) {
    const skill = context?.skills.find((s) => s.name === name);
    if (skill === undefined) continue;
    const loaded = await loadSkill(fs, skill);
    if (typeof loaded === "string") continue;
    const body = loaded.body;
    blocks.push(
      `<command-message>${name}</command-message>\n<command-name>${name}</command-name>\n<skill-format>true</skill-format>`,
      skillInstructions(skill, substituteArguments(body, "")),
    );
  }
  return blocks;
}
