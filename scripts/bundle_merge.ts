// Owns one rewrite of the main thread's code-split build (scripts/bundle_split.ts,
// docs/reference/performance.md): merging the chunks of the start-up path. Deno reads, looks up in its
// code cache and instantiates every module on its own, and a code-split build spreads `blade -p`'s
// path over ~35 chunks. Each group — the static closure of main.js, then what the print command's
// chunk adds to it, then what each lazy chunk every print-mode session loads adds (bundle_split.ts's
// START_GROUPS) — becomes one module: the group's entry file holds all its code (a `deno bundle` of
// its chunks, every other chunk external), and each other chunk of the group becomes a stub that
// re-exports its names from that file, so a chunk that still imports it (a lazy command, a provider)
// gets the same module instance. The merged file imports an earlier group's chunks from that group's
// file directly. Lazy parts stay lazy: a group loads when its entry did, as before. A build whose
// shape is not the expected one (an export form other than one final `export{…}`) is left unchanged.

import { join } from "node:path";

/** Runs `deno bundle … <args>` in `cwd` (scripts/bundle.ts's runDenoBundle). */
export type DenoBundle = (cwd: string, args: readonly string[], what: string) => Promise<void>;

const EXTERNAL = "blade-ext:";
const STATIC_REF = /(\bfrom\s*|\bimport\s*)"\.\/([^"/]+\.js)"/g;
const FINAL_EXPORT = /export\{([^}]*)\};?\s*$/;

/** The names a chunk exports: exported name → local name; undefined when its exports have another shape. */
export function exportsOf(text: string): Map<string, string> | undefined {
  const m = FINAL_EXPORT.exec(text);
  const clauses = text.match(/\bexport\s*[{*]|\bexport\s+(default|var|let|const|function|class|async)\b/g) ??
    [];
  if (m === null) return clauses.length === 0 ? new Map() : undefined;
  if (clauses.length !== 1 || /^\s*from\b/.test(text.slice(m.index + m[0].length))) return undefined;
  const out = new Map<string, string>();
  for (const spec of m[1]!.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const [local, exported = local] = spec.split(/\s+as\s+/);
    out.set(exported!, local!);
  }
  return out;
}

type Placement = Map<string, { entry: string; names: Map<string, string> }>;

/**
 * Points `text`'s named and bare imports of merged chunks (`import{a as b}from"<prefix>chunk.js"`,
 * `import"<prefix>chunk.js"`) at their group's file, under the merged names; other imports (a
 * namespace import) keep going to the stub.
 */
export function pointAtGroups(text: string, prefix: string, placed: Placement): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const bare = (whole: string, ref: string) => {
    const where = placed.get(ref);
    return where === undefined || where.entry === ref ? whole : `import"./${where.entry}"`;
  };
  return text.replace(new RegExp(`import"${escaped}([^"/]+\\.js)"`, "g"), bare).replace(
    new RegExp(`import\\{([^}]*)\\}from"${escaped}([^"/]+\\.js)"`, "g"),
    (whole, specs: string, ref: string) => {
      const where = placed.get(ref);
      if (where === undefined || where.entry === ref) return whole;
      const renamed = specs.split(",").map((s) => s.trim()).filter((s) => s !== "").map((s) => {
        const [name, as = name] = s.split(/\s+as\s+/);
        const merged = where.names.get(name!);
        return merged === undefined ? undefined : `${merged} as ${as}`;
      });
      if (renamed.some((r) => r === undefined)) return whole;
      return `import{${renamed.join(",")}}from"./${where.entry}"`;
    },
  );
}

/** The chunks `file` imports statically (flat build: `./name.js`). */
function staticRefs(text: string): string[] {
  return [...text.matchAll(STATIC_REF)].map((m) => m[2]!);
}

export interface MergedGroup {
  entry: string;
  /** The chunks merged into it (stubs now), the entry not included. */
  merged: string[];
}

/**
 * Merges each group of `dir` (a flat build: every chunk beside main.js) in order. `groups` lists each
 * group's entry chunk; a group is the entry's static closure less the earlier groups' chunks.
 * Returns what was merged ([] when the build was left as it was).
 */
