// Owns finding the `@path` imports of a memory file's text (docs/guides/memory.md): an `@` at the start
// of a line or after white space, followed by a path, outside fenced code blocks and inline code spans.
// Pure: resolving, reading and the allowed roots are load_memory.ts's.

/** `@path` at the start or after white space; `\ ` keeps a space inside the path. */
const IMPORT = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
/** Trailing punctuation that ends a sentence rather than a path (`see @a.md.`). */
const TRAILING = /[.,;:!?)\]}'"]+$/;

/** The import paths in `text`, in order, without duplicates (`~/x`, `./x`, `x`, `/abs/x`). */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  let fence: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const opening = FENCE.exec(line);
    if (opening !== null) {
      const marker = opening[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    for (const match of withoutCodeSpans(line).matchAll(IMPORT)) {
      const path = match[1]!.replace(TRAILING, "").replaceAll("\\ ", " ");
      if (looksLikePath(path) && !found.includes(path)) found.push(path);
    }
  }
  return found;
}

/** The line with its inline code spans blanked out (`@x` inside backticks is not an import). */
function withoutCodeSpans(line: string): string {
  return line.replace(/(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (span) => " ".repeat(span.length));
}

/** A path, not an e-mail handle or decoration: at least one character that can name a file. */
function looksLikePath(path: string): boolean {
  if (path === "" || path === "~" || path.startsWith("@")) return false;
  return /^(~\/|\.{1,2}\/|\/|[\w.-])/.test(path);
}
