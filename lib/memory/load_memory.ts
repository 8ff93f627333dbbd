// Owns finding and reading a session's memory files (docs/guides/memory.md), in Claude Code 2.1.332's
// order: the managed file, the user's (`CLAUDE.md`, then `rules/`), then — only in a trusted folder —
// each folder from the top-most ancestor down to the working folder (`CLAUDE.md`, or `AGENTS.md` where
// there is none; `.claude/CLAUDE.md`; `.claude/rules/**/*.md` without `paths:`; `CLAUDE.local.md`), each
// file followed by its `@path` imports. Nested folders below the working folder load later, on first use
// (nested_memory.ts). Never throws for a bad file: it is skipped with a diagnostic.

import type { Fs } from "../sys/fs.ts";
import { dirname, isAbsolute, join, resolve, sep } from "../path.ts";
import { splitFrontmatter } from "../registry/frontmatter.ts";
import type { MemoryDiagnostic, MemoryFile, MemoryKind } from "./memory_file.ts";
import { importsOf } from "./memory_imports.ts";
import { folderEntries } from "./folder_entries.ts";

/** Files in a chain of imports, the importing file counted: Claude Code follows four `@` hops. */
export const MAX_IMPORT_LEVELS = 5;
/** A memory file larger than this is skipped (and named in `blade memory`). */
export const MAX_MEMORY_FILE_BYTES = 1_048_576;
/** Rule files read from one `rules/` folder at most. */
export const MAX_RULE_FILES = 200;

export interface MemoryRoots {
  /** The canonical working folder. */
  workspace: string;
  trusted: boolean;
  home: string | undefined;
  /** Claude Code's user folder: `~/.claude`, or CLAUDE_CONFIG_DIR. */
  userDir: string | undefined;
  /** The managed policy folder (`/etc/claude-code` on Linux); absent = none. */
  managedDir?: string;
}

export interface LoadedMemory {
  value: MemoryFile[];
  diagnostics: MemoryDiagnostic[];
}

/** The memory files loaded when a session starts. */
export async function loadMemory(
  fs: Fs,
  roots: MemoryRoots,
): Promise<LoadedMemory & { reader: MemoryReader }> {
  const reader = new MemoryReader(fs, roots);
  if (roots.managedDir !== undefined) await reader.file(join(roots.managedDir, "CLAUDE.md"), "managed");
  if (roots.userDir !== undefined) {
    await reader.file(join(roots.userDir, "CLAUDE.md"), "user");
    await reader.rules(join(roots.userDir, "rules"), "user");
  }
  if (roots.trusted) {
    const folders = ancestorsOf(roots.workspace);
    // AGENTS.md stands in for CLAUDE.md only in a project that has none (as Claude Code 2.1.332 does).
    reader.agentsMd =
      !(await anyExists(fs, folders.flatMap((d) => [join(d, "CLAUDE.md"), join(d, ".claude", "CLAUDE.md")])));
    for (const dir of folders) await reader.folder(dir);
  }
  return { value: reader.files, diagnostics: reader.diagnostics, reader };
}

/** A rule whose frontmatter names `paths:` applies only to matching files. */
function isScoped(text: string): boolean {
  const split = splitFrontmatter(text);
  return split.ok && /^paths\s*:/m.test(split.frontmatter.text);
}

async function anyExists(fs: Fs, paths: readonly string[]): Promise<boolean> {
  const found = await Promise.all(paths.map((p) => fs.stat(p).then((i) => i?.isFile === true, () => false)));
  return found.includes(true);
}

/** The working folder and its ancestors, top-most first, without the file system's root. */
export function ancestorsOf(folder: string): string[] {
  const out: string[] = [];
  for (let dir = folder; dirname(dir) !== dir; dir = dirname(dir)) out.unshift(dir);
  return out;
}

/**
 * Reads memory files once each (by real path) with their imports; nested_memory.ts keeps using the
 * same reader, so a file loaded at start is never sent again.
 */
export class MemoryReader {
  readonly files: MemoryFile[] = [];
  readonly diagnostics: MemoryDiagnostic[] = [];
  /** Whether a folder without CLAUDE.md gives its AGENTS.md instead (the project has no CLAUDE.md). */
  agentsMd = true;
  #fs: Fs;
  #roots: MemoryRoots;
  #seen = new Set<string>();

  constructor(fs: Fs, roots: MemoryRoots) {
    this.#fs = fs;
    this.#roots = roots;
  }