export async function mergeStartGroups(
  dir: string,
  entries: readonly string[],
  bundle: DenoBundle,
): Promise<MergedGroup[]> {
  const texts = new Map<string, string>();
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".js")) texts.set(e.name, await Deno.readTextFile(join(dir, e.name)));
  }
  const placed = new Map<string, { entry: string; names: Map<string, string> }>();
  const out: MergedGroup[] = [];
  const plans: { entry: string; members: string[]; exports: Map<string, Map<string, string>> }[] = [];
  for (const entry of entries) {
    const members: string[] = [];
    const visit = (f: string) => {
      if (members.includes(f) || placed.has(f) || !texts.has(f)) return;
      members.push(f);
      for (const next of staticRefs(texts.get(f)!)) visit(next);
    };
    visit(entry);
    const exports = new Map<string, Map<string, string>>();
    for (const m of members) {
      const names = exportsOf(texts.get(m)!);
      if (names === undefined) return [];
      exports.set(m, names);
    }
    for (const [i, m] of members.entries()) {
      const names = new Map(
        [...exports.get(m)!.keys()].map((n) => [n, m === entry ? n : `__m${plans.length}_${i}_${n}`]),
      );
      placed.set(m, { entry, names });
    }
    plans.push({ entry, members, exports });
  }
  for (const plan of plans) {
    const merged = await mergeGroup({ dir, texts, placed, bundle }, plan.entry, plan.members);
    texts.set(plan.entry, merged);
    out.push({ entry: plan.entry, merged: plan.members.filter((m) => m !== plan.entry) });
  }
  // The other chunks import the merged names from the groups' files; the stubs (same names, same
  // instance) remain for any other form of import.
  for (const [file, text] of texts) {
    if (placed.has(file)) continue;
    const pointed = pointAtGroups(text, "./", placed);
    if (pointed !== text) await Deno.writeTextFile(join(dir, file), pointed);
  }
  for (const [chunk, where] of placed) {
    if (chunk === where.entry) continue;
    const specs = [...where.names].map(([name, merged]) => `${merged} as ${name}`);
    const stub = specs.length === 0
      ? `import"./${where.entry}";\n`
      : `export{${specs.join(",")}}from"./${where.entry}";\n`;
    await Deno.writeTextFile(join(dir, chunk), stub);
  }
  return out;
}

/** One group's file: its members bundled, other chunks external (an earlier group's named by its file). */
async function mergeGroup(
  build: {
    dir: string;
    texts: Map<string, string>;
    placed: Map<string, { entry: string; names: Map<string, string> }>;
    bundle: DenoBundle;
  },
  entry: string,
  members: readonly string[],
): Promise<string> {
  const { dir, texts, placed } = build;
  // Beside the build, not in the system's temp folder: `deno task bundle` may write only under dist/.
  const tmp = await Deno.makeTempDir({ dir: join(dir, ".."), prefix: ".merge-" });
  try {
    const local = (f: string) => (f === entry ? "__entry.js" : f);
    for (const m of members) {
      const text = texts.get(m)!.replace(
        STATIC_REF,
        (_whole, lead: string, ref: string) =>
          members.includes(ref) ? `${lead}"./${local(ref)}"` : `${lead}"${EXTERNAL}${ref}"`,
      );
      await Deno.writeTextFile(join(tmp, local(m)), text);
    }
    // The entry first: the group's code is evaluated in the order its entry's imports give, as before.
    const lines = members.map((m) => {
      const names = placed.get(m)!.names;
      if (names.size === 0) return `import"./${local(m)}";`;
      return `export{${
        [...names].map(([n, merged]) => n === merged ? n : `${n} as ${merged}`).join(",")
      }}from"./${local(m)}";`;
    });
    await Deno.writeTextFile(join(tmp, "__group.js"), lines.join("\n") + "\n");
    const output = join(tmp, "__out.js");
    await build.bundle(tmp, [
      "--minify",
      "--no-config",
      "--external",
      `${EXTERNAL}*`,
      "--output",
      output,
      "__group.js",
    ], `the start-up group of ${entry}`);
    const text = pointAtGroups(await Deno.readTextFile(output), EXTERNAL, placed)
      .replaceAll(`"${EXTERNAL}`, '"./');
    await Deno.writeTextFile(join(dir, entry), text);
    return text;
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}
