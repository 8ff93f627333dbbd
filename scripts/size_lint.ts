// Owns the size rule (a `deno lint` plugin named in deno.json, so `deno lint`, `deno task ok`, CI and the
// editor all apply it): outside tests, a file over 400 lines of code or a function over 80 fails unless
// scripts/size_rules.ts lists it with a reason. Only lines of code count — a line holding nothing but
// comments or whitespace is free — so documentation is never what a file trims to fit, and the limit
// asks "is this one concept?" of the code alone. Lines are counted on the parsed program (Deno's own
// parser and its comments), from a function's first line to its last, nested functions included in
// their parent's count; each nested function is checked on its own too. Test code is left alone:
// `*_test.ts` and `tests/`. An allowlist entry that matches nothing is itself a finding, so the list
// only shrinks. It does not decide where to split: a file splits along its concepts (ARCHITECTURE.md's
// layout), never to fit a number; a concept that is one whole over the limit is listed with its reason.

import { SIZE_RULES, type SizeAllow } from "./size_rules.ts";

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 80;

type Node = Deno.lint.Node;
type FunctionNode =
  | Deno.lint.FunctionDeclaration
  | Deno.lint.FunctionExpression
  | Deno.lint.ArrowFunctionExpression;

const ROOT = new URL("../", import.meta.url).pathname;

/** The path the rules speak of: relative to the repository root, `/`-separated. */
export function repoPath(filename: string, root = ROOT): string {
  const path = filename.replaceAll("\\", "/");
  return path.startsWith(root) ? path.slice(root.length) : path;
}

/** Test code the rule does not apply to. */
export function isTestPath(path: string): boolean {
  return path.endsWith("_test.ts") || path.startsWith("tests/");
}

/** The source with every comment blanked out (newlines kept), so only code is left on its lines. */
function codeOnly(text: string, comments: readonly { range: Deno.lint.Range }[]): string {
  let out = "";
  let at = 0;
  for (const { range: [start, end] } of comments) {
    out += text.slice(at, start) + text.slice(start, end).replace(/[^\n]/g, " ");
    at = end;
  }
  return out + text.slice(at);
}

/** Lines of `code` (comments already blanked) holding anything but whitespace. */
function codeLines(code: string): number {
  let n = 0;
  for (const line of code.split("\n")) if (line.trim() !== "") n++;
  return n;
}

function keyName(key: Node): string | null {
  if (key.type === "Identifier") return key.name;
  if (key.type === "PrivateIdentifier") return `#${key.name}`;
  if (key.type === "Literal") return String(key.value);
  return null;
}

/** The function's own name: declared, or the method, property or variable it is the value of. */
function ownName(node: FunctionNode): string | null {
  if (node.type !== "ArrowFunctionExpression" && node.id) return node.id.name;
  const parent = node.parent;
  if (
    parent.type === "MethodDefinition" || parent.type === "Property" || parent.type === "PropertyDefinition"
  ) {
    return keyName(parent.key);
  }
  if (parent.type === "VariableDeclarator" && parent.id.type === "Identifier") return parent.id.name;
  return null;
}

const FUNCTION_TYPES = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/**
 * The name an allowlist entry uses: `name`, `Class.method`, `object.method`, `outer.inner` for a named
 * function inside another, `outer.<anonymous>` for a callback.
 */
export function qualifiedName(node: FunctionNode, ancestors: Node[]): string {
  const parts: string[] = [];
  for (const a of ancestors) {
    if (a.type === "ClassDeclaration" && a.id) parts.push(a.id.name);
    else if (a.type === "VariableDeclarator" && a !== node.parent && a.id.type === "Identifier") {
      // `const tool = { run() {…} }`: the object's name; a function's own variable is named by the function.
      if (!a.init || !FUNCTION_TYPES.has(a.init.type)) parts.push(a.id.name);
    } else if (FUNCTION_TYPES.has(a.type)) {
      const name = ownName(a as FunctionNode);
      if (name !== null) parts.push(name);
    }
  }
  parts.push(ownName(node) ?? "<anonymous>");
  return parts.join(".");
}

function findEntry(allow: readonly SizeAllow[], path: string, name: string | null): SizeAllow | undefined {
  return allow.find((a) => a.path === path && (a.function ?? null) === name);
}

/** Builds the plugin over an allowlist (the real one by default; tests pass their own). */
export function sizePlugin(allow: readonly SizeAllow[] = SIZE_RULES, root = ROOT): Deno.lint.Plugin {
  return {
    name: "blade-size",
    rules: {
      "max-lines": {
        create(ctx) {
          const path = repoPath(ctx.filename, root);
          if (isTestPath(path)) return {};
          const used = new Set<SizeAllow>();
          let code: string | undefined;
          const codeText = () => code ??= codeOnly(ctx.sourceCode.text, ctx.sourceCode.getAllComments());
          const check = (node: FunctionNode) => {
            const [start, end] = node.range;
            const lines = codeLines(codeText().slice(start, end));
            if (lines <= MAX_FUNCTION_LINES) return;
            const name = qualifiedName(node, ctx.sourceCode.getAncestors(node));
            const entry = findEntry(allow, path, name);
            if (entry) return void used.add(entry);
            ctx.report({
              node,
              message: `function ${name} is ${lines} lines (limit ${MAX_FUNCTION_LINES})`,
              hint:
                "split it into named helpers (behaviour unchanged), or list it in scripts/size_rules.ts " +
                "with the reason it should stay whole",
            });
          };
          return {
            FunctionDeclaration: check,
            FunctionExpression: check,
            ArrowFunctionExpression: check,
            "Program:exit"(program) {
              const lines = codeLines(codeText());
              if (lines > MAX_FILE_LINES) {
                const entry = findEntry(allow, path, null);
                if (entry) used.add(entry);
                else {
                  ctx.report({
                    range: [0, 0],
                    message: `${path} is ${lines} lines (limit ${MAX_FILE_LINES})`,
                    hint: "move a concept into its own file, or list the file in scripts/size_rules.ts " +
                      "with the reason it should stay whole",
                  });
                }
              }
              for (const entry of allow) {
                if (entry.path !== path || used.has(entry)) continue;
                const what = entry.function === undefined ? "the file" : `function ${entry.function}`;
                ctx.report({
                  node: program,
                  message: `stale size allowlist entry: ${what} in ${path} is within its limit (or gone)`,
                  hint: "delete its entry in scripts/size_rules.ts",
                });
              }
            },
          };
        },
      },
    },
  };
}

export default sizePlugin();
