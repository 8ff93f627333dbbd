// Owns the path functions Blade uses (join, resolve, relative, dirname, basename, isAbsolute, sep),
// with exactly node:path's results. Loading node:path costs every thread (the main one and each child
// Worker) about 10 ms of start-up (Deno evaluates Node's error, inspect and validator modules behind
// it; docs/reference/performance.md), so on POSIX these are a port of Node's own POSIX functions
// (lib/path_test.ts compares them with node:path over many inputs); on Windows they are node:path's.
// Pure string functions, except that resolve() falls back to the working folder as node:path does.

const SLASH = 47; // "/"
const DOT = 46; // "."

const win: typeof import("node:path") | undefined = Deno.build.os === "windows"
  ? await import("node:path")
  : undefined;

/** Node's normalizeString: resolves "." and ".." segments; `aboveRoot` keeps leading "..". */
function normalizeString(path: string, aboveRoot: boolean): string {
  let res = "";
  let lastSegmentLength = 0;
  let lastSlash = -1;
  let dots = 0;
  let code = 0;
  for (let i = 0; i <= path.length; ++i) {
    if (i < path.length) code = path.charCodeAt(i);
    else if (code === SLASH) break;
    else code = SLASH;
    if (code === SLASH) {
      if (lastSlash === i - 1 || dots === 1) {
        // an empty or "." segment
      } else if (dots === 2) {
        if (
          res.length < 2 || lastSegmentLength !== 2 || res.charCodeAt(res.length - 1) !== DOT ||
          res.charCodeAt(res.length - 2) !== DOT
        ) {
          if (res.length > 2) {
            const lastSlashIndex = res.lastIndexOf("/");
            if (lastSlashIndex === -1) {
              res = "";
              lastSegmentLength = 0;
            } else {
              res = res.slice(0, lastSlashIndex);
              lastSegmentLength = res.length - 1 - res.lastIndexOf("/");
            }
            lastSlash = i;
            dots = 0;
            continue;
          } else if (res.length !== 0) {
            res = "";
            lastSegmentLength = 0;
            lastSlash = i;
            dots = 0;
            continue;
          }
        }
        if (aboveRoot) {
          res += res.length > 0 ? "/.." : "..";
          lastSegmentLength = 2;
        }
      } else {
        res = res.length > 0 ? `${res}/${path.slice(lastSlash + 1, i)}` : path.slice(lastSlash + 1, i);
        lastSegmentLength = i - lastSlash - 1;
      }
      lastSlash = i;
      dots = 0;
    } else if (code === DOT && dots !== -1) {
      ++dots;
    } else {
      dots = -1;
    }
  }
  return res;
}

function posixResolve(...paths: string[]): string {
  let resolved = "";
  let absolute = false;
  for (let i = paths.length - 1; i >= -1 && !absolute; i--) {
    const path = i >= 0 ? paths[i]! : Deno.cwd();
    if (path.length === 0) continue;
    resolved = `${path}/${resolved}`;
    absolute = path.charCodeAt(0) === SLASH;
  }
  resolved = normalizeString(resolved, !absolute);
  if (absolute) return `/${resolved}`;
  return resolved.length > 0 ? resolved : ".";
}

function posixNormalize(path: string): string {
  if (path.length === 0) return ".";
  const absolute = path.charCodeAt(0) === SLASH;
  const trailing = path.charCodeAt(path.length - 1) === SLASH;
  let out = normalizeString(path, !absolute);
  if (out.length === 0) {
    if (absolute) return "/";
    return trailing ? "./" : ".";
  }
  if (trailing) out += "/";
  return absolute ? `/${out}` : out;
}

function posixJoin(...paths: string[]): string {
  let joined: string | undefined;
  for (const p of paths) if (p.length > 0) joined = joined === undefined ? p : `${joined}/${p}`;
  return joined === undefined ? "." : posixNormalize(joined);
}

function posixRelative(fromPath: string, toPath: string): string {
  if (fromPath === toPath) return "";
  const from = posixResolve(fromPath);
  const to = posixResolve(toPath);
  if (from === to) return "";
  const fromLen = from.length - 1;
  const toLen = to.length - 1;
  const length = fromLen < toLen ? fromLen : toLen;
  let lastCommonSep = -1;
  let i = 0;
  for (; i < length; i++) {
    const code = from.charCodeAt(1 + i);
    if (code !== to.charCodeAt(1 + i)) break;
    else if (code === SLASH) lastCommonSep = i;
  }
  if (i === length) {
    if (toLen > length) {
      if (to.charCodeAt(1 + i) === SLASH) return to.slice(1 + i + 1); // `from` is `to`'s parent
      if (i === 0) return to.slice(1 + i); // `from` is the root
    } else if (fromLen > length) {
      if (from.charCodeAt(1 + i) === SLASH) lastCommonSep = i; // `to` is `from`'s parent
      else if (i === 0) lastCommonSep = 0; // `to` is the root
    }
  }
  let out = "";
  for (i = 1 + lastCommonSep + 1; i <= from.length; ++i) {
    if (i === from.length || from.charCodeAt(i) === SLASH) out += out.length === 0 ? ".." : "/..";
  }
  return `${out}${to.slice(1 + lastCommonSep)}`;
}

function posixDirname(path: string): string {
  if (path.length === 0) return ".";
  const hasRoot = path.charCodeAt(0) === SLASH;
  let end = -1;
  let matchedSlash = true;
  for (let i = path.length - 1; i >= 1; --i) {
    if (path.charCodeAt(i) === SLASH) {
      if (!matchedSlash) {
        end = i;
        break;
      }
    } else {
      matchedSlash = false;
    }
  }
  if (end === -1) return hasRoot ? "/" : ".";
  if (hasRoot && end === 1) return "//";
  return path.slice(0, end);
}

function posixBasename(path: string): string {
  let start = 0;
  let end = -1;
  let matchedSlash = true;
  for (let i = path.length - 1; i >= 0; --i) {
    if (path.charCodeAt(i) === SLASH) {
      if (!matchedSlash) {
        start = i + 1;
        break;
      }
    } else if (end === -1) {
      matchedSlash = false;
      end = i + 1;
    }
  }
  return end === -1 ? "" : path.slice(start, end);
}

/** The platform's path separator. */
export const sep: string = win?.sep ?? "/";
export const isAbsolute: (path: string) => boolean = win?.isAbsolute ??
  ((path) => path.length > 0 && path.charCodeAt(0) === SLASH);
export const normalize: (path: string) => string = win?.normalize ?? posixNormalize;
export const join: (...paths: string[]) => string = win?.join ?? posixJoin;
/** Absolute, normalized; relative arguments resolve against the working folder, as in node:path. */
export const resolve: (...paths: string[]) => string = win?.resolve ?? posixResolve;
export const relative: (from: string, to: string) => string = win?.relative ?? posixRelative;
export const dirname: (path: string) => string = win?.dirname ?? posixDirname;
/** The last segment (node:path's basename without its suffix argument). */
export const basename: (path: string) => string = win === undefined ? posixBasename : (p) => win.basename(p);

/** Whether `path` is `root` or lies below it, comparing whole components. Both absolute and normalised. */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
