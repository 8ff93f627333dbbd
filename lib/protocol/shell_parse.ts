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

/** The command list being read: the commands so far and the command and word in progress. */
interface ListState {
  out: SimpleCommand[];
  cmd: SimpleCommand;
  word: string | null;
  wordHazard: boolean;
  /** The redirection operator awaiting its target word. */
  redirect: string | null;
}

/** Ends the word in progress: a redirection's target or the command's next word. */
function endWord(st: ListState): void {
  if (st.word === null) return;
  if (st.redirect !== null) {
    if (!harmlessRedirect(st.redirect, st.word, st.wordHazard)) {
      st.cmd.hazards.push(`redirection ${st.redirect} ${st.word}`);
      st.cmd.targets.push(st.word);
    }
    st.redirect = null;
  } else st.cmd.words.push(st.word);
  st.word = null;
  st.wordHazard = false;
}

/** Ends the command in progress, keeping it when it has words or hazards, and starts a fresh one. */
function endCommand(st: ListState): void {
  endWord(st);
  if (st.redirect !== null) {
    st.cmd.hazards.push(`redirection ${st.redirect} without a target`);
    st.redirect = null;
  }
  if (st.cmd.words.length > 0 || st.cmd.hazards.length > 0) st.out.push(st.cmd);
  st.cmd = fresh();
}

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
    const st: ListState = { out: [], cmd: fresh(), word: null, wordHazard: false, redirect: null };
    const src = this.#src;
    while (this.#i < src.length) {
      const c = src[this.#i]!;
      if (close !== undefined && c === close) {
        this.#i++;
        endCommand(st);
        return st.out;
      }
      if (this.#operator(st, c)) continue;
      // Part of a word.
      const part = this.#wordPart();
      st.word = (st.word ?? "") + part.text;
      if (part.hazard !== undefined) {
        st.cmd.hazards.push(part.hazard);
        st.wordHazard = true;
      }
    }
    if (close !== undefined) st.cmd.hazards.push(`missing ${close}`);
    endCommand(st);
    return st.out;
  }

  /** Consumes the blank, separator, comment, redirection or bracket at `c`; false when `c` starts a word part. */
  #operator(st: ListState, c: string): boolean {
    const src = this.#src;
    if (c === " " || c === "\t") {
      endWord(st);
      this.#i++;
      return true;
    }
    if (c === "\n" || c === ";" || c === "&" || c === "|") {
      this.#separator(st, c);
      return true;
    }
    if (c === "#" && st.word === null) {
      while (this.#i < src.length && src[this.#i] !== "\n") this.#i++;
      return true;
    }
    if ((c === "<" || c === ">") && src[this.#i + 1] === "(") {
      endWord(st);
      this.#i += 2;
      st.cmd.hazards.push(`process substitution ${c}(…)`);
      this.#sub(")");
      st.word = "";
      st.wordHazard = true;
      return true;
    }
    if (c === "<" || c === ">") {
      // A word of digits directly before the operator is its file descriptor (2>file).
      const fd = st.word !== null && /^\d+$/.test(st.word) && !st.wordHazard ? st.word : "";
      if (fd !== "") st.word = null;
      else endWord(st);
      this.#redirect(st.cmd, (op) => (st.redirect = fd + op));
      return true;
    }
    if (c === "(") {
      endWord(st);
      this.#i++;
      st.cmd.hazards.push(st.cmd.words.length === 0 ? "subshell (…)" : "unexpected (");
      this.#sub(")");
      return true;
    }
    if (c === ")" || (c === "{" || c === "}") && st.word === null && this.#wordEndsAt(this.#i + 1)) {
      st.cmd.hazards.push(c === ")" ? "unbalanced )" : "command group { … }");
      this.#i++;
      return true;
    }
    return false;
  }

  /** Consumes a newline, `;`, `&`, `|` (or their doubled forms), or an `&>` redirection. */
  #separator(st: ListState, c: string): void {
    const src = this.#src;
    if (c === "&" && src[this.#i + 1] === ">") {
      endWord(st);
      this.#redirect(st.cmd, (op) => (st.redirect = op));
      return;
    }
    if (c === ";" && src[this.#i + 1] === ";") st.cmd.hazards.push("case clause");
    endCommand(st);
    const width = (c === "&" || c === "|") && (src[this.#i + 1] === c || src[this.#i + 1] === "&") ? 2 : 1;
    st.cmd.separator = c === "\n" ? ";" : src.slice(this.#i, this.#i + width);
    this.#i += width;
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
