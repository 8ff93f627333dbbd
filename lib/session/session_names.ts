// Owns the display names of a folder's top-level sessions (`blade -p -n <name>`, Claude Code's
// `--name`): `<project dir>/session-names.json`, `{version: 1, names: {<sessionId>: <name>}}`, written
// atomically. Resume lists show a session by its name, and `--resume <name>` finds it. A name is one
// line of at most 200 printable characters. A broken file is read as no names (names are a
// convenience; the transcripts are the record).

import type { Fs } from "../sys/fs.ts";
import { BladeError } from "../errors.ts";

const FILE = "session-names.json";

export const MAX_NAME_CHARS = 200;

/** A name as given, or a usage error saying what is wrong with it. */
export function checkSessionName(name: string): string {
  const trimmed = name.trim();
  // deno-lint-ignore no-control-regex
  if (trimmed === "" || trimmed.length > MAX_NAME_CHARS || /[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) {
    throw new BladeError("usage", `Invalid session name ${JSON.stringify(name.slice(0, 80))}.`, {
      exitCode: 2,
      hint: `Give --name one line of 1 to ${MAX_NAME_CHARS} characters.`,
    });
  }
  return trimmed;
}

/** The names of the sessions of `dir` (a project folder of the storage root), by session id. */
export async function readSessionNames(fs: Fs, dir: string): Promise<Record<string, string>> {
  const text = await fs.readTextIfExists(`${dir}/${FILE}`).catch(() => null);
  if (text === null) return {};
  try {
    const names = (JSON.parse(text) as { names?: unknown }).names;
    if (typeof names !== "object" || names === null || Array.isArray(names)) return {};
    return Object.fromEntries(Object.entries(names).filter(([, v]) => typeof v === "string")) as Record<
      string,
      string
    >;
  } catch {
    return {};
  }
}

/** Names session `id` (replacing an earlier name). */
export async function setSessionName(
  fs: Fs,
  dir: string,
  o: { sessionId: string; name: string },
): Promise<void> {
  const names = { ...await readSessionNames(fs, dir), [o.sessionId]: checkSessionName(o.name) };
  await fs.ensureDir(dir, 0o700);
  await fs.writeAtomic(`${dir}/${FILE}`, JSON.stringify({ version: 1, names }, null, 2) + "\n");
}

/**
 * The session a `--resume` value means: the value itself when it is a session's id, else the session
 * of that name (the most recently named one when several share it), else undefined.
 */
export function sessionByName(names: Readonly<Record<string, string>>, value: string): string | undefined {
  const named = Object.entries(names).filter(([, n]) => n === value).map(([id]) => id);
  return named.at(-1);
}
