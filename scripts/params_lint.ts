// Owns the parameter rule (a `deno lint` plugin named in deno.json, like denoland/std's
// exported-function-args-maximum): outside tests, a function takes at most two parameters plus an
// options object — a third parameter must be an object (a type literal, a named object type or a
// destructured object), and there is no fourth. Functions whose parameters carry no type annotation are
// left alone: their shape is the contract of whoever calls them (a callback's `(value, index, array)`).
// An exception is marked where the function is declared, with its reason:
//   // deno-lint-ignore blade-style/max-params -- <why this signature stays>
// Functions written before the rule and not converted yet are listed in scripts/params_rules.ts (an
// entry that matches nothing is itself a finding, so that list only shrinks).

import { isTestPath, qualifiedName, repoPath } from "./size_lint.ts";
import { PARAMS_RULES, type ParamsAllow } from "./params_rules.ts";

type Node = Deno.lint.Node;
type Param = Deno.lint.Parameter;
type FunctionNode =
  | Deno.lint.FunctionDeclaration
  | Deno.lint.FunctionExpression
  | Deno.lint.ArrowFunctionExpression;

export const MAX_POSITIONAL = 2;

/** Type annotations that are not an object: a third parameter of one of these is a positional one. */
const NOT_OBJECTS = new Set([
  "TSStringKeyword",
  "TSNumberKeyword",
  "TSBooleanKeyword",
  "TSBigIntKeyword",
  "TSSymbolKeyword",
  "TSUnknownKeyword",
  "TSAnyKeyword",
  "TSArrayType",
  "TSTupleType",
  "TSFunctionType",
  "TSLiteralType",
]);

/** The parameter itself: `x`, `x = 1`, `...x`, `public x` all name one. */
function inner(param: Param): Node {
  if (param.type === "TSParameterProperty") return inner(param.parameter);
  if (param.type === "AssignmentPattern") return param.left;
  return param;
}

function annotation(param: Param): Node | undefined {
  const p = inner(param) as Node & { typeAnnotation?: { typeAnnotation: Node } };
  return p.typeAnnotation?.typeAnnotation;
}

/** An options object: destructured, a type literal, or a named type that is not a primitive or array. */
export function isOptionsObject(param: Param): boolean {
  const p = inner(param);
  if (p.type === "ObjectPattern") return true;
  if (p.type === "RestElement") return false;
  const type = annotation(param);
  if (type === undefined) return false;
  if (type.type === "TSUnionType") {
    // `Options | undefined`: the object, optional.
    return type.types.some((t) => !NOT_OBJECTS.has(t.type) && t.type !== "TSUndefinedKeyword") &&
      type.types.every((t) => !NOT_OBJECTS.has(t.type));
  }
  if (type.type === "TSTypeReference" && type.typeName.type === "Identifier") {
    return !["Array", "ReadonlyArray", "Set", "Map"].includes(type.typeName.name);
  }
  return !NOT_OBJECTS.has(type.type);
}

/** What is wrong with a function's parameters, or undefined. */
export function paramsProblem(params: readonly Param[]): string | undefined {
  const own = params.filter((p) => !(p.type === "Identifier" && p.name === "this"));
  if (own.length <= MAX_POSITIONAL) return undefined;
  if (own.every((p) => annotation(p) === undefined && inner(p).type !== "ObjectPattern")) return undefined;
  if (own.length > MAX_POSITIONAL + 1) {
    return `${own.length} parameters: at most ${MAX_POSITIONAL} plus an options object`;
  }
  if (isOptionsObject(own[MAX_POSITIONAL]!)) return undefined;
  return `its third parameter is not an options object: at most ${MAX_POSITIONAL} positional parameters`;
}

const ROOT = new URL("../", import.meta.url).pathname;

/** Builds the plugin over an allowlist (the real one by default; tests pass their own). */
export function paramsPlugin(allow: readonly ParamsAllow[] = PARAMS_RULES, root = ROOT): Deno.lint.Plugin {
  return {
    name: "blade-style",
    rules: {
      "max-params": {
        create(ctx) {
          const path = repoPath(ctx.filename, root);
          if (isTestPath(path) || !(path.startsWith("lib/") || path === "main.ts")) return {};
          const used = new Set<ParamsAllow>();
          const check = (node: FunctionNode) => {
            const problem = paramsProblem(node.params);
            if (problem === undefined) return;
            const name = qualifiedName(node, ctx.sourceCode.getAncestors(node));
            const entry = allow.find((a) => a.path === path && a.function === name);
            if (entry !== undefined) return void used.add(entry);
            ctx.report({
              node,
              message: `function ${name} takes ${problem}`,
              hint:
                "pass the rest in one options object (pass option objects through rather than rebuilding " +
                "them), or mark the exception: // deno-lint-ignore blade-style/max-params -- <why>",
            });
          };
          return {
            FunctionDeclaration: check,
            FunctionExpression: check,
            ArrowFunctionExpression: check,
            "Program:exit"(program) {
              for (const entry of allow) {
                if (entry.path !== path || used.has(entry)) continue;
                ctx.report({
                  node: program,
                  message:
                    `stale parameter allowlist entry: function ${entry.function} in ${path} now fits (or is gone)`,
                  hint: "delete its entry in scripts/params_rules.ts",
                });
              }
            },
          };
        },
      },
    },
  };
}

export default paramsPlugin();
