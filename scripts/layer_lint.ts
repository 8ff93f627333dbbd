// Owns the per-file layer rules as a `deno lint` plugin over Deno's own parse of each module (named in
// deno.json, so `deno lint`, `deno task layers`, `deno task ok`, CI and the editor all apply it). For
// main.ts and every module of lib/ (tests apart where a rule says so):
//   - layer: a relative import (static, type-only, `export … from`, a literal dynamic `import()`) that
//     breaks the layer order of ARCHITECTURE.md's ```layers block (a peer or a line above), or a module
//     in a unit missing from that block;
//   - tests-import: a lib/ module (tests included) importing, or naming by `new URL(…, import.meta.url)`,
//     a module of tests/;
//   - io: outside lib/sys/ (and the exceptions of scripts/layer_rules.ts: entry points, lib/testing/),
//     any value use of `Deno` (`Deno.x`, `globalThis.Deno`, `Deno` passed around), `Date.now`,
//     `setTimeout`/`setInterval`, `crypto.randomUUID`, and importing `node:fs`, `node:fs/promises` or
//     `node:child_process` — everything outside the process goes through lib/sys/'s ports;
//   - console: `console` outside lib/cli/ and lib/testing/.
// Type positions (`Deno.ChildProcess` as an annotation, `typeof setTimeout`) are not uses. Known
// violations may be listed in scripts/layer_rules.ts `allow` (each with its issue); an entry that
// matches nothing is itself a finding, so the list only shrinks. Graph rules (cycles, main.ts never
// reaching lib/testing/) are scripts/check_layers.ts's.

import { readFileSync } from "node:fs";
import { parseLayerOrder, unitOf } from "./check_layers.ts";
import type { AllowEntry, LayerRules } from "./check_layers.ts";
import { LAYER_RULES } from "./layer_rules.ts";

type Node = Deno.lint.Node;

const ROOT = new URL("../", import.meta.url).pathname;

/** The globals that reach outside the process, by object and member (`""`: the bare identifier). */
const IO_MEMBERS: Record<string, readonly string[]> = {
  Date: ["now"],
  crypto: ["randomUUID"],
};
const IO_IDENTIFIERS = new Set(["setTimeout", "setInterval"]);
const IO_MODULES = new Set(["node:fs", "node:fs/promises", "node:child_process"]);
const GLOBAL_OBJECTS = new Set(["globalThis", "window", "self"]);
/** The rules of this plugin (the graph rules are scripts/check_layers.ts's). */
const FILE_RULES = new Set<AllowEntry["rule"]>(["layer", "io", "console", "tests-import"]);

export interface LayerLintOptions {
  /** ARCHITECTURE.md's layer order, highest line first. */
  order: string[][];
  rules: LayerRules;
  /** The repository root the paths are relative to (ends with `/`). */
  root: string;
}

function repoPath(filename: string, root: string): string {
  const path = filename.replaceAll("\\", "/");
  return path.startsWith(root) ? path.slice(root.length) : path;
}

