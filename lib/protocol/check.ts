// Owns the small validators Blade's hot paths check untrusted JSON with instead of zod (which costs
// ~10 ms of evaluation per thread before the first request; docs/reference/performance.md): sidecar
// records, inbox files, what a Worker child sends the main thread, and (compiled from their JSON
// Schemas, lib/tools/input_check.ts) the built-in tools' inputs. A check walks a value, collects
// issues (path and message, zod's wording) and returns the value it accepts: objects keep only their
// declared fields unless `loose`. Each schema written with it is compared with its zod original by
// its test. No I/O, no dependencies.

export interface Issue {
  path: (string | number)[];
  message: string;
}

/** Checks `value` at `path`, adds what is wrong to `issues`, returns the accepted value. */
export type Check = (value: unknown, path: (string | number)[], issues: Issue[]) => unknown;

/**
 * A field that may be absent; when present it must pass `check`. `undefined` is refused (zod's
 * exactOptional) unless `undefinedOk` (zod's optional: the field is then kept as undefined).
 */
export interface Optional {
  optional: Check;
  undefinedOk?: boolean;
}

export type Parsed<T> = { success: true; data: T } | { success: false; error: { issues: Issue[] } };

/**
 * Whether objects and arrays give their fields' checks the field's own path. parseWith's first pass
 * turns it off (every field's path is an array made for it: 5,000 run summaries are 70,000 of them,
 * most of the check's time); a value with issues is checked again with it on, for their paths.
 */
let fieldPaths = true;

/** The path of field `key` of the value at `path` (the parent's own path while field paths are off). */
function fieldPath(path: (string | number)[], key: string | number): (string | number)[] {
  return fieldPaths ? [...path, key] : path;
}

/** Runs `check` on `value`: the accepted value, or every issue found. */
export function parseWith<T>(check: Check, value: unknown): Parsed<T> {
  const issues: Issue[] = [];
  const outer = fieldPaths;
  fieldPaths = false;
  let data: unknown;
  try {
    data = check(value, [], issues);
  } finally {
    fieldPaths = outer;
  }
  if (issues.length === 0) return { success: true, data: data as T };
  // Again with every field's path, for the issues' (the checks are pure: the same issues come back).
  const located: Issue[] = [];
  const saved = fieldPaths;
  fieldPaths = true;
  try {
    check(value, [], located);
  } finally {
    fieldPaths = saved;
  }
  return { success: false, error: { issues: located } };
}

export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

function expected(what: string, value: unknown, path: (string | number)[], issues: Issue[]): undefined {
  issues.push({ path, message: `Invalid input: expected ${what}, received ${typeName(value)}` });
  return undefined;
}

/** Messages that replace the default one of a bound (as a zod schema's own `error` does). */
export interface BoundMessages {
  min?: string;
  max?: string;
}

export function string(
  o: {
    min?: number;
    max?: number;
    pattern?: RegExp;
    refine?: (s: string) => boolean;
    message?: string;
    messages?: BoundMessages;
  } = {},
): Check {
  return (value, path, issues) => {
    if (typeof value !== "string") return expected("string", value, path, issues);
    if (o.min !== undefined && value.length < o.min) {
      issues.push({
        path,
        message: o.messages?.min ?? `Too small: expected string to have >=${o.min} characters`,
      });
    }
    if (o.max !== undefined && value.length > o.max) {
      issues.push({
        path,
        message: o.messages?.max ?? `Too big: expected string to have <=${o.max} characters`,
      });
    }
    if (o.pattern !== undefined && !o.pattern.test(value)) {
      issues.push({ path, message: o.message ?? `Invalid string: must match pattern ${o.pattern}` });
    } else if (o.refine !== undefined && !o.refine(value)) {
      issues.push({ path, message: o.message ?? "Invalid input" });
    }
    return value;
  };
}

