// Owns the structural gate (`deno task layers`, part of `deno task ok`): reads every module of `lib/`
// plus `main.ts` and fails on
//   - an import cycle between files, or between folders of lib/ (static, type-only and dynamic imports
//     all count: a lazy import is still a dependency);
//   - an import that breaks the layer order written in ARCHITECTURE.md (the fenced `layers` block: each
//     line may import only from lines below it; names on one line are peers and do not import each other);
//   - `Deno.*` outside lib/sys/ (type-only uses such as `Deno.ChildProcess` in a type position excepted);
//   - `console` outside lib/cli/;
//   - a lib/ module (tests included) importing from tests/, or main.ts reaching lib/testing/ (for these
//     two, a module named by `new URL("./x.ts", import.meta.url)` — a Worker entry, a subprocess
//     script — counts as a dependency too).
// Permanent exceptions (entry points, test support) and the allowlist of known violations live in
// scripts/layer_rules.ts, each with a reason; an allowlist entry that matches nothing is itself an error,
// so the list only shrinks. Scanning is lexical (comments and string contents are masked first, by
// scripts/mask_source.ts), which is
// exact for the import forms and `Deno.` member accesses this codebase writes.

import { readdir, readFile } from "node:fs/promises";
import { dirname, join, normalize, relative } from "node:path";
import { maskSource } from "./mask_source.ts";

export { maskSource };

export type Rule = "file-cycle" | "folder-cycle" | "layer" | "deno" | "console" | "tests-import" | "testing";

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
  /** Files (or folder prefixes ending in `/`) where `Deno.*` is part of the job, each with a reason. */
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
  denoUses: { member: string; line: number; typeOnly: boolean }[];
  consoleLines: number[];
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

/** Reads one module's imports (relative only, resolved against the root), Deno.* uses and console uses. */
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
  const denoUses: Module["denoUses"] = [];
  for (
    const m of code.matchAll(/(?<![.\w$])Deno\s*\.\s*([A-Za-z_$][\w$]*)(?:\s*\.\s*([A-Za-z_$][\w$]*))?/g)
  ) {
    const first = m[1]!;
    const member = m[2] && first === "errors" ? `Deno.${first}.${m[2]}` : `Deno.${first}`;
    const before = code.slice(Math.max(0, m.index - 12), m.index);
    const after = code.slice(m.index + m[0].length).trimStart();
    // `Deno.ChildProcess` as an annotation is a type; `new Deno.Command(…)` or `x instanceof Deno.X` is not.
    const typeOnly = /^[A-Z]/.test(first) && !/\b(new|instanceof)\s*$/.test(before) &&
      !after.startsWith("(") &&
      !after.startsWith(".");
    denoUses.push({ member, line: lineOf(code, m.index), typeOnly });
  }
  const consoleLines = [...code.matchAll(/(?<![.\w$])console\s*\./g)].map((m) => lineOf(code, m.index));
  return { path, imports, moduleUrls, denoUses, consoleLines };
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
export function findViolations(modules: Module[], order: string[][], rules: LayerRules): Violation[] {
  const rank = new Map<string, number>();
  order.forEach((names, i) => names.forEach((n) => rank.set(n, order.length - i)));
  return dedupe([
    ...graphViolations(modules, rank),
    ...moduleViolations(modules, rules),
    ...testingViolations(modules),
  ]);
}

/** Layer order, units missing from it, and cycles between files and folders of the product code. */
function graphViolations(modules: Module[], rank: Map<string, number>): Violation[] {
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
    for (const { target, line } of m.imports) {
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
      const rf = rank.get(from);
      const rt = rank.get(to);
      if (rf === undefined || rt === undefined) continue; // reported once per unit below
      if (rt >= rf) {
        out.push({
          rule: "layer",
          key: `${m.path} -> ${target}`,
          message: `${m.path}:${line} imports ${target}, but ${to} is ${
            rt === rf ? "a peer of" : "above"
          } ${from} in the layer order (ARCHITECTURE.md)`,
        });
      }
    }
  }
  const units = new Set(product.map((m) => unitOf(m.path)).filter((u): u is string => u !== null));
  for (const u of [...units].sort()) {
    if (!rank.has(u)) {
      out.push({
        rule: "layer",
        key: `unit ${u}`,
        message: `${u} is not in the layer order: add it to the \`\`\`layers block of ARCHITECTURE.md`,
      });
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

/** Per module: lib/ importing tests/, `Deno.*` outside lib/sys/, `console` outside lib/cli/. */
function moduleViolations(modules: Module[], rules: LayerRules): Violation[] {
  const out: Violation[] = [];
  for (const m of modules) {
    if (m.path.startsWith("lib/")) {
      for (const { target, line } of [...m.imports, ...m.moduleUrls]) {
        if (target.startsWith("tests/")) {
          out.push({
            rule: "tests-import",
            key: `${m.path} -> ${target}`,
            message:
              `${m.path}:${line} imports ${target}: lib/ never imports from tests/ (move it to lib/testing/)`,
          });
        }
      }
    }
    if (isTest(m.path) || m.path.startsWith("lib/sys/")) continue;
    const excepted = rules.denoExceptions.some((e) =>
      e.path.endsWith("/") ? m.path.startsWith(e.path) : m.path === e.path
    );
    if (!excepted) {
      for (const use of m.denoUses) {
        if (use.typeOnly) continue;
        out.push({
          rule: "deno",
          key: `${m.path}: ${use.member}`,
          message:
            `${m.path}:${use.line} uses ${use.member}: only lib/sys/ touches Deno.* (add a port there)`,
        });
      }
    }
    if (!m.path.startsWith("lib/cli/") && !m.path.startsWith("lib/testing/")) {
      for (const line of m.consoleLines) {
        out.push({
          rule: "console",
          key: `${m.path}: console`,
          message: `${m.path}:${line} uses console: only lib/cli/ prints (return the text or emit an event)`,
        });
      }
    }
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
  const order = parseLayerOrder(await readFile(join(root, "ARCHITECTURE.md"), "utf8"));
  const paths = [...await listModules(root, "lib")];
  try {
    await readFile(join(root, "main.ts"));
    paths.push("main.ts");
  } catch { /* a tree without an entry point */ }
  const modules = await Promise.all(
    paths.sort().map(async (p) => scanModule(p, await readFile(join(root, p), "utf8"))),
  );
  const { violations, stale } = applyAllowlist(findViolations(modules, order, rules), rules.allow);
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
