// Owns reading a Markdown file that the user or a repository supplies to the session: a skill's
// SKILL.md (lib/skills/skill_file.ts) and a custom command (lib/commands/command_file.ts). Such a
// file is read only when it is a regular file, never a FIFO or a device (reading one could block
// forever), and only up to MAX_SUPPLIED_FILE_BYTES. A repository's file must also lead, symlinks
// followed, to a file inside its project. Without that rule, a link such as
// `.claude/skills/x/SKILL.md -> ~/.ssh/id_rsa` would put the target's text in front of the model.
// A child or a remote worker would then see it too, past its own grant, because Deno checks a path
// as it is written and does not follow it. So a repository's file is read at its real path, the one
// the grant must cover. The user's own files (a skills folder linked to their dotfiles) are read at
// the path as written.

import type { Fs } from "../sys/fs.ts";
import { isInside } from "../path.ts";

/** A supplied file larger than this is not read (a skill is not listed, a command not run). */
export const MAX_SUPPLIED_FILE_BYTES = 262_144;

/**
 * The text of `path`; null when nothing is there; `refused` (why, as a phrase) when it is no regular
 * file, is over the limit, or — `project` given — leads outside that folder.
 */
export async function readSuppliedFile(
  fs: Fs,
  path: string,
  o: { project?: string } = {},
): Promise<{ text: string } | { refused: string } | null> {
  const real = await fs.realPath(path).catch(() => null);
  if (real === null) return null;
  let at = path;
  if (o.project !== undefined) {
    const project = await fs.realPath(o.project).catch(() => o.project!);
    if (!isInside(real, project)) return { refused: `it leads outside the project (to ${real})` };
    at = real;
  }
  const read = await fs.readRegularFile(at, { maxBytes: MAX_SUPPLIED_FILE_BYTES })
    .catch((e: unknown) => ({ kind: "failed" as const, why: e instanceof Error ? e.message : String(e) }));
  if (read.kind === "failed") return { refused: `it cannot be read (${read.why})` };
  if (read.kind === "not_regular") return { refused: `it is ${read.what}, not a file` };
  if (read.truncated) return { refused: `it is larger than ${MAX_SUPPLIED_FILE_BYTES} bytes` };
  return { text: new TextDecoder().decode(read.bytes) };
}
