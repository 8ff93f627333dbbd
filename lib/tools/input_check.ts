// Owns checking a built-in tool's input at run time without zod: a validator compiled from the tool's
// JSON Schema (input_schemas.gen.ts, converted from the zod schemas of input_zod.ts at build time), so
// a session and a child Worker do not load and evaluate zod to offer or run the built-in tools
// (docs/reference/performance.md). It reads the subset of JSON Schema those conversions use (an
// object of string, integer, number, boolean and string-enum properties with their bounds) and refuses
// any other keyword when it is built, so a richer zod schema cannot be checked less strictly than zod
// would. Results have zod's shape: unknown keys are dropped, issues name the path and say what was
// expected (input_check_test.ts compares both with zod over a table of inputs).

import { INPUT_SCHEMAS } from "./input_schemas.gen.ts";

/** One problem with an input: where (property path) and what was expected. */
export interface InputIssue {
  path: PropertyKey[];
  message: string;
}

export type InputParse<I> =
  | { success: true; data: I }
  | { success: false; error: { issues: InputIssue[] } };

/** What a tool's input is checked with: a compiled validator here, or any zod schema (same shape). */
export interface InputSchema<I> {
  safeParse(input: unknown): InputParse<I>;
}

type Json = Record<string, unknown>;
type Check = (value: unknown, path: PropertyKey[], issues: InputIssue[]) => void;

const PROPERTY_KEYWORDS = new Set([
  "type",
  "description",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "enum",
]);
const OBJECT_KEYWORDS = new Set(["type", "properties", "required", "description"]);

/**
 * Compiles the validator of an object schema. `messages` replaces the message of one bound of one
 * property (e.g. `{ prompt: { maxLength: "…" } }`), as a zod schema's own `error` does.
 */
export function compileInputSchema<I>(
  schema: Json,
  messages: Record<string, Record<string, string>> = {},
): InputSchema<I> {
  refuseUnknown(schema, OBJECT_KEYWORDS, "the input");
  if (schema.type !== "object") {
    throw new Error(`input schema: type must be "object", got ${String(schema.type)}`);
  }
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const checks = Object.entries(properties).map(([key, property]) => {
    refuseUnknown(property, PROPERTY_KEYWORDS, `property "${key}"`);
    return { key, check: compileProperty(property, messages[key] ?? {}), required: required.has(key) };
  });
  return {
    safeParse(input: unknown): InputParse<I> {
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        return failed([{ path: [], message: `Invalid input: expected object, received ${typeName(input)}` }]);
      }
      const issues: InputIssue[] = [];
      const data: Json = {};
      const given = input as Json;
      for (const { key, check, required } of checks) {
        const present = Object.hasOwn(given, key);
        const value = present ? given[key] : undefined;
        if (value === undefined && !required) {
          if (present) data[key] = undefined;
          continue;
        }
        check(value, [key], issues);
        data[key] = value;
      }
      return issues.length === 0 ? { success: true, data: data as I } : failed(issues);
    },
  };
}

function failed<I>(issues: InputIssue[]): InputParse<I> {
  return { success: false, error: { issues } };
}

function refuseUnknown(schema: Json, known: ReadonlySet<string>, what: string): void {
  for (const keyword of Object.keys(schema)) {
    if (!known.has(keyword)) throw new Error(`input schema of ${what}: unsupported keyword "${keyword}"`);
  }
}

function compileProperty(p: Json, messages: Record<string, string>): Check {
  const bound = (keyword: string, fallback: string) => messages[keyword] ?? fallback;
  if (Array.isArray(p.enum)) {
    const options = p.enum as unknown[];
    const message = `Invalid option: expected one of ${options.map((o) => JSON.stringify(o)).join("|")}`;
    return (value, path, issues) => {
      if (!options.includes(value)) issues.push({ path, message });
    };
  }
  switch (p.type) {
    case "string": {
      const min = p.minLength as number | undefined;
      const max = p.maxLength as number | undefined;
      return (value, path, issues) => {
        if (typeof value !== "string") return void issues.push(typeIssue("string", value, path));
        if (min !== undefined && value.length < min) {
          issues.push({
            path,
            message: bound("minLength", `Too small: expected string to have >=${min} characters`),
          });
        }
        if (max !== undefined && value.length > max) {
          issues.push({
            path,
            message: bound("maxLength", `Too big: expected string to have <=${max} characters`),
          });
        }
      };
    }
    case "integer":
    case "number": {
      const integer = p.type === "integer";
      const min = p.minimum as number | undefined;
      const max = p.maximum as number | undefined;
      return (value, path, issues) => {
        if (typeof value !== "number" || !Number.isFinite(value)) {
          return void issues.push(typeIssue("number", value, path));
        }
        if (integer && !Number.isInteger(value)) {
          return void issues.push({ path, message: "Invalid input: expected int, received number" });
        }
        if (integer && !Number.isSafeInteger(value)) {
          const edge = value > 0 ? `<=${Number.MAX_SAFE_INTEGER}` : `>=${Number.MIN_SAFE_INTEGER}`;
          issues.push({ path, message: `Too ${value > 0 ? "big" : "small"}: expected int to be ${edge}` });
        }
        if (min !== undefined && value < min) {
          issues.push({ path, message: bound("minimum", `Too small: expected number to be >=${min}`) });
        }
        if (max !== undefined && value > max) {
          issues.push({ path, message: bound("maximum", `Too big: expected number to be <=${max}`) });
        }
      };
    }
    case "boolean":
      return (value, path, issues) => {
        if (typeof value !== "boolean") issues.push(typeIssue("boolean", value, path));
      };
    default:
      throw new Error(`input schema: unsupported property type ${JSON.stringify(p.type)}`);
  }
}

function typeIssue(expected: string, value: unknown, path: PropertyKey[]): InputIssue {
  return { path, message: `Invalid input: expected ${expected}, received ${typeName(value)}` };
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

/**
 * A built-in tool's input contract: its generated JSON Schema (sent to the model) and the validator
 * compiled from it. Throws when the generated module has no entry for `tool`.
 */
export function builtInInput<I>(
  tool: string,
  messages: Record<string, Record<string, string>> = {},
): { schema: InputSchema<I>; inputSchema: Json } {
  const inputSchema = INPUT_SCHEMAS[tool];
  if (inputSchema === undefined) {
    throw new Error(`no generated input schema for ${tool}: run deno run -A scripts/tool_schemas.ts`);
  }
  return { schema: compileInputSchema<I>(inputSchema, messages), inputSchema };
}

/** Any JSON object (zod's `z.record(z.string(), z.unknown())`): the input check of tools whose schema is checked elsewhere. */
export const ANY_OBJECT_INPUT: InputSchema<Record<string, unknown>> = {
  safeParse(input: unknown) {
    if (typeof input === "object" && input !== null && !Array.isArray(input)) {
      return { success: true, data: input as Record<string, unknown> };
    }
    return failed([{ path: [], message: `Invalid input: expected record, received ${typeName(input)}` }]);
  },
};
