// Owns one rewrite of a bundle's chunks (scripts/bundle_split.ts, docs/reference/performance.md): making V8
// compile their functions when it compiles the module, so that Deno's code cache holds them. Deno
// writes a module's V8 code cache right after its first compile, and V8 compiles a function only when
// it is first called, so without this every function a start-up calls is compiled from source again in
// every run, on the main thread and in each child Worker. V8 compiles a function eagerly when it is
// likely called: a function or arrow expression in parentheses (`(function(){…})`, `(()=>…)`), and
// the functions inside one it compiles. So, in each chunk:
//
//   - every function expression and arrow is put in parentheses (`x=>y` → `(x=>y)`), except an async
//     arrow, which V8 compiles lazily even then: it becomes an async function expression when it uses
//     none of `this`, `arguments`, `super` or `new.target` (the only things an arrow sees differently);
//   - a function declaration becomes a `var` (in a function body, a static block or the module) or a
//     `let` (in any other block, where a declaration is block-scoped in a module) of the anonymous
//     parenthesized expression, at the top of its scope: the binding is then set before any statement
//     runs, as the declaration's was; its name (`f.name`) comes from the binding. At module level this
//     holds only while no module that imports this one can run before it: `hoistTopLevel` is false
//     for a chunk in an import cycle (eagerDir);
//   - an object literal's method `m(a){…}` becomes `m:(function(a){…})` unless it uses `super` (only a
//     method has one) or is named `__proto__` (as a property that would set the prototype).
//
// Left lazy: class members, getters and setters, exported declarations (`export function`), a
// declaration in a `switch` case. Nothing else changes: the output is parsed again, and a chunk that
// does not parse (either time) is an error, so a failed rewrite fails the build instead of shipping.

import { type Node as AcornNode, parse } from "acorn";
import { base, full } from "acorn-walk";
import { join } from "node:path";

// deno-lint-ignore no-explicit-any -- acorn's ESTree nodes are read by their field names
type Node = AcornNode & Record<string, any>;

export interface EagerResult {
  text: string;
  /** Function and arrow expressions put in parentheses (async arrows made function expressions). */
  wrapped: number;
  /** Function declarations made bindings of an expression. */
  hoisted: number;
  /** Object literal methods made properties. */
  methods: number;
}

const PARSE = { ecmaVersion: "latest", sourceType: "module" } as const;

export function eagerFunctions(src: string, options: { hoistTopLevel?: boolean } = {}): EagerResult {
  const hoistTopLevel = options.hoistTopLevel ?? true;
  const ast = parse(src, PARSE) as Node;
  const counts = { wrapped: 0, hoisted: 0, methods: 0 };

  const print = (node: Node, parent: Node | undefined, anonymous = false): string => {
    if (node.type === "ArrowFunctionExpression" && node.async && !usesArrowContext(node)) {
      counts.wrapped++;
      const params = (node.params as Node[]).map((p) => print(p, node)).join(",");
      const body = print(node.body as Node, node);
      return `(async function(${params})${node.expression ? `{return ${body}}` : body})`;
    }
    if (isPlainMethod(node)) {
      // `k(a){…}` → `k:(function(a){…})`; the value's own text starts at its parameters.
      counts.methods++;
      const key = node.key as Node;
      const value = node.value as Node;
      const name = node.computed ? `[${print(key, node)}]` : src.slice(key.start, key.end);
      const keyword = `${value.async ? "async " : ""}function${value.generator ? "*" : ""}`;
      return `${name}:(${keyword}${print(value, node)})`;
    }
    const hoisted = new Set(hoistable(node, hoistTopLevel));
    const kids = childrenOf(node);
    const header = [...hoisted].map((d) => {
      counts.hoisted++;
      return `${bindingKind(node, parent)} ${d.id.name}=(${print(d, node, true)});`;
    }).join("");
    const headerAt = hoisted.size === 0 ? -1 : headerPosition(node, src);
    let out = "";
    let pos = node.start;
    const copyTo = (end: number) => {
      if (headerAt >= pos && headerAt <= end) {
        out += src.slice(pos, headerAt) + header + src.slice(headerAt, end);
      } else {
        out += src.slice(pos, end);
      }
      pos = end;
    };
    for (const kid of kids) {
      if (kid.start < pos) throw new Error(`eager: overlapping ${kid.type} at ${kid.start}`);
      copyTo(kid.start);
      // A hoisted declaration leaves its place; the declaration's own name is dropped (anonymous).
      if (!hoisted.has(kid) && !(anonymous && kid === node.id)) out += print(kid, node);
      pos = kid.end;
    }
    copyTo(node.end);
    return rewritten(node, parent, out, counts);
  };

  const text = print(ast, undefined);
  parse(text, PARSE); // a rewrite that does not parse fails the build
  return { text, ...counts };
}

/** The node's own text after its children were printed: parenthesized, converted, or as it is. */
function rewritten(
  node: Node,
  parent: Node | undefined,
  out: string,
  counts: Omit<EagerResult, "text">,
): string {
  if (
    node.type === "ArrowFunctionExpression" || (node.type === "FunctionExpression" && !isMethodValue(parent))
  ) {
    counts.wrapped++;
    return `(${out})`;
  }
  return out;
}

/** Whether an arrow's body or parameters use what an arrow takes from around it. */
function usesArrowContext(node: Node): boolean {
  let found = false;
  full(node, (n: Node) => {
    if (n.type === "ThisExpression" || n.type === "Super" || n.type === "MetaProperty") found = true;
    if (n.type === "Identifier" && n.name === "arguments") found = true;
  });
  return found;
}

