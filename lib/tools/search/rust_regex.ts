// Owns reading a Grep pattern the way ripgrep does (Rust's regex syntax) and writing the JavaScript
// RegExp the built-in search runs (docs/reference/search.md, "Grep"): Unicode classes (`\w`, `\d`, `\s` and
// `.` are Unicode in Rust, ASCII in JavaScript), `(?i)`/`(?s)`/`(?m)`/`(?x)` flags, `(?P<name>…)`,
// `\A`/`\z`, POSIX classes, `\pL`, `\x{…}`, escapes of any punctuation; and, outside multiline mode,
// nothing that matches a newline (rg matches line by line). What rg refuses (look-around,
// back-references, a literal newline outside multiline mode) is refused with rg's reason. Also the
// literal every match must contain, for the search's prefilter. Pure, no I/O.

import { GrepRefusal } from "./grep_query.ts";
import { byteFinder } from "./byte_literal.ts";

export interface CompiledPattern {
  /** Global, Unicode sets. */
  regex: RegExp;
  /** Finds a string every match contains (case-insensitively under `ignoreCase`); undefined when none is known. */
  prefilter?: (text: string) => boolean;
  /** The same test on a file's raw bytes (byte_literal.ts), when bytes can tell; never under `ignoreCase`. */
  bytePrefilter?: (bytes: Uint8Array) => boolean;
}

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** rg's refusal of a newline in a pattern outside multiline mode, word for word. */
const NEWLINE = `the literal '"\\n"' is not allowed in a regex`;

const WORD = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}";
/** Class bodies of Rust's Perl classes, Unicode-aware as Rust's are. */
const PERL: Record<string, { body: string; negated: boolean }> = {
  d: { body: "\\p{Nd}", negated: false },
  D: { body: "\\p{Nd}", negated: true },
  w: { body: WORD, negated: false },
  W: { body: WORD, negated: true },
  s: { body: "\\p{White_Space}", negated: false },
  S: { body: "\\p{White_Space}", negated: true },
};

/** Characters that must be escaped to stand for themselves in a Unicode RegExp (outside a class). */
const SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);

function hex(code: number): string {
  return `\\u{${code.toString(16)}}`;
}

/** A literal character as RegExp source. */
function literalChar(c: string): string {
  return SYNTAX.has(c) ? `\\${c}` : c === "\n" ? "\\n" : c;
}

interface Flags {
  i: boolean;
  s: boolean;
  m: boolean;
  x: boolean;
}

class Translator {
  #p: string;
  #i = 0;
  #multiline: boolean;
  /** Literal runs seen at the top level (a match contains each); reset by alternation. */
  #runs: string[] = [];
  #run = "";
  #topAlternation = false;
  /** An inline `(?i)` made part of the pattern case-insensitive: no literal can be trusted. */
  #inlineCase = false;

  constructor(pattern: string, multiline: boolean) {
    this.#p = pattern;
    this.#multiline = multiline;
  }

  translate(flags: Flags): { source: string; literal: string } {
    const source = this.#sequence(flags, 0);
    if (this.#i < this.#p.length) throw this.#error("unopened group");
    this.#endRun();
    const literal = this.#topAlternation || this.#inlineCase
      ? ""
      : this.#runs.reduce((a, b) => (b.length > a.length ? b : a), "");
    return { source, literal };
  }

  #error(what: string): GrepRefusal {
    return new GrepRefusal(`regex parse error: ${what}`);
  }

  #endRun(): void {
    if (this.#run !== "") this.#runs.push(this.#run);
    this.#run = "";
  }

