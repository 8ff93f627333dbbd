// Owns the graph half of the structural gate (`deno task layers`, part of `deno task ok`; the per-file
// half is the `deno lint` plugin scripts/layer_lint.ts, which `deno task layers` runs first). Reads every
// module of `lib/` plus `main.ts` and fails on
//   - an import cycle between files, or between folders of lib/ (static, type-only and dynamic imports
//     all count: a lazy import is still a dependency);
//   - main.ts reaching lib/testing/, even lazily or through a module named by
//     `new URL("./x.ts", import.meta.url)` (a Worker entry, a subprocess script).
// It also parses ARCHITECTURE.md's fenced `layers` block and names a module's unit for the plugin.
// Known graph violations may be listed in scripts/layer_rules.ts with a reason; an entry that matches
// nothing is itself an error, so the list only shrinks. Imports are read lexically (comments and string
// contents masked first, by scripts/mask_source.ts), which is exact for the import forms; every rule
// about what a module uses (Deno.*, timers, time, randomness, node:fs, console) reads Deno's parse.

import { readdir, readFile } from "node:fs/promises";
import { dirname, join, normalize, relative } from "node:path";
import { maskSource } from "./mask_source.ts";

export { maskSource };

/** The graph rules (here) and the per-file rules (scripts/layer_lint.ts). */
export type Rule = "file-cycle" | "folder-cycle" | "testing" | "layer" | "io" | "console" | "tests-import";

/** One finding; `key` is what an allowlist entry names. */
export interface Violation {
  rule: Rule;
  key: string;
  message: string;
}

/** A known violation tolerated for now, or a permanent exception. `key` as printed by the checker. */
export interface AllowEntry {
  rule: Rule;
  key: string;
  reason: string;
}

export interface LayerRules {
  /**
   * Files (or folder prefixes ending in `/`) besides lib/sys/ where `Deno.*`, time, timers and the other
   * `io` uses are part of the job (scripts/layer_lint.ts), each with a reason.
   */
  denoExceptions: readonly { path: string; reason: string }[];
  /** Known violations, each with a TODO naming the issue that removes it. */
  allow: readonly AllowEntry[];
}

export interface Module {
  /** Path relative to the root, `/`-separated. */
  path: string;
  imports: { target: string; line: number }[];
  /** Modules named by `new URL("./x.ts", import.meta.url)`: Worker entries and subprocess scripts. */
  moduleUrls: { target: string; line: number }[];
}

export interface CheckResult {
  violations: Violation[];
  /** Allowlist entries that matched nothing: fixed, so they must go. */
  stale: AllowEntry[];
  modules: number;
}

function lineOf(code: string, index: number): number {
  let line = 1;
  for (let k = 0; k < index; k++) if (code.charCodeAt(k) === 10) line++;
  return line;
}

const IMPORT_FORMS = [
  /(?<![.\w$])from\s*"§(\d+)"/g, // import … from "x", export … from "x"
  /(?<![.\w$])import\s*"§(\d+)"/g, // import "x"
  /(?<![.\w$])import\s*\(\s*"§(\d+)"\s*\)/g, // import("x")
];

/** Reads one module's imports (relative only, resolved against the root) and the module URLs it names. */
export function scanModule(path: string, source: string): Module {
  const { code, strings } = maskSource(source);
  const imports: Module["imports"] = [];
  for (const form of IMPORT_FORMS) {
    for (const m of code.matchAll(form)) {
      const spec = strings[Number(m[1])]!;
      if (!spec.startsWith("./") && !spec.startsWith("../")) continue;
      imports.push({
        target: normalize(join(dirname(path), spec)).replaceAll("\\", "/"),
        line: lineOf(code, m.index),
      });
    }
  }
  const moduleUrls: Module["moduleUrls"] = [];
  for (const m of code.matchAll(/(?<![.\w$])new\s+URL\s*\(\s*"§(\d+)"\s*,\s*import\.meta\.url\s*\)/g)) {
    const spec = strings[Number(m[1])]!;
    if (!/^\.\.?\//.test(spec) || !/\.(ts|js|mjs)$/.test(spec)) continue;
    moduleUrls.push({
      target: normalize(join(dirname(path), spec)).replaceAll("\\", "/"),
      line: lineOf(code, m.index),
    });
  }
  return { path, imports, moduleUrls };
}

/** Reads the fenced ```layers block of ARCHITECTURE.md: lines top (highest) to bottom (lowest). */
export function parseLayerOrder(markdown: string): string[][] {
  const m = markdown.match(/^```layers\n([\s\S]*?)^```/m);
  if (!m) throw new Error("ARCHITECTURE.md has no ```layers block (the layer order the checker enforces)");
  return m[1]!.split("\n").map((l) => l.replace(/#.*/, "").trim()).filter((l) => l !== "").map((l) =>
    l.split(/\s+/)
  );
}

/** The unit a file belongs to in the layer order: `main.ts`, `app.ts` (a file directly in lib/), or a folder. */
export function unitOf(path: string): string | null {
  if (!path.startsWith("lib/")) return path.includes("/") ? null : path;
  const rest = path.slice(4);
  const slash = rest.indexOf("/");
  return slash === -1 ? rest : rest.slice(0, slash);
}

const isTest = (path: string) => /_test\.ts$/.test(path);

/** Strongly connected components with more than one member (or a self-import), by Tarjan's algorithm. */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)?.has(v)) found.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Every finding over a set of scanned modules, before the allowlist is applied. */
export function findViolations(modules: Module[]): Violation[] {
  return dedupe([...graphViolations(modules), ...testingViolations(modules)]);
}

