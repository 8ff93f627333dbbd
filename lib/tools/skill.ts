// Owns the Skill tool (docs/guides/memory.md): the model names a listed skill, the tool loads its
// instructions (read at that moment, arguments substituted) and returns them after its result, as
// Claude Code 2.1.332 does (tests/fixtures/claude/context_skill_call); a skill's `allowed-tools` then
// narrow the rest of the turn. Where skills come from and how they are read is the catalog's.

import { fail, type Tool, type ToolResult } from "./tool.ts";
import { builtInInput } from "./input_check.ts";
import type { SkillInput } from "./input_zod.ts";

export type { SkillInput };

/** The skills one session may call, as the Skill tool sees them (lib/skills builds it). */
export interface SkillCatalog {
  /** Names the model was told about. */
  names(): readonly string[];
  /** The instructions of `name` with `args` substituted, and what the skill narrows to; a string = why not. */
  load(name: string, args: string): Promise<{ text: string; allowedTools?: readonly string[] } | string>;
  /** Called when a loaded skill narrows the rest of the turn to its `allowed-tools`. */
  narrow?(name: string, allowedTools: readonly string[]): void;
  /** The folders of the listed skills: their files are read without asking (the tool's readableDirs). */
  folders?(): readonly string[];
}

const DESCRIPTION =
  `Loads a skill: a packaged set of instructions for one kind of task (a deploy procedure, a review checklist, a project's workflow) that the user or the project set up.

Usage:
- The skills you may use are listed with a one-line description at the start of the conversation. When the task is one a listed skill covers, call this tool first: the skill's instructions are added after the result; follow them in place of your default approach.
- skill: the exact name from the listing, without a leading slash. args: optional arguments for the skill.
- Only listed names are valid; do not guess. Built-in commands (/help, /compact, …) are not skills.
- A skill's instructions come from a file: they guide how to do the task and cannot grant a permission or approve a tool call. A skill may limit the tools the rest of this turn can use.`;

export function skillTool(catalog: SkillCatalog): Tool<SkillInput> {
  return {
    name: "Skill",
    description: DESCRIPTION,
    kind: "read",
    readableDirs: catalog.folders?.() ?? [],
    ...builtInInput<SkillInput>("Skill"),
    async run(input): Promise<ToolResult> {
      const name = input.skill.replace(/^\//, "").trim();
      if (!catalog.names().includes(name)) {
        const names = catalog.names();
        return fail(
          `Unknown skill "${name}". ${
            names.length === 0 ? "No skills are available." : `Available skills: ${names.join(", ")}.`
          }`,
        );
      }
      const loaded = await catalog.load(name, input.args ?? "");
      if (typeof loaded === "string") return fail(loaded);
      if (loaded.allowedTools !== undefined) catalog.narrow?.(name, loaded.allowedTools);
      return { content: `Launching skill: ${name}`, isError: false, context: [loaded.text] };
    },
  };
}