function isMethodValue(parent: Node | undefined): boolean {
  return parent !== undefined &&
    (parent.type === "MethodDefinition" ||
      (parent.type === "Property" && (parent.method || parent.kind !== "init")));
}

function isPlainMethod(node: Node): boolean {
  if (node.type !== "Property" || !node.method || node.kind !== "init") return false;
  const key = node.key as Node;
  const proto = !node.computed &&
    ((key.type === "Identifier" && key.name === "__proto__") ||
      (key.type === "Literal" && key.value === "__proto__"));
  if (proto) return false;
  let usesSuper = false;
  full(node.value as Node, (n: Node) => {
    if (n.type === "Super") usesSuper = true;
  });
  return !usesSuper;
}

/** The function declarations a scope body moves to its top. */
function hoistable(node: Node, hoistTopLevel: boolean): Node[] {
  const scope = node.type === "BlockStatement" || node.type === "StaticBlock" ||
    (node.type === "Program" && hoistTopLevel);
  if (!scope) return [];
  return (node.body as Node[]).filter((s) => s.type === "FunctionDeclaration");
}

/** A declaration in a function body, static block or module is var-scoped; in another block, let. */
function bindingKind(node: Node, parent: Node | undefined): "var" | "let" {
  if (node.type !== "BlockStatement") return "var";
  const fn = parent !== undefined && /Function/.test(parent.type) && parent.body === node;
  return fn ? "var" : "let";
}

/** The top of a scope body: after its `{` (a static block's follows `static`) and directive prologue. */
function headerPosition(node: Node, src: string): number {
  const body = node.body as Node[];
  let i = 0;
  while (i < body.length && body[i]!.type === "ExpressionStatement" && body[i]!.directive !== undefined) i++;
  if (i > 0) return body[i - 1]!.end;
  if (node.type === "Program") return node.start;
  return src.indexOf("{", node.start) + 1;
}

/** A node's direct children, in source order (acorn-walk's own visitors, so every kind is covered). */
function childrenOf(node: Node): Node[] {
  const out: Node[] = [];
  const seen = new Set<Node>();
  const visit = (type: string) => {
    const walker = (base as Record<string, unknown>)[type] as
      | ((n: Node, st: unknown, c: (child: Node, st: unknown, type?: string) => void) => void)
      | undefined;
    if (walker === undefined) throw new Error(`eager: no walker for ${type}`);
    walker(node, undefined, (child, _st, override) => {
      if (child === node) return visit(override ?? child.type);
      if (!seen.has(child)) {
        seen.add(child);
        out.push(child);
      }
    });
  };
  visit(node.type);
  return out.sort((a, b) => a.start - b.start);
}

/** The chunks of a build folder that statically import each other in a cycle (`./x.js` specifiers). */
export function chunksInCycles(imports: ReadonlyMap<string, readonly string[]>): Set<string> {
  const inCycle = new Set<string>();
  for (const start of imports.keys()) {
    // Reaches itself again?
    const stack = [...imports.get(start) ?? []];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === start) {
        inCycle.add(start);
        break;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...imports.get(next) ?? []);
    }
  }
  return inCycle;
}

/** The `./x.js` modules a chunk imports or re-exports statically. */
export function staticImportsOf(src: string): string[] {
  const out: string[] = [];
  for (const s of (parse(src, PARSE) as Node).body as Node[]) {
    const from = s.source as Node | undefined | null;
    const named = s.type === "ImportDeclaration" || s.type === "ExportAllDeclaration" ||
      s.type === "ExportNamedDeclaration";
    if (named && from && typeof from.value === "string" && /^\.\/[^/]+\.js$/.test(from.value)) {
      out.push(from.value.slice(2));
    }
  }
  return out;
}

/**
 * Rewrites the chunks of a build folder that a start-up loads: those `roots` names (a name, or a
 * pattern for a chunk named after its module, e.g. the provider's) and the chunks they import
 * statically. The others (the interactive session, MCP, zod, yaml, other commands) stay lazy: whole
 * libraries compiled eagerly cost memory and time for the many functions a run never calls. Returns
 * the totals.
 */
export async function eagerDir(
  dir: string,
  roots: readonly (string | RegExp)[],
): Promise<Omit<EagerResult, "text"> & { files: string[] }> {
  const texts = new Map<string, string>();
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".js")) texts.set(e.name, await Deno.readTextFile(join(dir, e.name)));
  }
  const imports = new Map([...texts].map(([name, text]) => [name, staticImportsOf(text)]));
  const cycles = chunksInCycles(imports);
  const todo = [...texts.keys()].filter((n) =>
    roots.some((r) => typeof r === "string" ? r === n : r.test(n))
  );
  const chosen = new Set<string>();
  while (todo.length > 0) {
    const name = todo.pop()!;
    if (chosen.has(name) || !texts.has(name)) continue;
    chosen.add(name);
    todo.push(...imports.get(name) ?? []);
  }
  const totals = { wrapped: 0, hoisted: 0, methods: 0, files: [...chosen].sort() };
  for (const name of totals.files) {
    const r = eagerFunctions(texts.get(name)!, { hoistTopLevel: !cycles.has(name) });
    await Deno.writeTextFile(join(dir, name), r.text);
    totals.wrapped += r.wrapped;
    totals.hoisted += r.hoisted;
    totals.methods += r.methods;
  }
  return totals;
}
