// Owns output styles (docs/guides/memory.md): the built-in Explanatory and Learning styles (Blade's own
// words) and style files — `~/.claude/output-styles/*.md` and, in a trusted folder,
// `.claude/output-styles/*.md` (frontmatter `name`, `description`, `keep-coding-instructions`) — chosen
// by `--output-style` or the `outputStyle` setting. The system prompt applies it
// (session/system_prompt.ts). Only the chosen style's folder entries are read.

import type { Fs } from "../sys/fs.ts";
import { basename, join } from "../path.ts";
import { splitFrontmatter } from "../registry/frontmatter.ts";
import { readSimpleFrontmatter } from "../registry/simple_yaml.ts";
import { readLenientFrontmatter } from "../registry/lenient.ts";
import { folderEntries } from "../memory/folder_entries.ts";

export interface OutputStyle {
  name: string;
  description?: string;
  /** What the system prompt says about how to respond. */
  body: string;
  /** Keep Blade's software-engineering introduction (false for a custom style unless it says so). */
  keepCodingInstructions: boolean;
  /** The file it came from; absent for a built-in style. */
  path?: string;
}

export const BUILT_IN_STYLES: readonly OutputStyle[] = [
  {
    name: "Explanatory",
    description: "Explains implementation choices and the codebase's patterns while working",
    keepCodingInstructions: true,
    body: [
      "Explain as you work. Before and after writing code, add short insights about the implementation",
      "choices you make and the patterns of this codebase: why this approach, what it trades off, how it",
      "fits what is already there. Set them apart from the work with a line such as `Insight:`, keep each",
      "to two or three points specific to this code, and keep the task moving.",
    ].join("\n"),
  },
  {
    name: "Learning",
    description: "Pair-programs: explains, and asks the user to write small meaningful pieces",
    keepCodingInstructions: true,
    body: [
      "Work as a pair-programming teacher. Explain your choices briefly as you go. When a small piece of",
      "code (about 5 to 10 lines) shapes the design — a decision, a tricky condition, a core function —",
      "do not write it yourself: leave a `TODO(human)` comment at its place, explain what it must do and",
      "why it matters, and ask the user to write it. Continue once they have. Do everything else yourself.",
    ].join("\n"),
  },
];

/** The folders style files come from, first match wins: the project's (when trusted), then the user's. */
export function styleDirs(o: { workspace: string; trusted: boolean; userDir: string | undefined }): string[] {
  return [
    ...(o.trusted ? [join(o.workspace, ".claude", "output-styles")] : []),
    ...(o.userDir === undefined ? [] : [join(o.userDir, "output-styles")]),
  ];
}

/**
 * The style named `name` (its `name` field or file name, any letter case); undefined for the default
 * style, "missing" when no style has that name.
 */
export async function findOutputStyle(
  fs: Fs,
  dirs: readonly string[],
  name: string,
): Promise<OutputStyle | undefined | "missing"> {
  const wanted = name.trim().toLowerCase();
  if (wanted === "" || wanted === "default") return undefined;
  for (const dir of dirs) {
    const entries = (await folderEntries(fs, dir)).filter((e) => !e.isDirectory && e.name.endsWith(".md"))
      .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    for (const e of entries) {
      const path = join(dir, e.name);
      const text = await fs.readTextIfExists(path).catch(() => null);
      if (text === null) continue;
      const style = parseOutputStyle(text, path);
      if (
        style.name.toLowerCase() === wanted || basename(path).replace(/\.md$/, "").toLowerCase() === wanted
      ) return style;
    }
  }
  return BUILT_IN_STYLES.find((s) => s.name.toLowerCase() === wanted) ?? "missing";
}

export function parseOutputStyle(text: string, path: string): OutputStyle {
  const split = splitFrontmatter(text);
  const fields: Record<string, unknown> = !split.ok ? {} : readSimpleFrontmatter(
    split.frontmatter.text,
    split.frontmatter.firstLine,
  )?.values ?? (() => {
    const lenient = readLenientFrontmatter(split.frontmatter.text, split.frontmatter.firstLine);
    return lenient.ok ? lenient.fields : {};
  })();
  const str = (key: string) => typeof fields[key] === "string" ? (fields[key] as string).trim() : "";
  const keep = fields["keep-coding-instructions"];
  const description = str("description");
  return {
    name: str("name") || basename(path).replace(/\.md$/, ""),
    ...(description === "" ? {} : { description }),
    body: split.ok ? split.frontmatter.body : text.trim(),
    keepCodingInstructions: keep === true || keep === "true",
    path,
  };
}
