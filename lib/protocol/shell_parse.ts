// Owns reading a shell command line the way a POSIX shell splits it, for permission rules
// (docs/guides/permissions.md): simple commands separated by `;`, `&&`, `||`, `|`, `|&`, `&` and
// newlines; words after quote removal; and every construct that runs or writes something a prefix
// rule cannot see (command and process substitution, backticks, subshells and groups, redirections
// to files, here-documents, unterminated quotes). Commands nested in substitutions and subshells are
// collected too, so a deny rule sees them. Pure; it never runs anything.

/** One simple command: its words (quotes removed) and what makes it unfit for a prefix rule. */
export interface SimpleCommand {
  words: string[];
  /** Why no prefix rule may approve this command (empty when none). */
  hazards: string[];
  /** The files its redirections write or read (`> x`, `2>>y`, `< z`), as written; not /dev/null or fds. */
  targets: string[];
  /** The operator before this command (`&&`, `||`, `|`, `|&`, `&`, `;`; a newline reads as `;`); absent for the first. */
  separator?: string;
}

export interface ShellParse {
  /** The top-level simple commands, in order. */
  commands: SimpleCommand[];
  /** Commands inside substitutions, subshells and groups (a deny rule must see them as well). */
  nested: SimpleCommand[];
}

/** Redirection targets that write or read nothing of the user's. */
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

const MAX_DEPTH = 16;

class Parser {
  #src: string;
  #i = 0;
  #depth: number;
  nested: SimpleCommand[] = [];

  constructor(src: string, depth: number) {
    this.#src = src;
    this.#depth = depth;
  }

