// Owns glob pattern matching for Glob and Grep's file filter: `**`, `*`, `?`, `{a,b}` (nested) and
// `[...]` / `[!...]` classes over `/`-separated relative paths. Dotfiles match like any other name.
// Pure, no I/O: the file walk lives in walk.ts.

/** Upper bound on brace alternatives, so a hostile pattern cannot explode. */
const MAX_EXPANSIONS = 256;

type Segment = RegExp | "**";

export interface GlobMatcher {
  /** Whether a relative `/`-separated path matches the pattern. */
  matches(path: string): boolean;
  /** Whether something below the relative folder `dir` could match (lets the walk prune). */
  mayContain(dir: string): boolean;
}

/** Whether `text` uses any glob syntax. */
export function hasMagic(text: string): boolean {
  return /[*?[{]/.test(text);
}

function findClosingBrace(pattern: string, open: number): number {
  let depth = 0;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevelCommas(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

/** `a{b,c{d,e}}f` → `abf`, `acdf`, `acef`. Braces without a top-level comma stay literal. */
export function expandBraces(pattern: string): string[] {
  for (let open = pattern.indexOf("{"); open >= 0; open = pattern.indexOf("{", open + 1)) {
    if (open > 0 && pattern[open - 1] === "\\") continue;
    const close = findClosingBrace(pattern, open);
    if (close < 0) return [pattern];
    const options = splitTopLevelCommas(pattern.slice(open + 1, close));
    if (options.length < 2) continue;
    const head = pattern.slice(0, open);
    const tail = pattern.slice(close + 1);
    const out: string[] = [];
    for (const option of options) {
      for (const expanded of expandBraces(head + option + tail)) {
        if (out.length >= MAX_EXPANSIONS) return out;
        out.push(expanded);
      }
    }
    return out;
  }
  return [pattern];
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

function compileSegment(segment: string): Segment {
  if (segment === "**") return "**";
  let source = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === "\\" && i + 1 < segment.length) source += escapeRegExp(segment[++i]!);
    else if (c === "*") {
      while (segment[i + 1] === "*") i++;
      source += "[^/]*";
    } else if (c === "?") source += "[^/]";
    else if (c === "[") {
      const close = segment.indexOf("]", i + 2);
      if (close < 0) {
        source += "\\[";
        continue;
      }
      let body = segment.slice(i + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      source += `[${negated ? "^" : ""}${body.replace(/\]/g, "\\]")}]`;
      i = close;
    } else source += escapeRegExp(c);
  }
  try {
    return new RegExp(`^${source}$`);
  } catch {
    // A malformed class such as `[z-a]`: match the segment literally.
    return new RegExp(`^${Array.from(segment, escapeRegExp).join("")}$`);
  }
}

function normalise(path: string): string[] {
  return path.replace(/\\/g, "/").split("/").filter((s) => s !== "" && s !== ".");
}

function compileOne(pattern: string): Segment[] {
  return pattern.split("/").filter((s) => s !== "" && s !== ".").map(compileSegment);
}

/** Segment matcher with memo; `partial` asks whether `path` can be a prefix of a match. */
function matchSegments(pattern: Segment[], path: string[], partial: boolean): boolean {
  const memo = new Map<number, boolean>();
  const step = (i: number, j: number): boolean => {
    const key = i * (path.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (j === path.length) {
      result = partial ? i < pattern.length : pattern.slice(i).every((s) => s === "**");
    } else if (i === pattern.length) {
      result = false;
    } else {
      const seg = pattern[i]!;
      result = seg === "**" ? step(i + 1, j) || step(i, j + 1) : seg.test(path[j]!) && step(i + 1, j + 1);
    }
    memo.set(key, result);
    return result;
  };
  return step(0, 0);
}

export function compileGlob(pattern: string): GlobMatcher {
  const alternatives = expandBraces(pattern).map(compileOne);
  return {
    matches: (path) => {
      const parts = normalise(path);
      return alternatives.some((a) => matchSegments(a, parts, false));
    },
    mayContain: (dir) => {
      const parts = normalise(dir);
      return alternatives.some((a) => matchSegments(a, parts, true));
    },
  };
}
