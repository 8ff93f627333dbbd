// Owns a strict split of a shell command line into simple commands for the auditors' recogniser
// (commands.ts): words after quote removal, the separator before each command, and "hazards" for
// anything whose effect the words do not show (substitution, expansion, subshells, redirections to
// files). Deliberately narrow: what it does not understand is a hazard, so it can only refuse more.
// Pure. The permission rules' parser (issue 11) reads the same grammar; once it is on main this file
// should give way to it.

export interface SplitCommand {
  words: string[];
  hazards: string[];
  /** The operator before this command (`&&`, `||`, `;`, `|`, newline as `;`), null for the first. */
  separator: string | null;
}

/** Redirections that write nothing anyone keeps. */
const HARMLESS_REDIRECTS = /^(?:[12]?>&[12]|[12]?>\/dev\/null|&>\/dev\/null|<\/dev\/null)$/;

export function splitShell(command: string): SplitCommand[] {
  const out: SplitCommand[] = [];
  let cur: SplitCommand = { words: [], hazards: [], separator: null };
  let word: string | null = null;
  const endWord = () => {
    if (word === null) return;
    cur.words.push(word);
    word = null;
  };
  const endCommand = (separator: string) => {
    endWord();
    if (cur.words.length > 0 || cur.hazards.length > 0) out.push(cur);
    else if (out.length > 0 || separator !== ";") cur.hazards.push(`empty command before ${separator}`);
    cur = { words: [], hazards: [], separator };
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    const rest = command.slice(i);
    if (c === " " || c === "\t") {
      endWord();
      continue;
    }
    if (c === "\\" && command[i + 1] === "\n") {
      i++;
      continue;
    }
    const op = /^(?:&&|\|\||;|\||\n)/.exec(rest)?.[0];
    if (op !== undefined) {
      endCommand(op === "\n" ? ";" : op);
      i += op.length - 1;
      continue;
    }
    const redirect = /^(?:[12]?>&[12]|[12]?>\s*\/dev\/null|&>\s*\/dev\/null|<\s*\/dev\/null)(?=$|[\s;&|])/
      .exec(rest)?.[0];
    if (redirect !== undefined && word === null && HARMLESS_REDIRECTS.test(redirect.replace(/\s+/g, ""))) {
      i += redirect.length - 1;
      continue;
    }
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return [{ words: [], hazards: ["unterminated quote"], separator: null }];
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let text = "";
      for (; j < command.length && command[j] !== '"'; j++) {
        const d = command[j]!;
        if (d === "$" || d === "`") cur.hazards.push(`expansion ${d} inside double quotes`);
        if (d === "\\" && j + 1 < command.length) text += command[++j];
        else text += d;
      }
      if (j >= command.length) return [{ words: [], hazards: ["unterminated quote"], separator: null }];
      word = (word ?? "") + text;
      i = j;
      continue;
    }
    if (c === "\\") {
      word = (word ?? "") + (command[i + 1] ?? "");
      i++;
      continue;
    }
    if (c === "$" || c === "`") cur.hazards.push(c === "`" ? "command substitution" : "expansion $");
    else if (c === "(" || c === ")") cur.hazards.push("subshell");
    else if (c === ">" || c === "<") cur.hazards.push(`redirection ${c}`);
    else if (c === "&") cur.hazards.push("background &");
    else if (c === "#" && word === null) {
      const nl = command.indexOf("\n", i);
      i = nl < 0 ? command.length : nl - 1;
      continue;
    }
    word = (word ?? "") + c;
  }
  endWord();
  if (cur.words.length > 0 || cur.hazards.length > 0) out.push(cur);
  else if (cur.separator !== null && cur.separator !== ";") {
    out.push({ ...cur, hazards: ["trailing operator"] });
  }
  return out;
}
