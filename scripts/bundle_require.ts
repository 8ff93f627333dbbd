// Owns one rewrite of a code-split `deno bundle` (scripts/bundle_split.ts, docs/reference/performance.md):
// the `require` shim of CommonJS npm packages. Deno's bundler puts
// `import{createRequire as __deno_internal_createRequire} from "node:module";var m=…(import.meta.url);`
// into the shared runtime-helpers chunk, which nearly every chunk imports (for `__export` and the
// like), so every start of Blade loads and evaluates Node's `module` polyfill: about 13–17 ms, even for
// `--version`. Only the chunks of CommonJS packages (yaml, the MCP SDK's process spawning) call that
// `require`, and they load lazily. This moves the shim into those chunks: each gets its own
// `createRequire(import.meta.url)` (same folder, so the same resolution), and the helpers chunk no
// longer imports node:module. When the output does not have the expected shape, nothing is changed.

import { dirname, join } from "node:path";

const SHIM =
  /import\{createRequire as __deno_internal_createRequire\} from "node:module";var ([\w$]+)=__deno_internal_createRequire\(import\.meta\.url\);/;

export interface RequireRewrite {
  /** The helpers chunk the shim left ("" when there was none or the shape was unexpected). */
  helper: string;
  /** The chunks that now make their own `require`. */
  users: string[];
}

const NONE: RequireRewrite = { helper: "", users: [] };

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Every `import`/`export … from "<relative>"` of `text` (in `file`) that names the module at `target`. */
function referencesTo(file: string, text: string, target: string): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  for (
    const m of text.matchAll(/\b(import|export)\s*(\*\s*as\s*[\w$]+|\*|\{[^}]*\})\s*from\s*"(\.\.?\/[^"]+)"/g)
  ) {
    if (join(dirname(file), m[3]!) === target) out.push(m as RegExpExecArray);
  }
  return out;
}

/**
 * Rewrites `files` (path → text of every .js file of one build) in place. Returns what moved; when
 * the helpers chunk uses the shim itself, exports it under more than one name, or some chunk takes it
 * other than by a named import, the files are left as they were.
 */
export function isolateRequire(files: Map<string, string>): RequireRewrite {
  const found = [...files].filter(([, text]) => SHIM.test(text));
  if (found.length !== 1) return NONE;
  const [helper, helperText] = found[0]!;
  const local = SHIM.exec(helperText)![1]!;
  const without = helperText.replace(SHIM, "");
  // The shim's exported name: `export{m as a,…}` (or `export{m,…}`).
  const exportClause = /export\{([^}]*)\};?\s*$/.exec(without);
  if (exportClause === null) return NONE;
  const specs = exportClause[1]!.split(",").map((s) => s.trim());
  const mine = specs.filter((s) => s === local || s.startsWith(`${local} as `));
  if (mine.length !== 1) return NONE;
  const exported = mine[0]!.includes(" as ") ? mine[0]!.split(" as ")[1]!.trim() : local;
  // Any other use of the local name in the helpers chunk (not as a property) would break.
  const uses = without.slice(0, exportClause.index).match(
    new RegExp(`(?<![\\w$.])${escape(local)}(?![\\w$])`, "g"),
  );
  if (uses !== null) return NONE;
  const rest = specs.filter((s) => s !== mine[0]);
  const changed = new Map<string, string>();
  changed.set(
    helper,
    `${without.slice(0, exportClause.index)}export{${rest.join(",")}};${
      without.slice(exportClause.index + exportClause[0].length).trimEnd()
    }`,
  );
  for (const [file, text] of files) {
    if (file === helper) continue;
    let out = text;
    let name: string | undefined;
    for (const m of referencesTo(file, text, helper)) {
      // A namespace import or a re-export could reach the shim in ways not rewritten here.
      if (m[1] !== "import" || !m[2]!.startsWith("{")) return NONE;
      const names = m[2]!.slice(1, -1).split(",").map((s) => s.trim()).filter((s) => s !== "");
      const taken = names.filter((s) => s === exported || s.startsWith(`${exported} as `));
      if (taken.length === 0) continue;
      if (taken.length > 1 || name !== undefined) return NONE;
      name = taken[0]!.includes(" as ") ? taken[0]!.split(" as ")[1]!.trim() : exported;
      const kept = names.filter((s) => s !== taken[0]);
      out = out.replace(m[0], `import{${kept.join(",")}}from"${m[3]}"`);
    }
    if (name === undefined) continue;
    changed.set(
      file,
      `import{createRequire as __blade_createRequire}from"node:module";var ${name}=__blade_createRequire(import.meta.url);${out}`,
    );
  }
  for (const [file, text] of changed) files.set(file, text);
  return { helper, users: [...changed.keys()].filter((f) => f !== helper).sort() };
}

/** Every .js file of the build in `outDir` (path → text). */
export async function readBuildFiles(outDir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const visit = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await visit(path);
      else if (e.name.endsWith(".js")) files.set(path, await Deno.readTextFile(path));
    }
  };
  await visit(outDir);
  return files;
}

/** isolateRequire over the .js files of `outDir` (a code-split build), written back in place. */
export async function isolateRequireIn(outDir: string): Promise<RequireRewrite> {
  const files = await readBuildFiles(outDir);
  const before = new Map(files);
  const result = isolateRequire(files);
  for (const [file, text] of files) if (before.get(file) !== text) await Deno.writeTextFile(file, text);
  return result;
}
