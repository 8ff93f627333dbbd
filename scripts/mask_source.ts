// Owns the lexical masking scripts/check_layers.ts scans through: comments become spaces and string and
// template contents become `"§n"` tokens (contents kept aside), regex literals are skipped, so the
// checker's patterns only ever match code. Exact for the forms this codebase writes. Pure.

/** Replaces comments with spaces and string/template contents with `"§n"` tokens (contents kept aside). */
export function maskSource(source: string): { code: string; strings: string[] } {
  const m = new Masker(source);
  m.run();
  return { code: m.out, strings: m.strings };
}

/** One pass over a source text; `out` is the masked code so far. */
class Masker {
  readonly strings: string[] = [];
  out = "";
  #source: string;
  #i = 0;
  // Template nesting: each entry is the brace depth at which a `${` expression returns to its template.
  #templateStack: number[] = [];
  #braceDepth = 0;

  constructor(source: string) {
    this.#source = source;
  }

  run(): void {
    const source = this.#source;
    while (this.#i < source.length) {
      const c = source[this.#i]!;
      const next = source[this.#i + 1];
      if (c === "/" && next === "/") {
        while (this.#i < source.length && source[this.#i] !== "\n") this.#i++;
      } else if (c === "/" && next === "*") {
        const end = source.indexOf("*/", this.#i + 2);
        const stop = end === -1 ? source.length : end + 2;
        this.out += source.slice(this.#i, stop).replace(/[^\n]/g, " ");
        this.#i = stop;
      } else if (c === "'" || c === '"') {
        this.#quoted(c);
      } else if (c === "`") {
        this.#i++;
        this.#readTemplate();
      } else if (c === "{") {
        this.#braceDepth++;
        this.out += c;
        this.#i++;
      } else if (c === "}") {
        this.#closeBrace();
      } else if (c === "/" && isRegexStart(this.out)) {
        this.#regex();
      } else {
        this.out += c;
        this.#i++;
      }
    }
  }

  /** A quoted string starting at `quote`: its contents go aside, a token takes their place. */
  #quoted(quote: string): void {
    const source = this.#source;
    let text = "";
    this.#i++;
    while (this.#i < source.length && source[this.#i] !== quote && source[this.#i] !== "\n") {
      if (source[this.#i] === "\\") {
        text += source.slice(this.#i, this.#i + 2);
        this.#i += 2;
      } else text += source[this.#i++];
    }
    this.#i++;
    this.strings.push(text);
    this.out += `"§${this.strings.length - 1}"`;
  }

  /** A `}`: either code, or the end of a `${` expression that returns to its template text. */
  #closeBrace(): void {
    this.#braceDepth--;
    this.#i++;
    const stack = this.#templateStack;
    if (stack.length > 0 && stack[stack.length - 1] === this.#braceDepth) {
      stack.pop();
      this.out += ")+";
      this.#readTemplate();
    } else this.out += "}";
  }

  /** A regex literal: skip it so quotes inside it are not read as strings. */
  #regex(): void {
    const source = this.#source;
    let inClass = false;
    this.out += "/";
    this.#i++;
    while (this.#i < source.length && source[this.#i] !== "\n") {
      const r = source[this.#i]!;
      if (r === "\\") {
        this.#i += 2;
        this.out += "  ";
        continue;
      }
      if (r === "[") inClass = true;
      else if (r === "]") inClass = false;
      else if (r === "/" && !inClass) break;
      this.out += " ";
      this.#i++;
    }
    this.out += "/";
    this.#i++;
  }

  #readTemplate(): void {
    // At a position inside template text; reads up to the closing backtick or a `${`.
    const source = this.#source;
    let text = "";
    while (this.#i < source.length) {
      const c = source[this.#i]!;
      if (c === "\\") {
        text += source.slice(this.#i, this.#i + 2);
        this.#i += 2;
      } else if (c === "`") {
        this.#i++;
        break;
      } else if (c === "$" && source[this.#i + 1] === "{") {
        this.#i += 2;
        this.#templateStack.push(this.#braceDepth);
        this.#braceDepth++;
        this.strings.push(text);
        this.out += `"§${this.strings.length - 1}"+(`;
        return;
      } else {
        text += c === "\n" ? "\n" : c;
        this.#i++;
      }
    }
    this.strings.push(text);
    this.out += `"§${this.strings.length - 1}"` + "\n".repeat(text.split("\n").length - 1);
  }
}

/** A `/` starts a regex when the code before it cannot end an expression. */
function isRegexStart(before: string): boolean {
  const trimmed = before.trimEnd();
  if (trimmed === "") return true;
  const last = trimmed[trimmed.length - 1]!;
  if ("([{,;:=!&|?+-*%<>~^".includes(last)) return true;
  return /\b(return|typeof|case|in|of|delete|void|throw|new)$/.test(trimmed);
}