  /** One folder's project files, in Claude Code's order; returns what it added. */
  async folder(dir: string): Promise<MemoryFile[]> {
    const before = this.files.length;
    const main = await this.file(join(dir, "CLAUDE.md"), "project");
    if (!main && this.agentsMd) await this.file(join(dir, "AGENTS.md"), "project");
    const dotted = await this.file(join(dir, ".claude", "CLAUDE.md"), "project");
    if (!dotted && this.agentsMd) await this.file(join(dir, ".claude", "AGENTS.md"), "project");
    await this.rules(join(dir, ".claude", "rules"), "project");
    await this.file(join(dir, "CLAUDE.local.md"), "local");
    return this.files.slice(before);
  }

  /** A memory file and its imports; false when it does not exist (or was skipped). */
  async file(path: string, kind: MemoryKind, level = 1, importedBy?: string): Promise<boolean> {
    const read = await this.#read(path);
    if (read === "missing" && importedBy !== undefined) {
      this.#note(importedBy, `imports ${path}, which does not exist`);
    }
    if (typeof read !== "object") return read === "seen";
    this.files.push({ path, kind, content: read.text, ...(importedBy === undefined ? {} : { importedBy }) });
    await this.#imports(path, kind, read.text, level);
    return true;
  }

  /** `rules/**\/*.md` that apply everywhere (a `paths:` rule applies to matching files only). */
  async rules(dir: string, kind: MemoryKind): Promise<void> {
    for (const path of (await this.#markdownBelow(dir)).slice(0, MAX_RULE_FILES)) {
      const read = await this.#read(path, (text) => !isScoped(text));
      if (typeof read !== "object") continue;
      const split = splitFrontmatter(read.text);
      this.files.push({ path, kind, content: split.ok ? split.frontmatter.body : read.text });
      await this.#imports(path, kind, read.text, 1);
    }
  }

  /** A file's text, once per real path; `wanted` may leave it unread for later (a scoped rule). */
  async #read(
    path: string,
    wanted?: (text: string) => boolean,
  ): Promise<{ text: string } | "missing" | "seen" | "skipped"> {
    const real = await this.#fs.realPath(path).catch(() => undefined);
    if (real === undefined) return "missing";
    if (this.#seen.has(real)) return "seen";
    const info = await this.#fs.stat(real).catch(() => null);
    if (info === null || !info.isFile) return "missing";
    this.#seen.add(real);
    if (info.size > MAX_MEMORY_FILE_BYTES) {
      this.#note(path, `is larger than ${MAX_MEMORY_FILE_BYTES} bytes: not loaded`);
      return "skipped";
    }
    const text = await this.#fs.readText(real).catch(() => undefined);
    if (text === undefined || text.includes("\u0000")) {
      this.#note(path, "cannot be read as text: not loaded");
      return "skipped";
    }
    if (wanted !== undefined && !wanted(text)) {
      this.#seen.delete(real);
      return "skipped";
    }
    return { text };
  }

  async #imports(path: string, kind: MemoryKind, text: string, level: number): Promise<void> {
    if (level >= MAX_IMPORT_LEVELS) return;
    for (const target of importsOf(text)) {
      const full = this.#resolveImport(path, target);
      if (full === undefined) continue;
      const real = await this.#fs.realPath(full).catch(() => full);
      if (!this.#allowed(kind, real)) {
        this.#note(path, `imports ${target}, which is outside the folders it may import from: not loaded`);
        continue;
      }
      await this.file(full, kind, level + 1, path);
    }
  }

  #resolveImport(from: string, target: string): string | undefined {
    const home = this.#roots.home;
    if (target.startsWith("~/")) return home === undefined ? undefined : join(home, target.slice(2));
    return isAbsolute(target) ? resolve(target) : resolve(dirname(from), target);
  }

  /** Project files import from the working folder only; user files from the home folder; managed from theirs. */
  #allowed(kind: MemoryKind, real: string): boolean {
    const r = this.#roots;
    const roots = kind === "managed" ? [r.managedDir] : kind === "user" ? [r.home, r.userDir] : [r.workspace];
    return roots.some((root) => root !== undefined && (real === root || real.startsWith(root + sep)));
  }

  async #markdownBelow(dir: string, depth = 0): Promise<string[]> {
    const entries = await folderEntries(this.#fs, dir);
    const out: string[] = [];
    for (const e of entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) {
      const path = join(dir, e.name);
      if (e.isDirectory && depth < 8) out.push(...await this.#markdownBelow(path, depth + 1));
      else if ((e.isFile || e.isSymlink) && e.name.endsWith(".md")) out.push(path);
    }
    return out;
  }

  #note(path: string, message: string): void {
    this.diagnostics.push({ path, message: `${path} ${message}` });
  }
}