function resolve(from: string, spec: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of spec.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

const isTest = (path: string) => path.endsWith("_test.ts");

/** A property name as written (`a.b`, `a["b"]`), or undefined for a computed one. */
function memberName(node: Deno.lint.MemberExpression): string | undefined {
  const p = node.property;
  if (!node.computed && p.type === "Identifier") return p.name;
  if (p.type === "Literal" && typeof p.value === "string") return p.value;
  return undefined;
}

/** The global object a member expression reads from: `Date` for `Date.now` and `globalThis.Date.now`. */
function globalObject(node: Node): string | undefined {
  if (node.type === "Identifier") return node.name;
  if (
    node.type === "MemberExpression" && node.object.type === "Identifier" &&
    GLOBAL_OBJECTS.has(node.object.name)
  ) {
    return memberName(node);
  }
  return undefined;
}

/** An identifier that is a name in a type, a property key or a member's property: not a use of a global. */
function isNotAReference(node: Deno.lint.Identifier): boolean {
  const parent = node.parent;
  switch (parent.type) {
    case "MemberExpression":
      return parent.property === node && !parent.computed;
    case "Property":
    case "PropertyDefinition":
    case "MethodDefinition":
      return parent.key === node && !parent.computed;
    case "TSQualifiedName":
    case "TSTypeReference":
    case "TSTypeQuery":
    case "TSPropertySignature":
    case "TSMethodSignature":
    case "ImportSpecifier":
    case "ExportSpecifier":
    case "LabeledStatement":
      return true;
    default:
      return false;
  }
}

/** Builds the plugin over a layer order and rules (the repository's by default; tests pass their own). */
export function layerPlugin(o: LayerLintOptions): Deno.lint.Plugin {
  const rank = new Map<string, number>();
  o.order.forEach((names, i) => names.forEach((n) => rank.set(n, o.order.length - i)));
  return {
    name: "blade-layers",
    rules: {
      "layers": {
        create(ctx) {
          const path = repoPath(ctx.filename, o.root);
          if (path !== "main.ts" && !path.startsWith("lib/")) return {};
          const file = new FileChecks(ctx, { path, rank, rules: o.rules });
          return {
            ImportDeclaration: (node) => file.importOf(node, node.source.value),
            ExportAllDeclaration: (node) => file.importOf(node, node.source.value),
            ExportNamedDeclaration(node) {
              if (node.source !== null) file.importOf(node, node.source.value);
            },
            ImportExpression(node) {
              if (node.source.type === "Literal" && typeof node.source.value === "string") {
                file.importOf(node, node.source.value);
              }
            },
            NewExpression: (node) => file.moduleUrl(node),
            MemberExpression: (node) => file.member(node),
            Identifier: (node) => file.identifier(node),
            "Program:exit": (program) => file.end(program),
          };
        },
      },
    },
  };
}

/** The checks of one file: each finding is reported unless the allowlist names it. */
class FileChecks {
  #ctx: Deno.lint.RuleContext;
  #path: string;
  #unit: string | null;
  #test: boolean;
  #ioExcepted: boolean;
  #rank: Map<string, number>;
  #allow: readonly AllowEntry[];
  #used = new Set<AllowEntry>();

  constructor(ctx: Deno.lint.RuleContext, o: { path: string; rank: Map<string, number>; rules: LayerRules }) {
    this.#ctx = ctx;
    this.#path = o.path;
    this.#unit = unitOf(o.path);
    this.#test = isTest(o.path);
    this.#ioExcepted = o.path.startsWith("lib/sys/") ||
      o.rules.denoExceptions.some((e) =>
        e.path.endsWith("/") ? o.path.startsWith(e.path) : o.path === e.path
      );
    this.#rank = o.rank;
    this.#allow = o.rules.allow;
  }

  #report(
    node: Node,
    finding: { rule: AllowEntry["rule"]; key: string; message: string; hint: string },
  ): void {
    const entry = this.#allow.find((a) => a.rule === finding.rule && a.key === finding.key);
    if (entry !== undefined) return void this.#used.add(entry);
    this.#ctx.report({ node, message: `${finding.rule}: ${finding.message}`, hint: finding.hint });
  }

  /** A use that reaches outside the process (skipped in tests, lib/sys/ and the exceptions). */
  #io(
    node: Node,
    what: string,
    hint = "take the port (Clock, Ids, Fs, Process, Env) from lib/sys/ instead",
  ): void {
    if (this.#test || this.#ioExcepted) return;
    const message =
      `${this.#path} uses ${what}: only lib/sys/ touches Deno.*, files, processes, time, timers and randomness`;
    this.#report(node, { rule: "io", key: `${this.#path}: ${what}`, message, hint });
  }

  #testsImport(node: Node, target: string): void {
    if (!target.startsWith("tests/") || !this.#path.startsWith("lib/")) return;
    const message = `${this.#path} imports ${target}: lib/ never imports from tests/`;
    this.#report(node, {
      rule: "tests-import",
      key: `${this.#path} -> ${target}`,
      message,
      hint: "move it to lib/testing/",
    });
  }

  importOf(node: Node, spec: string): void {
    if (IO_MODULES.has(spec)) this.#io(node, spec, "use the Fs or Process port (lib/sys/)");
    if (!spec.startsWith("./") && !spec.startsWith("../")) return;
    const target = resolve(this.#path, spec);
    this.#testsImport(node, target);
    const from = this.#unit;
    if (this.#test || from === null || !(target.startsWith("lib/") || target === "main.ts")) return;
    const to = unitOf(target);
    const rf = this.#rank.get(from);
    const rt = to === null ? undefined : this.#rank.get(to);
    if (to === null || to === from || rf === undefined || rt === undefined || rt < rf) return;
    const where = rt === rf ? "a peer of" : "above";
    this.#report(node, {
      rule: "layer",
      key: `${this.#path} -> ${target}`,
      message: `${this.#path} imports ${target}, but ${to} is ${where} ${from} in the layer order`,
      hint: "import only from lines below this module's in ARCHITECTURE.md's layers block (or move the code)",
    });
  }

  /** `new URL("./x.ts", import.meta.url)`: a Worker entry or a subprocess script. */
  moduleUrl(node: Deno.lint.NewExpression): void {
    const [first, second] = node.arguments;
    if (node.callee.type !== "Identifier" || node.callee.name !== "URL") return;
    if (first?.type !== "Literal" || typeof first.value !== "string" || !first.value.startsWith(".")) return;
    if (second?.type !== "MemberExpression" || second.object.type !== "MetaProperty") return;
    this.#testsImport(node, resolve(this.#path, first.value));
  }

  member(node: Deno.lint.MemberExpression): void {
    const name = memberName(node);
    const object = globalObject(node.object);
    if (object !== undefined && name !== undefined && IO_MEMBERS[object]?.includes(name)) {
      this.#io(node, `${object}.${name}`);
    }
    if (node.object.type === "Identifier" && GLOBAL_OBJECTS.has(node.object.name) && name !== undefined) {
      if (name === "Deno" || IO_IDENTIFIERS.has(name)) this.#io(node, `${node.object.name}.${name}`);
    }
  }

  identifier(node: Deno.lint.Identifier): void {
    if (isNotAReference(node)) return;
    if (node.name === "Deno") return this.#io(node, denoMember(node));
    if (IO_IDENTIFIERS.has(node.name)) return this.#io(node, node.name);
    const printer = this.#path.startsWith("lib/cli/") || this.#path.startsWith("lib/testing/");
    if (node.name !== "console" || printer || this.#test) return;
    this.#report(node, {
      rule: "console",
      key: `${this.#path}: console`,
      message: `${this.#path} uses console: only lib/cli/ prints`,
      hint: "return the text or emit an event",
    });
  }

  end(program: Deno.lint.Program): void {
    const unit = this.#unit;
    if (unit !== null && !this.#rank.has(unit) && !this.#test) {
      this.#report(program, {
        rule: "layer",
        key: `unit ${unit}`,
        message: `${unit} is not in the layer order`,
        hint: "add it to the ```layers block of ARCHITECTURE.md",
      });
    }
    for (const entry of this.#allow) {
      if (this.#used.has(entry) || !FILE_RULES.has(entry.rule) || entryPath(entry) !== this.#path) continue;
      this.#ctx.report({
        node: program,
        message: `stale layer allowlist entry (${entry.rule} "${entry.key}"): it matches nothing`,
        hint: "delete it from scripts/layer_rules.ts",
      });
    }
  }
}

/** How a use of `Deno` is named: `Deno.readTextFile`, `Deno.errors.NotFound`, or `Deno` alone. */
function denoMember(node: Deno.lint.Identifier): string {
  const parent = node.parent;
  if (parent.type !== "MemberExpression" || parent.object !== node) return "Deno";
  const member = memberName(parent);
  if (member === undefined) return "Deno";
  const outer = parent.parent;
  const nested = member === "errors" && outer.type === "MemberExpression" ? memberName(outer) : undefined;
  return nested === undefined ? `Deno.${member}` : `Deno.errors.${nested}`;
}

/** The file an allowlist entry is about (its key starts with the path). */
function entryPath(entry: AllowEntry): string {
  return entry.key.split(/:| -> /)[0]!.trim();
}

export default layerPlugin({
  order: parseLayerOrder(readFileSync(`${ROOT}ARCHITECTURE.md`, "utf8")),
  rules: LAYER_RULES,
  root: ROOT,
});
