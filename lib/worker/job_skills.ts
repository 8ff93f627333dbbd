// Owns the skills a remote child gets (docs/guides/remote.md): the same catalogue a local child of the
// parent gets (executor/child_context.ts), moved as data. A skill whose SKILL.md is in the parent's
// snapshot goes by its folder's name and is read from the worker's checkout, its other files with
// it; any other skill (the user's `~/.claude/skills`, a project skill the snapshot leaves out) goes
// with the job as its instructions' text, within MAX_CARRIED_SKILL_BYTES for all of them; its other
// files stay on the parent's machine. The text is file content for the child's model, never anything
// the worker runs. Pure, except `readJobSkills`, which reads the parent's files for the job.

import type { Fs } from "../sys/fs.ts";
import { join } from "../path.ts";
import type { SkillFile } from "../skills/skill_file.ts";
import { skillBody } from "../skills/skill_file.ts";
import { array, boolean, type Check, object, optional, string } from "../protocol/check.ts";

/** One skill of the parent's catalogue as its job carries it: exactly one of folder, text, unavailable. */
export interface JobSkill {
  name: string;
  description: string;
  userOnly: boolean;
  allowedTools?: string[];
  /** In the snapshot: its folder under the project's `.claude/skills`, read from the worker's checkout. */
  folder?: string;
  /** Not in the snapshot: the instructions (SKILL.md after its frontmatter) as the parent read them. */
  text?: string;
  /** Not in the snapshot and not carried: why (said when the child calls it). */
  unavailable?: string;
}

/** The carried skills' texts together, in UTF-8 bytes, at most (a job stays well inside a NATS message). */
export const MAX_CARRIED_SKILL_BYTES = 256 * 1024;
/** Skills in one job at most (two folders of lib/skills' MAX_SKILLS_PER_FOLDER). */
export const MAX_JOB_SKILLS = 200;

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;
const bytes = (text: string) => new TextEncoder().encode(text).length;

/** A folder name under `.claude/skills`: one path segment. */
export function isSkillFolder(folder: string): boolean {
  return folder !== "." && folder !== ".." && !folder.includes("\0") && /^[^/\\]{1,255}$/.test(folder);
}

/**
 * The job's skills of `skills` (catalogue order): `inSnapshot` says whether a project skill's SKILL.md is
 * in the snapshot (by its folder); `texts` holds the instructions the parent read of the others.
 */
export function jobSkills(
  skills: readonly SkillFile[],
  o: { inSnapshot: (folder: string) => boolean; texts: ReadonlyMap<string, string> },
): JobSkill[] {
  let budget = MAX_CARRIED_SKILL_BYTES;
  return skills.map((s) => {
    const listed = {
      name: s.name,
      description: s.description,
      userOnly: s.userOnly,
      ...(s.allowedTools === undefined ? {} : { allowedTools: [...s.allowedTools] }),
    };
    const folder = folderOf(s);
    if (s.source === "project" && folder !== undefined && o.inSnapshot(folder)) return { ...listed, folder };
    const text = o.texts.get(s.name);
    if (text === undefined) {
      return { ...listed, unavailable: `The skill ${s.name} could not be read on the parent's machine.` };
    }
    const size = bytes(text);
    if (size > budget) {
      return {
        ...listed,
        unavailable: `The skill ${s.name} (${size} bytes) did not travel with this remote child's job: ` +
          `the skills not in the repository may take ${MAX_CARRIED_SKILL_BYTES} bytes together.`,
      };
    }
    budget -= size;
    return { ...listed, text };
  });
}

/** The folder of a project skill under `.claude/skills` (the last segment of its dir). */
function folderOf(skill: SkillFile): string | undefined {
  const folder = skill.dir.split("/").pop();
  return folder !== undefined && isSkillFolder(folder) ? folder : undefined;
}

/** The job's skills of a child's catalogue, read on the parent's machine (`snapshotFiles`: the snapshot's files under `.claude/skills`). */
export async function readJobSkills(
  fs: Fs,
  o: { skills: readonly SkillFile[]; snapshotFiles: ReadonlySet<string> },
): Promise<JobSkill[]> {
  const inSnapshot = (folder: string) => o.snapshotFiles.has(`.claude/skills/${folder}/SKILL.md`);
  const texts = new Map<string, string>();
  for (const s of o.skills) {
    const folder = folderOf(s);
    if (s.source === "project" && folder !== undefined && inSnapshot(folder)) continue;
    const text = await skillBody(fs, s).catch(() => undefined);
    if (text !== undefined) texts.set(s.name, text);
  }
  return jobSkills(o.skills, { inSnapshot, texts });
}

/** The job's skills as the worker's child gets them: folders in `workspaceRoot` (its checkout), texts as data. */
export function skillsOfJob(skills: readonly JobSkill[], o: { workspaceRoot: string }): SkillFile[] {
  return skills.map((s) => {
    const base = {
      name: s.name,
      description: s.description,
      userOnly: s.userOnly,
      ...(s.allowedTools === undefined ? {} : { allowedTools: s.allowedTools }),
    };
    if (s.folder !== undefined) {
      const dir = join(o.workspaceRoot, ".claude", "skills", s.folder);
      return { ...base, source: "project", dir, path: join(dir, "SKILL.md") };
    }
    // Nothing of it is on this machine: no folder to read, none made readable.
    const carried = s.text === undefined ? { unavailable: s.unavailable ?? "" } : { text: s.text };
    return { ...base, source: "user", dir: "", path: "", ...carried };
  });
}

/** The check of a job's `skills` (parseWith), then `skillsInvalid` for what a type cannot say. */
export const jobSkillsCheck: Check = array(object({
  name: string({ pattern: NAME }),
  description: string({ max: 1024 }),
  userOnly: boolean(),
  allowedTools: optional(array(string())),
  folder: optional(string({ refine: isSkillFolder })),
  text: optional(string({ max: MAX_CARRIED_SKILL_BYTES })),
  unavailable: optional(string({ max: 1000 })),
}));

/** Why a job's skills are not what a parent publishes, or undefined. */
export function skillsInvalid(skills: readonly JobSkill[] | undefined): string | undefined {
  if (skills === undefined) return undefined;
  if (skills.length > MAX_JOB_SKILLS) return `more than ${MAX_JOB_SKILLS} skills`;
  const kinds = skills.findIndex((s) =>
    [s.folder, s.text, s.unavailable].filter((x) => x !== undefined).length !== 1
  );
  if (kinds >= 0) return `grant.skills.${kinds}: not exactly one of folder, text, unavailable`;
  const carried = skills.reduce((n, s) => n + (s.text === undefined ? 0 : bytes(s.text)), 0);
  if (carried > MAX_CARRIED_SKILL_BYTES) return `the skills' texts exceed ${MAX_CARRIED_SKILL_BYTES} bytes`;
  return undefined;
}
