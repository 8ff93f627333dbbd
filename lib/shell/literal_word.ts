// Owns the one question rules ask of a word's source text: is it a literal, and what is its value
// after quote removal? A second, strict reading on top of the grammar's (bash_parser.ts): a word is a
// literal only when its whole text is plain characters, backslash escapes, single-quoted text and
// double-quoted text without `$`, backticks or line continuations. Anything bash could expand
// (parameters, commands, arithmetic, globs, braces, a leading tilde, `$'…'`, `$"…"`) makes it not one,
// so a grammar mistake can never turn an expansion into something a rule approves. Pure.

/** Characters bash takes literally outside quotes (a leading `~` and `~` after `=` or `:` expand). */
const PLAIN = /[A-Za-z0-9_@%+=:,./\-^!\]#]/;
const LETTER = /[\p{L}\p{N}]/u;

/** The value of a literal word, or undefined when the text may expand to something else. */
export function literalValue(text: string): string | undefined {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      out += text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const quoted = doubleQuoted(text, i + 1);
      if (quoted === undefined) return undefined;
      out += quoted.value;
      i = quoted.end;
    } else if (c === "\\") {
      const next = text[i + 1];
      if (next === undefined || next === "\n") return undefined;
      out += next;
      i += 2;
    } else if (c === "~") {
      if (i === 0 || text[i - 1] === "=" || text[i - 1] === ":") return undefined;
      out += c;
      i++;
    } else if (c === "#" && i === 0) {
      return undefined;
    } else if (PLAIN.test(c) || (c.charCodeAt(0) > 127 && LETTER.test(c))) {
      out += c;
      i++;
    } else return undefined;
  }
  return out;
}

/** Text inside `"…"` from `start` up to its closing quote, or undefined when it may expand. */
function doubleQuoted(text: string, start: number): { value: string; end: number } | undefined {
  let value = "";
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return { value, end: i + 1 };
    if (c === "$" || c === "`") return undefined;
    if (c === "\\") {
      const next = text[i + 1];
      if (next === undefined || next === "\n") return undefined;
      if ('"\\$`'.includes(next)) {
        value += next;
        i++;
        continue;
      }
    }
    value += c;
  }
  return undefined;
}
