// Owns checking a built-in tool's input at run time without zod: a validator compiled from the tool's
// JSON Schema (input_schemas.gen.ts, converted from the zod schemas of input_zod.ts at build time) into
// the checks of lib/protocol/check.ts, so a session and a child Worker do not load and evaluate zod
// to offer or run the built-in tools (docs/reference/performance.md). It reads the subset of JSON
// Schema those conversions use (an object of string, integer, number, boolean, string-enum and
// list-of-string properties with their bounds) and refuses any other keyword when it is built, so a richer zod
// schema cannot be checked less strictly than zod would. Results have zod's shape: unknown keys are
// dropped, issues name the path and say what was expected (input_check_test.ts compares both with zod
// over a table of inputs).

import { INPUT_SCHEMAS } from "./input_schemas.gen.ts";
import {
  array,
  boolean,
  type Check,
  number,
  object,
  oneOf,
  type Optional,
  optional,
  type Parsed,
  parseWith,
  record,
  string,
} from "../protocol/check.ts";

/** What a tool's input is checked with: a compiled validator here, or any zod schema (same shape). */
export interface InputSchema<I> {
  safeParse(input: unknown): Parsed<I> | ZodLikeParse<I>;
}

/** zod's result shape (its issues carry more fields; these are the ones read). */
type ZodLikeParse<I> =
  | { success: true; data: I }
  | { success: false; error: { issues: readonly { path: PropertyKey[]; message: string }[] } };

type Json = Record<string, unknown>;

const PROPERTY_KEYWORDS = new Set([
  "type",
  "description",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "enum",
  "items",
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
  const fields: Record<string, Check | Optional> = {};
  for (const [key, property] of Object.entries(properties)) {
    refuseUnknown(property, PROPERTY_KEYWORDS, `property "${key}"`);
    const check = compileProperty(property, messages[key] ?? {});
    // zod's optional: absent, or present as undefined.
    fields[key] = required.has(key) ? check : optional(check, { undefinedOk: true });
  }
  const input = object(fields);
  return { safeParse: (value: unknown) => parseWith<I>(input, value) };
}

function refuseUnknown(schema: Json, known: ReadonlySet<string>, what: string): void {
  for (const keyword of Object.keys(schema)) {
    if (!known.has(keyword)) throw new Error(`input schema of ${what}: unsupported keyword "${keyword}"`);
  }
}

function compileProperty(p: Json, messages: Record<string, string>): Check {
  if (Array.isArray(p.enum)) return oneOf(p.enum as unknown[]);
  const bounds = (low: string, high: string) => ({
    ...(messages[low] === undefined ? {} : { min: messages[low] }),
    ...(messages[high] === undefined ? {} : { max: messages[high] }),
  });
  switch (p.type) {
    case "string":
      return string({
        ...(p.minLength === undefined ? {} : { min: p.minLength as number }),
        ...(p.maxLength === undefined ? {} : { max: p.maxLength as number }),
        messages: bounds("minLength", "maxLength"),
      });
    case "integer":
    case "number":
      return number({
        int: p.type === "integer",
        ...(p.minimum === undefined ? {} : { min: p.minimum as number }),
        ...(p.maximum === undefined ? {} : { max: p.maximum as number }),
        messages: bounds("minimum", "maximum"),
      });
    case "boolean":
      return boolean();
    case "array": {
      const items = (p.items ?? {}) as Json;
      refuseUnknown(items, PROPERTY_KEYWORDS, "a list's items");
      return array(compileProperty(items, {}));
    }
    default:
      throw new Error(`input schema: unsupported property type ${JSON.stringify(p.type)}`);
  }
}

/**
 * A built-in tool's input contract: its generated JSON Schema (sent to the model) and the validator
 * compiled from it (at its first use). Throws when the generated module has no entry for `tool`.
 */
export function builtInInput<I>(
  tool: string,
  messages: Record<string, Record<string, string>> = {},
): { schema: InputSchema<I>; inputSchema: Json } {
  const inputSchema = INPUT_SCHEMAS[tool];
  if (inputSchema === undefined) {
    throw new Error(`no generated input schema for ${tool}: run deno run -A scripts/tool_schemas.ts`);
  }
  // Compiled at its first check, not when the tool's module loads: a session offers every built-in
  // tool and may call none (compiling all of them was ~1.2 ms of a fresh thread's start-up).
  let compiled: InputSchema<I> | undefined;
  const schema: InputSchema<I> = {
    safeParse: (input) => (compiled ??= compileInputSchema<I>(inputSchema, messages)).safeParse(input),
  };
  return { schema, inputSchema };
}

/** Any JSON object (zod's `z.record(z.string(), z.unknown())`): the input check of tools whose schema is checked elsewhere. */
export const ANY_OBJECT_INPUT: InputSchema<Record<string, unknown>> = {
  safeParse: (input: unknown) => parseWith<Record<string, unknown>>(record(), input),
};