  /** Parses simple commands until `close` (or the end); returns them with the index after `close`. */
  list(close: string | undefined): SimpleCommand[] {
    const out: SimpleCommand[] = [];
    let cmd = fresh();
    let word: string | null = null;
    let wordHazard = false;
    let redirect: string | null = null; // the operator awaiting its target word
    const endWord = () => {
      if (word === null) return;
      if (redirect !== null) {
        if (!harmlessRedirect(redirect, word, wordHazard)) {
          cmd.hazards.push(`redirection ${redirect} ${word}`);
          cmd.targets.push(word);
        }
        redirect = null;
      } else cmd.words.push(word);
      word = null;
      wordHazard = false;
    };
    const endCommand = () => {
      endWord();
      if (redirect !== null) {
        cmd.hazards.push(`redirection ${redirect} without a target`);
        redirect = null;
      }
      if (cmd.words.length > 0 || cmd.hazards.length > 0) out.push(cmd);
      cmd = fresh();
    };
    const src = this.#src;
    while (this.#i < src.length) {
      const c = src[this.#i]!;
      if (close !== undefined && c === close) {
        this.#i++;
        endCommand();
        return out;
      }
      if (c === " " || c === "\t") {
        endWord();
        this.#i++;
        continue;
      }
      if (c === "\n" || c === ";" || c === "&" || c === "|") {
        if (c === "&" && src[this.#i + 1] === ">") {
          endWord();
          this.#redirect(cmd, (op) => (redirect = op));
          continue;
        }
        if (c === ";" && src[this.#i + 1] === ";") cmd.hazards.push("case clause");
        endCommand();
        const width = (c === "&" || c === "|") && (src[this.#i + 1] === c || src[this.#i + 1] === "&")
          ? 2
          : 1;
        cmd.separator = c === "\n" ? ";" : src.slice(this.#i, this.#i + width);
        this.#i += width;
        continue;
      }
      if (c === "#" && word === null) {
        while (this.#i < src.length && src[this.#i] !== "\n") this.#i++;
        continue;
      }
      if ((c === "<" || c === ">") && src[this.#i + 1] === "(") {
        endWord();
        this.#i += 2;
        cmd.hazards.push(`process substitution ${c}(…)`);
        this.#sub(")");
        word = "";
        wordHazard = true;
        continue;
      }
      if (c === "<" || c === ">") {
        // A word of digits directly before the operator is its file descriptor (2>file).
        const fd = word !== null && /^\d+$/.test(word) && !wordHazard ? word : "";
        if (fd !== "") word = null;
        else endWord();
        this.#redirect(cmd, (op) => (redirect = fd + op));
        continue;
      }
      if (c === "(") {
        endWord();
        this.#i++;
        cmd.hazards.push(cmd.words.length === 0 ? "subshell (…)" : "unexpected (");
        this.#sub(")");
        continue;
      }
      if (c === ")" || (c === "{" || c === "}") && word === null && this.#wordEndsAt(this.#i + 1)) {
        cmd.hazards.push(c === ")" ? "unbalanced )" : "command group { … }");
        this.#i++;
        continue;
      }
      // Part of a word.
      const part = this.#wordPart();
      word = (word ?? "") + part.text;
      if (part.hazard !== undefined) {
        cmd.hazards.push(part.hazard);
        wordHazard = true;
      }
    }
    if (close !== undefined) cmd.hazards.push(`missing ${close}`);
    endCommand();
    return out;
  }

  #wordEndsAt(i: number): boolean {
    const c = this.#src[i];
    return c === undefined || /[\s;&|<>()]/.test(c);
  }

  #redirect(cmd: SimpleCommand, set: (op: string) => void): void {
    const src = this.#src;
    const m = /^(?:<<<|<<-?|&>>|&>|>>|>\||>&|<&|<>|>|<)/.exec(src.slice(this.#i))!;
    this.#i += m[0].length;
    if (m[0].startsWith("<<") && m[0] !== "<<<") cmd.hazards.push("here-document");
    set(m[0]);
  }

  /** Parses a nested command list up to `close`, keeping its commands as nested. */
  #sub(close: string): void {
    if (this.#depth >= MAX_DEPTH) {
      this.#i = this.#src.length;
      return;
    }
    const inner = new Parser(this.#src, this.#depth + 1);
    inner.#i = this.#i;
    const commands = inner.list(close);
    this.#i = inner.#i;
    this.nested.push(...commands, ...inner.nested);
  }

  /** Reads one piece of a word: a quoted string, an escape, an expansion or a plain character. */
  #wordPart(): { text: string; hazard?: string } {
    const src = this.#src;
    const c = src[this.#i]!;
    if (c === "\\") {
      const next = src[this.#i + 1];
      this.#i += 2;
      if (next === undefined) return { text: "" };
      return { text: next === "\n" ? "" : next };
    }
    if (c === "'") {
      const end = src.indexOf("'", this.#i + 1);
      if (end < 0) {
        const text = src.slice(this.#i + 1);
        this.#i = src.length;
        return { text, hazard: "unterminated quote" };
      }
      const text = src.slice(this.#i + 1, end);
      this.#i = end + 1;
      return { text };
    }
    if (c === '"') return this.#doubleQuoted();
    if (c === "$" || c === "`") return this.#expansion() ?? { text: src[this.#i++]! };
    this.#i++;
    return { text: c };
  }

  #doubleQuoted(): { text: string; hazard?: string } {
    const src = this.#src;
    this.#i++;
    let text = "";
    let hazard: string | undefined;
    while (this.#i < src.length) {
      const c = src[this.#i]!;
      if (c === '"') {
        this.#i++;
        return hazard === undefined ? { text } : { text, hazard };
      }
      if (c === "\\" && this.#i + 1 < src.length && '$`"\\\n'.includes(src[this.#i + 1]!)) {
        text += src[this.#i + 1] === "\n" ? "" : src[this.#i + 1];
        this.#i += 2;
        continue;
      }
      if (c === "$" || c === "`") {
        const part = this.#expansion();
        if (part !== undefined) {
          text += part.text;
          hazard ??= part.hazard;
          continue;
        }
      }
      text += c;
      this.#i++;
    }
    return { text, hazard: hazard ?? "unterminated quote" };
  }

  /** `$(…)`, `$((…))`, backticks and `${…}`; undefined for a plain `$`. */
  #expansion(): { text: string; hazard?: string } | undefined {
    const src = this.#src;
    const start = this.#i;
    if (src[start] === "`") {
      let j = start + 1;
      let body = "";
      while (j < src.length && src[j] !== "`") {
        if (src[j] === "\\" && j + 1 < src.length) {
          body += src[j + 1];
          j += 2;
        } else body += src[j++];
      }
      this.#i = Math.min(j + 1, src.length);
      const inner = new Parser(body, this.#depth + 1);
      this.nested.push(...inner.list(undefined), ...inner.nested);
      return { text: src.slice(start, this.#i), hazard: "command substitution `…`" };
    }
    if (src.startsWith("$((", start)) {
      this.#i += 3;
      this.#sub(")");
      if (src[this.#i] === ")") this.#i++;
      return { text: src.slice(start, this.#i), hazard: "arithmetic expansion $((…))" };
    }
    if (src.startsWith("$(", start)) {
      this.#i += 2;
      this.#sub(")");
      return { text: src.slice(start, this.#i), hazard: "command substitution $(…)" };
    }
    if (src.startsWith("${", start)) {
      let depth = 0;
      let j = start + 1;
      let hazard: string | undefined;
      for (; j < src.length; j++) {
        if (src[j] === "{") depth++;
        else if (src[j] === "}" && --depth === 0) break;
        else if (src[j] === "$" && src[j + 1] === "(" || src[j] === "`") {
          hazard = "command substitution in ${…}";
        }
      }
      this.#i = Math.min(j + 1, src.length);
      if (hazard !== undefined) {
        const inner = new Parser(src.slice(start + 2, j), this.#depth + 1);
        this.nested.push(...inner.list(undefined), ...inner.nested);
      }
      const text = src.slice(start, this.#i);
      return hazard === undefined ? { text } : { text, hazard };
    }
    return undefined;
  }
}

/** fd duplication (`2>&1`, `>&-`), a here-string, or /dev/null and friends. */
function harmlessRedirect(op: string, target: string, hazard: boolean): boolean {
  if (hazard) return false;
  if (op.endsWith("&")) return /^(?:\d+-?|-)$/.test(target);
  return op === "<<<" || HARMLESS_TARGETS.has(target);
}

function fresh(): SimpleCommand {
  return { words: [], hazards: [], targets: [] };
}

/** Splits a command line into simple commands (and the commands nested inside it). */
export function parseShell(command: string): ShellParse {
  const parser = new Parser(command, 0);
  const commands = parser.list(undefined);
  return { commands, nested: parser.nested };
}

/** Splits a rule's command text into words the same way (quotes removed, no operators expected). */
export function shellWords(text: string): string[] {
  return parseShell(text).commands.flatMap((c) => c.words);
}