/** A finite number (zod's `z.number()`), optionally a safe integer (`z.int()`) with bounds. */
export function number(
  o: { int?: boolean; min?: number; max?: number; messages?: BoundMessages } = {},
): Check {
  return (value, path, issues) => {
    if (typeof value !== "number" || !Number.isFinite(value)) return expected("number", value, path, issues);
    if (o.int === true && !Number.isSafeInteger(value)) {
      if (!Number.isInteger(value)) return expected("int", value, path, issues);
      issues.push({
        path,
        message: value > 0
          ? `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`
          : `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`,
      });
    }
    if (o.min !== undefined && value < o.min) {
      issues.push({ path, message: o.messages?.min ?? `Too small: expected number to be >=${o.min}` });
    }
    if (o.max !== undefined && value > o.max) {
      issues.push({ path, message: o.messages?.max ?? `Too big: expected number to be <=${o.max}` });
    }
    return value;
  };
}

export function boolean(): Check {
  return (value, path, issues) =>
    typeof value === "boolean" ? value : expected("boolean", value, path, issues);
}

/** One of `values` (zod's `z.enum` and `z.literal`). */
export function oneOf(values: readonly unknown[]): Check {
  const message = values.length === 1
    ? `Invalid input: expected ${JSON.stringify(values[0])}`
    : `Invalid option: expected one of ${values.map((v) => JSON.stringify(v)).join("|")}`;
  return (value, path, issues) => {
    if (!values.includes(value)) issues.push({ path, message });
    return value;
  };
}

export function array(item: Check): Check {
  return (value, path, issues) => {
    if (!Array.isArray(value)) return expected("array", value, path, issues);
    return value.map((v, i) => item(v, fieldPath(path, i), issues));
  };
}

export function nullable(check: Check): Check {
  return (value, path, issues) => value === null ? null : check(value, path, issues);
}

export function optional(check: Check, o: { undefinedOk?: boolean } = {}): Optional {
  return o.undefinedOk === true ? { optional: check, undefinedOk: true } : { optional: check };
}

/** A plain object of any fields (zod's `z.record(z.string(), z.unknown())`). */
export function record(): Check {
  return (value, path, issues) => isPlainObject(value) ? value : expected("record", value, path, issues);
}

/**
 * An object with these fields; others are dropped from the accepted value (kept with `loose`, as
 * zod's looseObject). `refine` runs once the fields passed, to check them together.
 */
export function object(
  fields: Record<string, Check | Optional>,
  o: { loose?: boolean; refine?: (value: Record<string, unknown>, add: (issue: Issue) => void) => void } = {},
): Check {
  const entries = Object.entries(fields);
  return (value, path, issues) => {
    if (!isPlainObject(value)) return expected("object", value, path, issues);
    const before = issues.length;
    const out: Record<string, unknown> = o.loose === true ? { ...value } : {};
    for (const [key, field] of entries) {
      const present = Object.hasOwn(value, key);
      if (typeof field !== "function") {
        // Present means checked: no check accepts undefined, so `{ key: undefined }` is refused
        // unless the field says it may be.
        if (!present) continue;
        const v = value[key];
        out[key] = v === undefined && field.undefinedOk === true
          ? undefined
          : field.optional(v, fieldPath(path, key), issues);
        continue;
      }
      out[key] = field(present ? value[key] : undefined, fieldPath(path, key), issues);
    }
    if (o.refine !== undefined && issues.length === before) {
      o.refine(out, (issue) => issues.push({ path: [...path, ...issue.path], message: issue.message }));
    }
    return out;
  };
}

/** The first check that passes; zod's union message when none does. */
export function union(...checks: Check[]): Check {
  return (value, path, issues) => {
    for (const check of checks) {
      const own: Issue[] = [];
      const out = check(value, path, own);
      if (own.length === 0) return out;
    }
    issues.push({ path, message: "Invalid input" });
    return value;
  };
}

/** An object told apart by the string field `key` (zod's discriminatedUnion). */
export function byField(key: string, options: Record<string, Check>): Check {
  const known = Object.keys(options);
  return (value, path, issues) => {
    if (!isPlainObject(value)) return expected("object", value, path, issues);
    const tag = value[key];
    const check = typeof tag === "string" && Object.hasOwn(options, tag) ? options[tag] : undefined;
    if (check === undefined) {
      issues.push({
        path: [...path, key],
        message: `Invalid input: expected one of ${known.map((k) => JSON.stringify(k)).join("|")}`,
      });
      return value;
    }
    return check(value, path, issues);
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