/** Cycles between files and folders of the product code. */
function graphViolations(modules: Module[]): Violation[] {
  const out: Violation[] = [];
  const known = new Set(modules.map((m) => m.path));

  // Cycles and layers are about the product code; tests may import anything below them.
  const product = modules.filter((m) => !isTest(m.path));
  const fileGraph = new Map<string, Set<string>>();
  const folderGraph = new Map<string, Set<string>>();
  for (const m of product) {
    const edges = new Set<string>();
    fileGraph.set(m.path, edges);
    const from = unitOf(m.path);
    for (const { target } of m.imports) {
      if (!known.has(target)) continue;
      edges.add(target);
      const to = unitOf(target);
      if (from === null || to === null || from === to) continue;
      if (
        m.path.startsWith("lib/") && target.startsWith("lib/") && !from.endsWith(".ts") && !to.endsWith(".ts")
      ) {
        if (!folderGraph.has(from)) folderGraph.set(from, new Set());
        folderGraph.get(from)!.add(to);
      }
    }
  }
  for (const scc of cycles(fileGraph)) {
    out.push({
      rule: "file-cycle",
      key: scc.join(" "),
      message: `import cycle between files: ${scc.join(", ")}`,
    });
  }
  for (const scc of cycles(folderGraph)) {
    out.push({
      rule: "folder-cycle",
      key: scc.join(" "),
      message: `import cycle between folders: ${scc.map((f) => `lib/${f}/`).join(", ")}`,
    });
  }
  return out;
}

/** main.ts reaching lib/testing/, even lazily. */
function testingViolations(modules: Module[]): Violation[] {
  const out: Violation[] = [];
  const graph = new Map(modules.map((m) => [m.path, [...m.imports, ...m.moduleUrls].map((i) => i.target)]));
  const seen = new Set<string>();
  const walk = (p: string, via: string[]): void => {
    if (seen.has(p)) return;
    seen.add(p);
    if (p.startsWith("lib/testing/")) {
      out.push({
        rule: "testing",
        key: p,
        message: `main.ts reaches ${p} (via ${via.join(" → ")}): lib/testing/ is for tests only`,
      });
      return;
    }
    for (const t of graph.get(p) ?? []) walk(t, [...via, p]);
  };
  if (graph.has("main.ts")) walk("main.ts", []);
  return out;
}

function dedupe(violations: Violation[]): Violation[] {
  const seen = new Set<string>();
  return violations.filter((v) => {
    const id = `${v.rule}\0${v.key}\0${v.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Applies the allowlist: what is left fails the gate; entries that matched nothing are stale. */
export function applyAllowlist(
  violations: Violation[],
  allow: readonly AllowEntry[],
): { violations: Violation[]; stale: AllowEntry[] } {
  const used = new Set<AllowEntry>();
  const left = violations.filter((v) => {
    const entry = allow.find((a) => a.rule === v.rule && a.key === v.key);
    if (entry) used.add(entry);
    return !entry;
  });
  return { violations: left, stale: allow.filter((a) => !used.has(a)) };
}

async function listModules(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...await listModules(root, rel));
    else if (/\.(ts|tsx|js|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

/** Checks the tree at `root` (a checkout: ARCHITECTURE.md, main.ts, lib/). */
export async function checkLayers(root: string, rules: LayerRules): Promise<CheckResult> {
  const paths = [...await listModules(root, "lib")];
  try {
    await readFile(join(root, "main.ts"));
    paths.push("main.ts");
  } catch { /* a tree without an entry point */ }
  const modules = await Promise.all(
    paths.sort().map(async (p) => scanModule(p, await readFile(join(root, p), "utf8"))),
  );
  const graphRules = new Set<Rule>(["file-cycle", "folder-cycle", "testing"]);
  const allow = rules.allow.filter((a) => graphRules.has(a.rule));
  const { violations, stale } = applyAllowlist(findViolations(modules), allow);
  return { violations, stale, modules: modules.length };
}

/** Text report for the terminal; empty findings print one summary line. */
export function formatReport(result: CheckResult, allowed: number): string {
  const lines = result.violations.map((v) => `${v.rule}: ${v.message}`);
  for (const s of result.stale) {
    lines.push(
      `stale allowlist entry (${s.rule} "${s.key}") matches nothing: remove it from scripts/layer_rules.ts`,
    );
  }
  const ok = lines.length === 0;
  lines.push(
    `layers: ${result.modules} modules, ${result.violations.length} violations, ${result.stale.length} stale, ${allowed} allowlisted${
      ok ? " — ok" : ""
    }`,
  );
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  const { LAYER_RULES } = await import("./layer_rules.ts");
  const root = relative(Deno.cwd(), join(dirname(new URL(import.meta.url).pathname), "..")) || ".";
  const result = await checkLayers(root, LAYER_RULES);
  const report = formatReport(result, LAYER_RULES.allow.length);
  const failed = result.violations.length > 0 || result.stale.length > 0;
  await (failed ? Deno.stderr : Deno.stdout).write(new TextEncoder().encode(report));
  Deno.exit(failed ? 1 : 0);
}
