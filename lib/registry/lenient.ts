// Owns the lenient reading of frontmatter that is not strict YAML but that Claude Code accepts, such as
// `description: Use when: the user asks…`. Reads top-level `key: value` lines, indented continuation
// lines, `- item` lists, `[a, b]` lists and `|`/`>` blocks; every value stays text (the schema converts).
// Does not decide whether the lenient reading should be used (parse.ts does, and warns).

export type LenientRead =
  | { ok: true; fields: Record<string, unknown>; lines: Record<string, number>; duplicates: string[] }
  | { ok: false; line: number; reason: string };

interface Pending {
  key: string;
  line: number;
  kind: "scalar" | "list" | "block";
  folded: boolean;
  parts: string[];
}

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(.*)$/;
const BLOCK_HEADER = /^([|>])[+-]?$/;

/** `firstLine` is the file line of the frontmatter's first line, so failures point into the file. */
export function readLenientFrontmatter(text: string, firstLine: number): LenientRead {
  const fields: Record<string, unknown> = {};
  const lines: Record<string, number> = {};
  const duplicates: string[] = [];
  let pending: Pending | undefined;

  const finish = () => {
    if (pending === undefined) return;
    if (Object.hasOwn(fields, pending.key)) duplicates.push(pending.key);
    fields[pending.key] = valueOf(pending);
    lines[pending.key] = pending.line;
    pending = undefined;
  };

  const rows = text.split("\n");
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i] ?? "";
    const line = firstLine + i;
    const trimmed = raw.trim();
    if (trimmed === "") {
      if (pending?.kind === "block") pending.parts.push("");
      continue;
    }
    if (/^\s/.test(raw)) {
      if (pending === undefined) {
        return { ok: false, line, reason: "an indented line comes before any field" };
      }
      addContinuation(pending, trimmed);
      continue;
    }
    if (trimmed.startsWith("#")) continue;
    const match = KEY_LINE.exec(raw);
    if (match === null) return { ok: false, line, reason: "the line is not a `key: value` field" };
    finish();
    const value = (match[2] ?? "").trim();
    const block = BLOCK_HEADER.exec(value);
    pending = block === null
      ? { key: match[1] ?? "", line, kind: "scalar", folded: true, parts: value === "" ? [] : [value] }
      : { key: match[1] ?? "", line, kind: "block", folded: block[1] === ">", parts: [] };
  }
  finish();
  return { ok: true, fields, lines, duplicates };
}

function addContinuation(pending: Pending, trimmed: string): void {
  const item = /^-(\s|$)/.test(trimmed) ? trimmed.slice(1).trim() : undefined;
  if (pending.kind === "block") pending.parts.push(trimmed);
  else if (item !== undefined && (pending.kind === "list" || pending.parts.length === 0)) {
    pending.kind = "list";
    pending.parts.push(item);
  } else if (pending.kind === "list") {
    const last = pending.parts.length - 1;
    pending.parts[last] = `${pending.parts[last] ?? ""} ${trimmed}`;
  } else pending.parts.push(trimmed);
}

function valueOf(pending: Pending): unknown {
  switch (pending.kind) {
    case "list":
      return pending.parts.map(unquote);
    case "block":
      return pending.folded
        ? pending.parts.join(" ").replace(/ {2,}/g, " ").trim()
        : pending.parts.join("\n").trim();
    case "scalar": {
      if (pending.parts.length === 0) return null;
      const value = pending.parts.join(" ");
      if (value.startsWith("[") && value.endsWith("]")) {
        return value.slice(1, -1).split(",").map((s) => unquote(s.trim())).filter((s) => s !== "");
      }
      return unquote(value);
    }
  }
}

function unquote(value: string): string {
  if (value.length >= 2) {
    const q = value[0];
    if ((q === '"' || q === "'") && value.endsWith(q)) return value.slice(1, -1);
  }
  return value;
}
