// Owns custom slash commands as files (docs/guides/memory.md): where a `/name` is looked for
// (`.claude/commands/` of a trusted project, then `~/.claude/commands/`; `a:b` is `a/b.md`), reading one
// command's frontmatter (description, argument-hint, allowed-tools, model) and body, and listing the
// names for /help and Tab completion. A command is read only when a prompt names it.

import type { Fs } from "../sys/fs.ts";
import { dirname, join } from "../path.ts";
import { splitFrontmatter } from "../registry/frontmatter.ts";
import { readSimpleFrontmatter } from "../registry/simple_yaml.ts";
import { readLenientFrontmatter } from "../registry/lenient.ts";
import { folderEntries } from "../memory/folder_entries.ts";
import { readSuppliedFile } from "../memory/supplied_file.ts";

export type CommandSource = "project" | "user";

export interface CommandDir {
  source: CommandSource;
  dir: string;
}

export interface CommandFile {
  /** `review`, or `frontend:component` for `frontend/component.md`. */
  name: string;
  source: CommandSource;
  path: string;
  description?: string;
  argumentHint?: string;
  /** Tool rules the command narrows its turn to (never more than the session may do). */
  allowedTools?: string[];
  model?: string;
  body: string;
}

/** Names a command may have: words of letters, digits, `_`, `-` and `.`, joined by `:`. */
export const COMMAND_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*(?::[A-Za-z0-9_][A-Za-z0-9_.-]*)*$/;

/** The folders commands come from, first match wins: the project's (when trusted), then the user's. */
export function commandDirs(
  o: { workspace: string; trusted: boolean; userDir: string | undefined },
): CommandDir[] {
  return [
    ...(o.trusted ? [{ source: "project" as const, dir: join(o.workspace, ".claude", "commands") }] : []),
    ...(o.userDir === undefined ? [] : [{ source: "user" as const, dir: join(o.userDir, "commands") }]),
  ];
}

/** A command file that is there but was not read (lib/memory/supplied_file.ts): why. */
export interface RefusedCommand {
  name: string;
  path: string;
  refused: string;
}

/**
 * The command `name`, read from the first folder that has it; undefined when none does; refused
 * when its file is no regular file, is too large, or (a project's) leads outside the project.
 */
export async function findCommand(
  fs: Fs,
  dirs: readonly CommandDir[],
  name: string,
): Promise<CommandFile | RefusedCommand | undefined> {
  if (!COMMAND_NAME.test(name)) return undefined;
  for (const at of dirs) {
    const path = join(at.dir, ...name.split(":")) + ".md";
    const read = await readCommandFile(fs, { at, path });
    if (read !== null && "refused" in read) return { name, path, refused: read.refused };
    if (read !== null) return parseCommand(read.text, { name, source: at.source, path });
  }
  return undefined;
}

/** A command file's text; a project's only when it leads inside `<project>/` (the folder above `.claude`). */
function readCommandFile(fs: Fs, o: { at: CommandDir; path: string }) {
  const { at, path } = o;
  return readSuppliedFile(fs, path, at.source === "project" ? { project: dirname(dirname(at.dir)) } : {})
    .catch(() => null);
}

/** A command file's fields; frontmatter Claude Code accepts but YAML does not is read leniently. */
export function parseCommand(
  text: string,
  at: { name: string; source: CommandSource; path: string },
): CommandFile {
  const split = splitFrontmatter(text);
  if (!split.ok) return { ...at, body: text.replace(/^\uFEFF/, "") };
  const { frontmatter } = split;
  const simple = readSimpleFrontmatter(frontmatter.text, frontmatter.firstLine)?.values;
  const lenient = simple === undefined
    ? readLenientFrontmatter(frontmatter.text, frontmatter.firstLine)
    : undefined;
  const fields: Record<string, unknown> = simple ?? (lenient?.ok === true ? lenient.fields : {});
  const text_ = (key: string) =>
    typeof fields[key] === "string" && fields[key] !== "" ? fields[key] as string : undefined;
  const tools = toolList(fields["allowed-tools"]);
  const description = text_("description");
  const argumentHint = text_("argument-hint");
  const model = text_("model");
  return {
    ...at,
    ...(description === undefined ? {} : { description }),
    ...(argumentHint === undefined ? {} : { argumentHint }),
    ...(tools === undefined ? {} : { allowedTools: tools }),
    ...(model === undefined ? {} : { model }),
    body: bodyAfterFrontmatter(text),
  };
}

/** `Read, Bash(git diff:*)` or a YAML list → rule texts; commas inside parentheses stay. */
export function toolList(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v.trim() !== "");
  if (typeof value !== "string") return undefined;
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of value) {
    if (ch === "(") depth++;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (ch === "," && depth === 0) {
      if (current.trim() !== "") out.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim() !== "") out.push(current.trim());
  return out;
}

/** The text after the closing `---`, as written (Claude Code keeps the body's own line ends). */
export function bodyAfterFrontmatter(text: string): string {
  const normal = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines = normal.split("\n");
  let open = 0;
  while (open < lines.length && lines[open]!.trim() === "") open++;
  for (let close = open + 1; close < lines.length; close++) {
    if (lines[close]!.trimEnd() === "---") return lines.slice(close + 1).join("\n");
  }
  return normal;
}

/** Every command name in `dirs` (first folder wins), sorted: for /help and Tab completion. */
export async function listCommands(fs: Fs, dirs: readonly CommandDir[]): Promise<CommandFile[]> {
  const found = new Map<string, CommandFile>();
  for (const { source, dir } of dirs) {
    for (const [name, path] of await markdownNames(fs, dir, [])) {
      if (found.has(name) || !COMMAND_NAME.test(name)) continue;
      const read = await readCommandFile(fs, { at: { source, dir }, path });
      if (read !== null && "text" in read) found.set(name, parseCommand(read.text, { name, source, path }));
    }
  }
  return [...found.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

async function markdownNames(fs: Fs, dir: string, prefix: string[]): Promise<[string, string][]> {
  const entries = await folderEntries(fs, dir);
  const out: [string, string][] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory && prefix.length < 4) out.push(...await markdownNames(fs, path, [...prefix, e.name]));
    else if (!e.isDirectory && e.name.endsWith(".md")) {
      out.push([[...prefix, e.name.slice(0, -3)].join(":"), path]);
    }
  }
  return out;
}
