// Owns the fast path for the frontmatter most agent files have: one `key: value` per line with plain or
// simply quoted scalars, `[a, b]` lists and `- item` lists. It returns exactly what the YAML library
// would (simple_yaml_test.ts checks this), so the YAML library is loaded only for richer frontmatter.
// It declines (returns undefined) whenever it is not certain. Does not report errors: YAML does that.

export interface SimpleFields {
  values: Record<string, unknown>;
  /** File line of each key. */
  lines: Record<string, number>;
}

type Scalar = string | number | boolean;

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const ITEM_LINE = /^( *)-(?: +(.*))?$/;
/** Characters a plain scalar may not start with (YAML indicators and white space). */
const PLAIN_START = /^[^\-?:,[\]{}#&*!|>'"%@`\s]/;
/** Numbers, booleans and nulls follow YAML's typing rules; only the simplest forms are typed here. */
const LOOKS_TYPED = /^([-+.0-9]|(true|false|null|~)$)/i;
/** Control characters, tabs and the line separators YAML versions disagree on. */
// deno-lint-ignore no-control-regex
const UNSURE_CHARS = /[\u0000-\u0009\u000b-\u001f\u007f\u0085\u2028\u2029\ufeff]/;

/** `firstLine` is the file line of the frontmatter's first line. */
export function readSimpleFrontmatter(text: string, firstLine: number): SimpleFields | undefined {
  if (UNSURE_CHARS.test(text)) return undefined;
  const values: Record<string, unknown> = {};
  const lines: Record<string, number> = {};
  let listKey: string | undefined;
  let listIndent: number | undefined;
  const rows = text.split("\n");
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] ?? "";
    if (row.trim() === "" || row.startsWith("#")) continue;
    const item = ITEM_LINE.exec(row);
    if (item !== null) {
      const indent = item[1]?.length ?? 0;
      if (listKey === undefined || (listIndent !== undefined && indent !== listIndent)) return undefined;
      listIndent = indent;
      const value = scalar(item[2] ?? "", false);
      if (value === undefined) return undefined;
      const list = values[listKey];
      if (Array.isArray(list)) list.push(value);
      else values[listKey] = [value];
      continue;
    }
    const match = KEY_LINE.exec(row);
    const key = match?.[1];
    if (key === undefined || Object.hasOwn(values, key) || LOOKS_TYPED.test(key)) return undefined;
    const rest = (match?.[2] ?? "").trimEnd();
    const value = rest === "" ? null : rest.startsWith("[") ? flowList(rest) : scalar(rest, false);
    if (value === undefined) return undefined;
    values[key] = value;
    lines[key] = firstLine + i;
    listKey = rest === "" ? key : undefined;
    listIndent = undefined;
  }
  return { values, lines };
}

/** A plain, single-quoted or backslash-free double-quoted scalar; undefined when unsure. */
function scalar(raw: string, inFlow: boolean): Scalar | undefined {
  const text = raw.trimEnd();
  if (text.startsWith("'")) {
    const inner = text.slice(1, -1);
    if (text.length < 2 || !text.endsWith("'") || inner.replaceAll("''", "").includes("'")) return undefined;
    return inner.replaceAll("''", "'");
  }
  if (text.startsWith('"')) {
    const inner = text.slice(1, -1);
    if (text.length < 2 || !text.endsWith('"') || /["\\]/.test(inner)) return undefined;
    return inner;
  }
  if (!PLAIN_START.test(text) || text.includes(": ") || text.includes(" #") || text.endsWith(":")) {
    return undefined;
  }
  if (inFlow && /[,[\]{}:#'"]/.test(text)) return undefined;
  if (!LOOKS_TYPED.test(text)) return text;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[1-9][0-9]{0,14}$/.test(text)) return Number(text);
  return undefined;
}

function flowList(text: string): Scalar[] | undefined {
  if (!text.endsWith("]")) return undefined;
  const inner = text.slice(1, -1);
  if (inner.trim() === "") return [];
  const items: Scalar[] = [];
  for (const part of inner.split(",")) {
    const value = part.trim() === "" ? undefined : scalar(part.trim(), true);
    if (value === undefined) return undefined;
    items.push(value);
  }
  return items;
}
