// Owns finding ripgrep for Grep (docs/reference/search.md, "Grep"): `BLADE_RIPGREP` (a path, or `none`
// to use the built-in search), else an `rg` shipped beside Blade's own executable, else the first `rg` on
// PATH. A thread that may not read the environment or the file system there (a child's Worker) finds
// none and searches with the built-in search. Found once per thread. Does not run it.

let found: { path: string | undefined } | undefined;

function executable(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

function search(): string | undefined {
  try {
    const chosen = Deno.env.get("BLADE_RIPGREP");
    if (chosen === "none") return undefined;
    if (chosen !== undefined && chosen !== "") return executable(chosen) ? chosen : undefined;
    const windows = Deno.build.os === "windows";
    const name = windows ? "rg.exe" : "rg";
    const exec = Deno.execPath();
    const beside = `${exec.slice(0, Math.max(exec.lastIndexOf("/"), exec.lastIndexOf("\\")))}/${name}`;
    if (executable(beside)) return beside;
    for (const dir of (Deno.env.get("PATH") ?? "").split(windows ? ";" : ":")) {
      if (dir !== "" && executable(`${dir}/${name}`)) return `${dir}/${name}`;
    }
  } catch {
    // No grant to read the environment or those folders (a child's Worker): the built-in search.
  }
  return undefined;
}

/** The ripgrep executable Grep runs, or undefined: then Grep searches with its built-in search. */
export function findRipgrep(): string | undefined {
  found ??= { path: search() };
  return found.path;
}
