// Owns moving project folders of the old layout (`projects/<escaped path>`, where `/x/a/b` and `/x/a-b`
// shared one folder) to the one-to-one layout (`projects/<escaped path>-<16 hex of sha256(path)>`,
// config/storage.ts projectFolderName), once per storage root (docs/reference/sessions.md "Project
// folders"). Each transcript says whose it is (its first line's `projectPath`), so each file is moved to
// the folder of its own project, and a folder two projects shared is split between them. Crash-safe:
// every move is one rename within `projects/` (atomic: a file is under its old name or its new one,
// never both, never neither); a session's other files (`<id>.inbox.json`, …) move before its transcript,
// so a rerun still finds whose they are; a rerun decides from the files alone, so it redoes exactly
// what is left; folders are fsynced before the marker `projects/.layout` is written (atomically), and
// only the marker ends the scan at later starts. Concurrent starts take turns under an exclusive lock
// of `projects/`. Leases (`.locks/`) are not moved: a lease names a live process, and a dead holder's
// is taken over in the new folder anyway.

import type { Fs } from "../sys/fs.ts";
import { projectFolderName, type StorageLayout } from "../config/storage.ts";

/** The marker's content: the layout version the folders are in. */
const LAYOUT = { version: 2 };
const MARKER = ".layout";
/** A transcript's first line (its session_created envelope) fits in this many bytes. */
const FIRST_LINE_BYTES = 64 * 1024;

export interface MigrationReport {
  /** Files moved, as `old → new` paths. */
  moved: string[];
  /** Files left where they are, with the reason (whose they are could not be told, or a name is taken). */
  left: string[];
}

/**
 * Moves every file of the old layout to its project's folder, once: a storage root whose marker says
 * it is done costs one stat. Returns what it did (empty once done).
 */
export async function migrateProjectFolders(fs: Fs, layout: StorageLayout): Promise<MigrationReport> {
  const report: MigrationReport = { moved: [], left: [] };
  const dir = layout.projectsDir;
  const marker = `${dir}/${MARKER}`;
  if ((await fs.lstat(marker)) !== null) return report;
  if ((await fs.lstat(dir)) === null) return report; // nothing stored yet
  await fs.withLockedDir(dir, async () => {
    if ((await fs.lstat(marker)) !== null) return; // another process finished it meanwhile
    for (const entry of await fs.readDir(dir)) {
      if (entry.isDirectory && !entry.name.startsWith(".")) {
        await migrateFolder(fs, { dir, name: entry.name, report });
      }
    }
    await fs.syncDir(dir);
    await fs.writeAtomic(marker, JSON.stringify(LAYOUT) + "\n");
  });
  return report;
}

/** The project a transcript belongs to: the `projectPath` of its first line, or undefined. */
async function ownerOf(fs: Fs, path: string): Promise<string | undefined> {
  try {
    const read = await fs.readRegularFile(path, { maxBytes: FIRST_LINE_BYTES });
    if (read.kind !== "file") return undefined;
    const text = new TextDecoder().decode(read.bytes);
    const first = JSON.parse(text.slice(0, text.indexOf("\n") < 0 ? text.length : text.indexOf("\n")));
    return typeof first?.projectPath === "string" && first.projectPath !== "" ? first.projectPath : undefined;
  } catch {
    return undefined;
  }
}

/** The session id a file of a project folder belongs to (`<id>.jsonl`, `<id>.inbox.json`, …). */
function sessionOf(name: string): string | undefined {
  const dot = name.indexOf(".");
  return dot > 0 ? name.slice(0, dot) : undefined;
}

async function migrateFolder(
  fs: Fs,
  o: { dir: string; name: string; report: MigrationReport },
): Promise<void> {
  const { dir, name, report } = o;
  const folder = `${dir}/${name}`;
  const files = (await fs.readDir(folder)).filter((e) => e.isFile && !e.name.startsWith("."));
  const owners = new Map<string, string>(); // session id → project path
  for (const f of files) {
    if (!f.name.endsWith(".jsonl")) continue;
    const owner = await ownerOf(fs, `${folder}/${f.name}`);
    if (owner !== undefined) owners.set(f.name.slice(0, -".jsonl".length), owner);
  }
  const projects = new Set(owners.values());
  // A file of no known session (the prompt history) goes with the folder's only project; in a folder
  // two projects shared it is hidden (`.unowned-<name>`) before anything moves, so a rerun that finds
  // only one project left does not give it to that one.
  const sole = projects.size === 1 ? [...projects][0] : undefined;
  const moves: { file: string; to: string; rank: number }[] = [];
  for (const f of files) {
    const session = sessionOf(f.name);
    const own = session === undefined ? undefined : owners.get(session);
    const owner = own ?? sole;
    if (owner === undefined) {
      if (projects.size > 1) moves.push({ file: f.name, to: `${name}/.unowned-${f.name}`, rank: 0 });
      report.left.push(`${folder}/${f.name} (whose project it is cannot be told)`);
      continue;
    }
    const target = projectFolderName(owner);
    if (target === name) continue; // in place already
    // Files of no session first, then a session's other files, its transcript last: a rerun after a
    // crash still finds whose each file is.
    const rank = own === undefined ? 1 : f.name.endsWith(".jsonl") ? 3 : 2;
    moves.push({ file: f.name, to: `${target}/${f.name}`, rank });
  }
  moves.sort((a, b) => a.rank - b.rank);
  const targets = new Set(moves.map((m) => m.to.slice(0, m.to.indexOf("/"))).filter((t) => t !== name));
  for (const target of targets) await fs.ensureDir(`${dir}/${target}`);
  for (const { file, to } of moves) {
    const into = `${dir}/${to}`;
    if ((await fs.lstat(into)) !== null) {
      report.left.push(`${folder}/${file} (${into} exists)`);
      continue;
    }
    await fs.rename(`${folder}/${file}`, into);
    if (!to.startsWith(`${name}/`)) report.moved.push(`${folder}/${file} → ${into}`);
  }
  for (const target of targets) await fs.syncDir(`${dir}/${target}`);
  if (moves.length > 0) await fs.syncDir(folder);
  await removeIfEmpty(fs, folder);
}

/** The old folder once nothing of it is left but its leases (which name no live session of the new layout). */
async function removeIfEmpty(fs: Fs, folder: string): Promise<void> {
  const rest = await fs.readDir(folder);
  if (rest.some((e) => e.name !== ".locks")) return;
  await fs.remove(folder, { recursive: true }).catch(() => {});
}
