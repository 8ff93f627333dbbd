// Owns which paths a search below a folder skips, as ripgrep decides it (docs/reference/search.md,
// "Grep"): the `--glob` overrides first (the last glob a path matches wins; with any glob that is not a
// `!` exclusion, a file none matches is skipped), then the ignore files — `.rgignore`, `.ignore`, and
// `.gitignore` inside a git repository, in that order of precedence, each the closest to the path first
// (the search root's parent folders' included), then the repository's `.git/info/exclude` — then the
// `--type` filter. Hidden files are searched (rg --hidden). Matching is the `ignore` package's
// (gitignore's rules; braces expanded first, as rg's globs allow them). Reads ignore files through
// the Fs port; does not walk or read what it filters.

import ignore, { type Ignore } from "ignore";
import { basename, dirname, join } from "../../path.ts";
import type { Fs } from "../../sys/fs.ts";
import { expandBraces } from "../../protocol/glob_pattern.ts";
import { GrepRefusal } from "./grep_query.ts";
import { RG_TYPE_LIST } from "./file_types.gen.ts";

/** The ignore files one folder holds (absent ones undefined). */
interface Level {
  /** The folder's real path. */
  dir: string;
  rg: Ignore | undefined;
  ig: Ignore | undefined;
  git: Ignore | undefined;
}

export type Verdict = "skip" | "keep";

function parseTypes(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of RG_TYPE_LIST.trim().split("\n")) {
    const colon = line.indexOf(":");
    out.set(line.slice(0, colon), line.slice(colon + 1).split(",").map((g) => g.trim()));
  }
  return out;
}

let types: Map<string, string[]> | undefined;

/** The matcher of a `--type` (its globs match file names), or a refusal naming rg's reason. */
export function typeMatcher(type: string): Ignore {
  types ??= parseTypes();
  const globs = types.get(type);
  if (globs === undefined) throw new GrepRefusal(`unrecognized file type: ${type}`);
  return ignore().add(globs.flatMap(expandBraces));
}

/** The `--glob` overrides as one matcher: a match means "search it", a `!` match "skip it". */
function overrides(globs: readonly string[]): { matcher: Ignore; whitelist: boolean } | undefined {
  if (globs.length === 0) return undefined;
  const rules: string[] = [];
  let whitelist = false;
  for (const g of globs) {
    const negated = g.startsWith("!");
    if (!negated) whitelist = true;
    for (const e of expandBraces(negated ? g.slice(1) : g)) rules.push(negated ? `!${e}` : e);
  }
  return { matcher: ignore({ allowRelativePaths: true }).add(rules), whitelist };
}

async function readRules(fs: Fs, path: string): Promise<Ignore | undefined> {
  const text = await fs.readTextIfExists(path).catch(() => null);
  return text === null ? undefined : ignore({ allowRelativePaths: true }).add(text);
}

export class IgnoreRules {
  #fs: Fs;
  #root: string;
  #repoRoot: string | undefined;
  #overrides: ReturnType<typeof overrides>;
  #type: Ignore | undefined;
  #exclude: Ignore | undefined;
  #chains = new Map<string, Promise<Level[]>>();

  private constructor(fs: Fs, root: string, options: { globs: readonly string[]; type?: string }) {
    this.#fs = fs;
    this.#root = root;
    this.#overrides = overrides(options.globs);
    this.#type = options.type === undefined ? undefined : typeMatcher(options.type);
  }

  /** The rules of a search of `root` (a real folder path): its repository found, its parents' files read. */
  static async open(
    fs: Fs,
    root: string,
    options: { globs: readonly string[]; type?: string },
  ): Promise<IgnoreRules> {
    const rules = new IgnoreRules(fs, root, options);
    for (let dir = root;; dir = dirname(dir)) {
      if (await fs.lstat(join(dir, ".git")).catch(() => null) !== null) {
        rules.#repoRoot = dir;
        rules.#exclude = await readRules(fs, join(dir, ".git", "info", "exclude"));
        break;
      }
      if (dirname(dir) === dir) break;
    }
    return rules;
  }

  /** Folder `dir`'s ignore files, read; `holds` says which names it has, when the walk listed it. */
  async #level(dir: string, holds: (name: string) => boolean = () => true): Promise<Level> {
    const inRepo = this.#repoRoot !== undefined && (dir + "/").startsWith(this.#repoRoot + "/") ||
      dir === this.#repoRoot;
    const read = (name: string) => holds(name) ? readRules(this.#fs, join(dir, name)) : undefined;
    return {
      dir,
      rg: await read(".rgignore"),
      ig: await read(".ignore"),
      git: inRepo ? await read(".gitignore") : undefined,
    };
  }

  /** The folders whose ignore files apply to a path in `dir`, closest first (the root's parents included). */
  #levelsFor(dir: string, holds?: (name: string) => boolean): Promise<Level[]> {
    let chain = this.#chains.get(dir);
    if (chain === undefined) {
      const parent = dirname(dir);
      const own = this.#level(dir, holds);
      // Only folders holding rules are kept: a file's verdict looks at those alone.
      chain = (async () => {
        const level = await own;
        const above = parent === dir ? [] : await this.#levelsFor(parent);
        return level.rg === undefined && level.ig === undefined && level.git === undefined
          ? above
          : [level, ...above];
      })();
      this.#chains.set(dir, chain);
    }
    return chain;
  }

  /**
   * The verdicts on the entries of folder `dir`, which the walk listed as `names`: only the ignore
   * files it holds are read (a search does not try three absent files a folder), then each entry is
   * judged without I/O. `verdict(path, isDir)` says whether the walk skips `path`, an entry of `dir`.
   */
  async folder(
    dir: string,
    names: readonly string[],
  ): Promise<(path: string, isDir: boolean) => Verdict> {
    const levels = await this.#levelsFor(dir, (name) => names.includes(name));
    return (path, isDir) => this.#verdict(path, { levels, isDir });
  }

  /** What the ignore files say: ignored, or not (a `!` rule that re-includes it ends the look too). */
  #ignored(path: string, at: { levels: readonly Level[]; isDir: boolean }): boolean {
    const { levels, isDir } = at;
    const suffix = isDir ? "/" : "";
    for (const kind of ["rg", "ig", "git"] as const) {
      for (const level of levels) {
        const rules = level[kind];
        if (rules === undefined) continue;
        const r = rules.test(below(level.dir, path) + suffix);
        if (r.ignored) return true;
        if (r.unignored) return false;
      }
    }
    if (this.#exclude === undefined || this.#repoRoot === undefined) return false;
    return this.#exclude.test(below(this.#repoRoot, path) + suffix).ignored;
  }

  /** Whether the walk skips `path` (a file, or a folder when `isDir`), whose folder's rules are `levels`. */
  #verdict(path: string, at: { levels: readonly Level[]; isDir: boolean }): Verdict {
    const { isDir } = at;
    const rel = below(this.#root, path);
    const o = this.#overrides;
    if (o !== undefined) {
      const m = o.matcher.test(isDir ? `${rel}/` : rel);
      if (m.ignored) return "keep"; // a glob named it
      if (m.unignored) return "skip"; // a `!glob` named it
      if (o.whitelist && !isDir) return "skip";
    }
    if (this.#ignored(path, at)) return "skip";
    if (!isDir && this.#type !== undefined && !this.#type.test(basename(path)).ignored) return "skip";
    return "keep";
  }
}

/** `path` relative to `dir`, one of its ancestors (a slice: the walk only asks about paths below). */
function below(dir: string, path: string): string {
  return dir.endsWith("/") ? path.slice(dir.length) : path.slice(dir.length + 1);
}
