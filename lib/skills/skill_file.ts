// Owns skills as files (docs/guides/memory.md): `<dir>/<name>/SKILL.md` in the user's skills folder
// (`~/.claude/skills`, or CLAUDE_CONFIG_DIR's) and, in a trusted folder, the project's
// `.claude/skills`; each skill's name (frontmatter `name`, else its folder), description and
// allowed-tools. Only the frontmatter is kept when listing; a skill's body is read on a Skill call.

import type { Fs } from "../sys/fs.ts";
import { dirname, join } from "../path.ts";
import { readSuppliedFile } from "../memory/supplied_file.ts";
import { splitFrontmatter } from "../registry/frontmatter.ts";
import { readSimpleFrontmatter } from "../registry/simple_yaml.ts";
import { readLenientFrontmatter } from "../registry/lenient.ts";
import { bodyAfterFrontmatter, toolList } from "../commands/command_file.ts";
import { folderEntries } from "../memory/folder_entries.ts";

export type SkillSource = "user" | "project";

export interface SkillFile {
  name: string;
  description: string;
  source: SkillSource;
  /** The skill's folder (its other files are the skill's to use). */
  dir: string;
  path: string;
  /** Tool rules a call of the skill narrows the rest of its turn to. */
  allowedTools?: string[];
  /** `disable-model-invocation: true`: not listed to the model, and the Skill tool refuses it. */
  userOnly: boolean;
  /**
   * A remote child's skill that is not in its checkout (worker/job_skills.ts): its instructions as the
   * parent read them, carried with the job; it has no folder or file on this machine (dir and path "").
   */
  text?: string;
  /** Such a skill that did not travel: why, said when it is called. */
  unavailable?: string;
}

export interface SkillDiagnostic {
  path: string;
  message: string;
}

/** Skills in one folder at most (a runaway folder cannot flood the listing). */
export const MAX_SKILLS_PER_FOLDER = 100;
/** A description longer than this is cut in the listing. */
export const MAX_SKILL_DESCRIPTION = 1024;

/** The folders skills come from, in listing order: the user's, then the project's (when trusted). */
export function skillDirs(
  o: { workspace: string; trusted: boolean; userDir: string | undefined },
): { source: SkillSource; dir: string }[] {
  return [
    ...(o.userDir === undefined ? [] : [{ source: "user" as const, dir: join(o.userDir, "skills") }]),
    ...(o.trusted ? [{ source: "project" as const, dir: join(o.workspace, ".claude", "skills") }] : []),
  ];
}

/** Every skill of `dirs`; a later folder's skill replaces an earlier one of the same name in place. */
export async function listSkills(
  fs: Fs,
  dirs: readonly { source: SkillSource; dir: string }[],
): Promise<{ value: SkillFile[]; diagnostics: SkillDiagnostic[] }> {
  const byName = new Map<string, SkillFile>();
  const diagnostics: SkillDiagnostic[] = [];
  for (const { source, dir } of dirs) {
    const entries = (await folderEntries(fs, dir)).filter((e) => e.isDirectory || e.isSymlink)
      .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const files = await Promise.all(
      entries.slice(0, MAX_SKILLS_PER_FOLDER).map(async (e) => {
        const path = join(dir, e.name, "SKILL.md");
        return { folder: e.name, path, read: await readSkillFile(fs, { source, path }) };
      }),
    );
    for (const { folder, path, read } of files) {
      if (read === null) continue;
      if ("refused" in read) {
        diagnostics.push({ path, message: `${path}: ${read.refused}: not listed` });
        continue;
      }
      const skill = parseSkill(read.text, { folder, source, dir: join(dir, folder), path });
      if (typeof skill === "string") diagnostics.push({ path, message: `${path}: ${skill}` });
      else byName.set(skill.name, skill);
    }
  }
  return { value: [...byName.values()], diagnostics };
}

/** A SKILL.md's listing fields, or why it cannot be listed. */
export function parseSkill(
  text: string,
  at: { folder: string; source: SkillSource; dir: string; path: string },
): SkillFile | string {
  const split = splitFrontmatter(text);
  const fields = split.ok ? frontmatterFields(split.frontmatter.text, split.frontmatter.firstLine) : {};
  const body = split.ok ? split.frontmatter.body : text.trim();
  const str = (key: string) => typeof fields[key] === "string" ? (fields[key] as string).trim() : "";
  const name = str("name") || at.folder;
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/.test(name)) {
    return `the skill name "${name}" is not valid: not listed`;
  }
  const description = (str("description") || body.split("\n").find((l) => l.trim() !== "")?.trim() || name)
    .slice(0, MAX_SKILL_DESCRIPTION);
  const tools = toolList(fields["allowed-tools"]);
  return {
    name,
    description,
    source: at.source,
    dir: at.dir,
    path: at.path,
    ...(tools === undefined ? {} : { allowedTools: tools }),
    userOnly: fields["disable-model-invocation"] === true || fields["disable-model-invocation"] === "true",
  };
}

function frontmatterFields(text: string, firstLine: number): Record<string, unknown> {
  const simple = readSimpleFrontmatter(text, firstLine)?.values;
  if (simple !== undefined) return simple;
  const lenient = readLenientFrontmatter(text, firstLine);
  return lenient.ok ? lenient.fields : {};
}

/**
 * A SKILL.md's text (lib/memory/supplied_file.ts): a project's only when it leads to a file inside
 * its project, `<project>/.claude/skills/<folder>/SKILL.md`.
 */
export function readSkillFile(
  fs: Fs,
  at: { source: SkillSource; path: string },
): Promise<{ text: string } | { refused: string } | null> {
  return readSuppliedFile(fs, at.path, at.source === "project" ? { project: upFrom(at.path, 4) } : {});
}

/** The folder `levels` above `path`. */
function upFrom(path: string, levels: number): string {
  let folder = path;
  for (let i = 0; i < levels; i++) folder = dirname(folder);
  return folder;
}

/** The body a Skill call loads: the file read again (it may have changed), after its frontmatter. */
export async function skillBody(fs: Fs, skill: SkillFile): Promise<string> {
  const read = await readSkillFile(fs, skill);
  if (read === null) throw new Error(`${skill.path} does not exist`);
  if ("refused" in read) throw new Error(`${skill.path}: ${read.refused}`);
  return bodyAfterFrontmatter(read.text);
}

/** What a Skill call loads: a carried skill's text, else its file's body; a string = why it cannot. */
export async function loadSkill(fs: Fs, skill: SkillFile): Promise<{ body: string } | string> {
  if (skill.unavailable !== undefined) return skill.unavailable;
  if (skill.text !== undefined) return { body: skill.text };
  const read = await readSkillFile(fs, skill).catch(() => null);
  if (read !== null && "refused" in read) {
    return `Cannot read the skill ${skill.name} (${skill.path}): ${read.refused}.`;
  }
  return read === null
    ? `Cannot read the skill ${skill.name} (${skill.path}).`
    : { body: bodyAfterFrontmatter(read.text) };
}