  /** Alternatives up to a `)` (depth > 0) or the end. */
  #sequence(flags: Flags, depth: number): string {
    let out = "";
    const local = { ...flags };
    while (this.#i < this.#p.length) {
      const c = this.#p[this.#i]!;
      if (c === ")") {
        if (depth === 0) throw this.#error("unopened group");
        return out;
      }
      if (c === "|") {
        this.#i++;
        if (depth === 0) this.#topAlternation = true;
        this.#endRun();
        out += "|";
        continue;
      }
      const atom = this.#atom(local, depth);
      if (atom === null) continue;
      out += this.#quantified(atom, depth);
    }
    if (depth > 0) throw this.#error("unclosed group");
    return out;
  }

  /** One atom as source, or null for something that produced none (a flag group, white space in x mode). */
  #atom(flags: Flags, depth: number): { source: string; literal?: string } | null {
    const p = this.#p;
    const c = p[this.#i]!;
    if (flags.x && /\s/.test(c)) {
      this.#i++;
      return null;
    }
    if (flags.x && c === "#") {
      while (this.#i < p.length && p[this.#i] !== "\n") this.#i++;
      return null;
    }
    this.#i++;
    switch (c) {
      case ".":
        return { source: flags.s || this.#multiline && flags.s ? "[^]" : "[^\\n]" };
      case "^":
        return { source: flags.m ? "(?<=^|\\n)" : "(?<![^])" };
      case "$":
        return { source: flags.m ? "(?=\\n|$)" : "(?![^])" };
      case "[":
        return { source: this.#class(flags) };
      case "(":
        return this.#group(flags, depth);
      case "\\":
        return this.#escape(flags, false);
      case "\n":
        if (!this.#multiline) {
          throw new GrepRefusal(NEWLINE);
        }
        return { source: "\\n", literal: "\n" };
      default:
        if (c === "*" || c === "+" || c === "?") throw this.#error("repetition operator missing expression");
        return this.#char(c, flags);
    }
  }

  #char(c: string, flags: Flags): { source: string; literal: string } {
    const code = c.codePointAt(0)!;
    const char = String.fromCodePoint(code);
    this.#i += char.length - 1;
    if (flags.i && char.toLowerCase() !== char.toUpperCase()) {
      return { source: `(?i:${literalChar(char)})`, literal: char.toLowerCase() };
    }
    return { source: literalChar(char), literal: char };
  }

  #quantified(atom: { source: string; literal?: string }, depth: number): string {
    const p = this.#p;
    let q = "";
    const c = p[this.#i];
    if (c === "*" || c === "+" || c === "?") {
      q = c;
      this.#i++;
    } else if (c === "{") {
      const m = /^\{(\d*)(,?)(\d*)\}/.exec(p.slice(this.#i));
      if (m !== null && (m[1] !== "" || m[3] !== "")) {
        q = `{${m[1] === "" ? "0" : m[1]}${m[2]}${m[3]}}`;
        this.#i += m[0].length;
      }
    }
    if (q !== "" && p[this.#i] === "?") {
      q += "?";
      this.#i++;
    }
    if (depth === 0) {
      const optional = q.startsWith("*") || q.startsWith("?") || q.startsWith("{0");
      if (q === "" && atom.literal !== undefined) this.#run += atom.literal;
      else {
        this.#endRun();
        if (!optional && atom.literal !== undefined) this.#run = atom.literal;
        if (q !== "") this.#endRun();
      }
    }
    return atom.source + q;
  }

  #group(flags: Flags, depth: number): { source: string } | null {
    const p = this.#p;
    if (p[this.#i] === "?") {
      const rest = p.slice(this.#i + 1);
      if (/^(=|!|<=|<!)/.test(rest)) {
        throw this.#error("look-around, including look-ahead and look-behind, is not supported");
      }
      const named = /^P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
      if (named !== null) {
        this.#i += 1 + named[0].length;
        return this.#body(`(?<${named[1]}>`, { flags, depth });
      }
      const flagged = /^([imsxuU-]*)(:|\))/.exec(rest);
      if (flagged === null) throw this.#error("unrecognized flag");
      this.#i += 1 + flagged[0].length;
      const next = { ...flags };
      let on = true;
      for (const f of flagged[1]!) {
        if (f === "-") on = false;
        else if (f === "i" || f === "s" || f === "m" || f === "x") next[f] = on;
        if (f === "i" && on) this.#inlineCase = true;
      }
      if (flagged[2] === ")") {
        Object.assign(flags, next); // applies to the rest of the enclosing group
        return null;
      }
      return this.#body("(?:", { flags: next, depth });
    }
    return this.#body("(", { flags, depth });
  }

  #body(open: string, at: { flags: Flags; depth: number }): { source: string } {
    const { flags, depth } = at;
    if (depth === 0) this.#endRun();
    const inner = this.#sequence({ ...flags }, depth + 1);
    this.#i++; // the ")"
    return { source: `${open}${inner})` };
  }

  /** An escape outside (inClass false) or inside a class: its source, and the literal when it is one. */
  #escape(flags: Flags, inClass: boolean): { source: string; literal?: string } {
    const p = this.#p;
    const c = p[this.#i];
    if (c === undefined) throw this.#error("incomplete escape sequence");
    this.#i++;
    const perl = PERL[c];
    if (perl !== undefined) {
      if (inClass) return { source: perl.negated ? `[^${perl.body}]` : perl.body };
      return { source: this.#lineClass(perl.body, perl.negated) };
    }
    if (/[0-9]/.test(c) && c !== "0") throw this.#error("backreferences are not supported");
    switch (c) {
      case "A":
        return { source: "(?<![^])" };
      case "z":
        return { source: "(?![^])" };
      case "b":
        return { source: inClass ? "\\x08" : "\\b" };
      case "B":
        return { source: "\\B" };
      case "n":
        if (!this.#multiline && !inClass) {
          throw new GrepRefusal(NEWLINE);
        }
        return { source: "\\n", literal: "\n" };
      case "t":
        return { source: "\\t", literal: "\t" };
      case "r":
        return { source: "\\r", literal: "\r" };
      case "f":
        return { source: "\\f", literal: "\f" };
      case "v":
        return { source: "\\v", literal: "\v" };
      case "a":
        return { source: "\\x07", literal: "\x07" };
      case "x": {
        const m = /^\{([0-9A-Fa-f]{1,6})\}|^([0-9A-Fa-f]{2})/.exec(p.slice(this.#i));
        if (m === null) throw this.#error("invalid hexadecimal escape");
        this.#i += m[0].length;
        const code = parseInt(m[1] ?? m[2]!, 16);
        const ch = String.fromCodePoint(code);
        return { source: hex(code), literal: flags.i ? ch.toLowerCase() : ch };
      }
      case "p":
      case "P": {
        const m = /^\{([^}]*)\}|^([A-Za-z])/.exec(p.slice(this.#i));
        if (m === null) throw this.#error("invalid Unicode class");
        this.#i += m[0].length;
        const name = (m[1] ?? m[2]!).replace(/\s/g, "").replace(/^(?:sc|script)[=:]/i, "Script=");
        const body = `\\p{${name}}`;
        if (inClass) return { source: c === "P" ? `\\P{${name}}` : body };
        return { source: this.#lineClass(body, c === "P") };
      }
      default:
        if (/[A-Za-z]/.test(c)) throw this.#error(`unrecognized escape sequence \\${c}`);
        return this.#char(c, flags);
    }
  }

  /** A class of `body` that, outside multiline mode, never matches a newline (rg matches line by line). */
  #lineClass(body: string, negated: boolean): string {
    if (this.#multiline) return negated ? `[^${body}]` : `[${body}]`;
    return negated ? `[^${body}\\n]` : `[[${body}]--[\\n]]`;
  }

  /** A bracketed class (the `[` read): Unicode, with nested classes and `&&`/`--` set operations. */
  #class(flags: Flags): string {
    const p = this.#p;
    let negated = false;
    if (p[this.#i] === "^") {
      negated = true;
      this.#i++;
    }
    let body = "";
    let first = true;
    while (this.#i < p.length) {
      const c = p[this.#i]!;
      if (c === "]" && !first) {
        this.#i++;
        const source = this.#lineClass(body, negated);
        return flags.i ? `(?i:${source})` : source;
      }
      first = false;
      if (c === "[" && p[this.#i + 1] === ":") {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(this.#i));
        if (m !== null && POSIX[m[2]!] !== undefined) {
          this.#i += m[0].length;
          body += m[1] === "^" ? `[^${POSIX[m[2]!]}]` : POSIX[m[2]!];
          continue;
        }
      }
      if (c === "[") {
        this.#i++;
        body += this.#class({ ...flags, i: false });
        continue;
      }
      if ((c === "&" || c === "-" || c === "~") && p[this.#i + 1] === c && c !== "-") {
        if (c === "~") {
          throw this.#error("class symmetric difference is not supported by the built-in search");
        }
        body += "&&";
        this.#i += 2;
        continue;
      }
      if (c === "\\") {
        this.#i++;
        body += this.#escape({ ...flags, i: false }, true).source;
        continue;
      }
      if (c === "-" && body !== "" && p[this.#i + 1] !== "]") {
        body += "-";
        this.#i++;
        continue;
      }
      const ch = String.fromCodePoint(p.codePointAt(this.#i)!);
      this.#i += ch.length;
      body += SYNTAX.has(ch) || ch === "-" || "&!#%,:;<=>@`~".includes(ch) ? `\\${ch}` : ch;
    }
    throw this.#error("unclosed character class");
  }
}

/**
 * The pattern as a RegExp over a whole file's text (global, Unicode sets), with ripgrep's meaning:
 * rg -i is `ignoreCase`, rg -U --multiline-dotall is `multiline`. Throws GrepRefusal with rg's reason.
 */
export function compileRustRegex(
  pattern: string,
  options: { ignoreCase: boolean; multiline: boolean },
): CompiledPattern {
  const translator = new Translator(pattern, options.multiline);
  const flags: Flags = { i: options.ignoreCase, s: options.multiline, m: true, x: false };
  const { source, literal } = translator.translate(flags);
  let regex: RegExp;
  try {
    regex = new RegExp(source, "gv");
  } catch (e) {
    throw new GrepRefusal(`regex parse error: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (literal === "") return { regex };
  if (!options.ignoreCase) {
    const bytePrefilter = byteFinder(literal);
    const prefilter = (text: string) => text.includes(literal);
    return bytePrefilter === undefined ? { regex, prefilter } : { regex, prefilter, bytePrefilter };
  }
  const folded = new RegExp(literal.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"), "iu");
  return { regex, prefilter: (text) => folded.test(text) };
}
