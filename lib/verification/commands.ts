// Owns recognising the shell commands a read-only auditor may run (docs/reference/verification.md):
// read-only inspection (ls, cat, git status/diff/log, grep…) and the project's verification commands
// (test, lint, build, type-check runners of npm/pnpm/yarn/bun/deno, node --test, pytest, ruff, mypy,
// pyright, tsc, eslint, biome, jest, vitest, go, cargo), with an optional `cd <dir inside the
// workspace> &&` prefix and a bounded `| head` / `| tail`. Anything else, and any mutating flag
// (`--fix`, `-u`, `--update…`, `--watch…`, `--write`), is rejected. The same recogniser feeds the
// evidence of which verification commands ran (evidence.ts). The command line is read by the one bash
// parser (shell/command_line.ts; the caller loads it first). Pure: no I/O.

import { isAbsolute, relative, resolve, sep } from "../path.ts";
import { bashParserLoaded } from "../shell/bash_parser.ts";
import { type PlainCommand, readCommandLine } from "../shell/command_line.ts";

export type CommandClass =
  | { kind: "verification"; command: string }
  | { kind: "read-only" }
  | { kind: "rejected"; reason: string };

/** Flags that make a checker change files, install packages or run forever. */
const MUTATING_FLAG =
  /^(?:--fix(?:[-=].*)?|-u|--update.*|--updateSnapshot.*|--watch.*|--write(?:=.*)?|--apply(?:-unsafe)?|--unsafe|--install-types)$/;

/**
 * Flags that send a checker's output or report to a file of the caller's choice (which may be a
 * source file): refused unless the file is /dev/null.
 */
const OUTPUT_FLAG =
  /^(?:-o|--output-?file|--outputFile|--outFile|--outDir|--out-dir|--test-reporter-destination|--junit-?xml)$/;

/** The first output flag of `words` that names a file other than /dev/null. */
function outputFlag(words: readonly string[]): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const eq = w.indexOf("=");
    const [flag, value] = eq > 0 ? [w.slice(0, eq), w.slice(eq + 1)] : [w, words[i + 1]];
    if (OUTPUT_FLAG.test(flag) && value !== "/dev/null") return flag;
  }
  return undefined;
}

/** Scripts of package managers that count as checks. */
const SCRIPT = /^(?:test|tests|lint|build|check|type-?check|typecheck|tsc|verify)(?::[\w:-]+)?$/;

/** Variables a verification command may be prefixed with. */
const ENV_PREFIX = /^(?:CI|NODE_ENV|FORCE_COLOR|NO_COLOR|RUST_BACKTRACE|PYTHONDONTWRITEBYTECODE)=[\w.-]*$/;

const READ_ONLY_GIT = new Set([
  "status",
  "diff",
  "log",
  "show",
  "blame",
  "ls-files",
  "ls-tree",
  "rev-parse",
  "describe",
  "shortlog",
  "cat-file",
  "grep",
  "merge-base",
  "rev-list",
  "name-rev",
]);

/** Programs that only read (with the flags below refused). */
const READ_ONLY = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "rg",
  "pwd",
  "echo",
  "stat",
  "file",
  "tree",
  "du",
  "which",
  "diff",
  "cmp",
  "sort",
  "uniq",
  "cut",
  "nl",
  "jq",
  "true",
  "basename",
  "dirname",
  "realpath",
  "printf",
]);

/** Flags that make an otherwise read-only program write or run something. */
const READ_ONLY_REFUSED: Readonly<Record<string, RegExp>> = {
  sort: /^(?:-o.*|--output.*|--compress-program.*)$/,
  tail: /^(?:-f|-F|--follow.*|--retry)$/,
  rg: /^(?:--pre.*|--hostname-bin.*)$/,
  tree: /^(?:-o|-R)$/,
  file: /^(?:-C|--compile)$/,
};

/** git options that run a program or write a file. */
const GIT_REFUSED = /^(?:--output(?:=.*)?|-O.*|--open-files-in-pager.*)$/;

/** `uniq`'s options that take a value (so the value is not its input or output file). */
const UNIQ_VALUED = new Set(["-f", "-s", "-w"]);

function verificationOf(words: readonly string[]): string | undefined {
  const [tool, sub, third] = words;
  switch (tool) {
    case "npm":
    case "pnpm":
    case "yarn":
    case "bun": {
      if (sub === "test" || sub === "t") return words.join(" ");
      if ((sub === "run" || sub === "run-script") && third !== undefined && SCRIPT.test(third)) {
        return words.join(" ");
      }
      if (tool !== "npm" && sub !== undefined && SCRIPT.test(sub)) return words.join(" ");
      if ((sub === "exec" || sub === "x") && third !== undefined) {
        return verificationOf(words.slice(2)) === undefined ? undefined : words.join(" ");
      }
      return undefined;
    }
    case "npx":
    case "bunx":
      return sub !== undefined && verificationOf(words.slice(1)) !== undefined ? words.join(" ") : undefined;
    case "deno":
      if (sub === "test" || sub === "lint" || sub === "check") return words.join(" ");
      if (sub === "fmt") return words.includes("--check") ? words.join(" ") : undefined;
      if (sub === "task" && third !== undefined && SCRIPT.test(third)) return words.join(" ");
      return undefined;
    case "node":
      return sub === "--test" ? words.join(" ") : undefined;
    case "python":
    case "python3":
      return sub === "-m" && (third === "pytest" || third === "mypy" || third === "ruff")
        ? verificationOf(words.slice(2)) === undefined ? undefined : words.join(" ")
        : undefined;
    case "vitest":
      return sub === "watch" || sub === "dev" ? undefined : words.join(" ");
    case "pytest":
    case "mypy":
    case "pyright":
    case "jest":
    case "eslint":
      return words.join(" ");
    case "tsc":
      return words.includes("-w") ? undefined : words.join(" ");
    case "ruff":
      if (sub === "check") return words.join(" ");
      if (sub === "format") {
        return words.includes("--check") || words.includes("--diff") ? words.join(" ") : undefined;
      }
      return undefined;
    case "biome":
      return sub === "check" || sub === "lint" || sub === "ci" ||
          (sub === "format" && !words.includes("--write"))
        ? words.join(" ")
        : undefined;
    case "go":
      return sub === "build" || sub === "test" || sub === "vet" ? words.join(" ") : undefined;
    case "cargo":
      return sub === "build" || sub === "check" || sub === "clippy" || sub === "test"
        ? words.join(" ")
        : undefined;
    default:
      return undefined;
  }
}

function readOnlyReason(words: readonly string[]): string | undefined {
  const [tool, sub] = words;
  if (tool === undefined) return "empty command";
  if (tool === "git") {
    if (sub === undefined || !READ_ONLY_GIT.has(sub)) {
      return `git ${sub ?? ""} is not a read-only git command`.trim();
    }
    const bad = words.find((w) => GIT_REFUSED.test(w));
    return bad === undefined ? undefined : `git ${bad} writes a file or runs a program`;
  }
  if (tool === "find") {
    const bad = words.find((w) => /^-(?:exec|execdir|ok|okdir|delete|fprint.*|fls)$/.test(w));
    return bad === undefined ? undefined : `find ${bad} runs or writes`;
  }
  if (tool === "sed") return sedReason(words);
  if (tool === "uniq") {
    const files = words.slice(1).filter((w, i, all) => !w.startsWith("-") && !UNIQ_VALUED.has(all[i - 1]!));
    return files.length > 1 ? "uniq with an OUTPUT file writes it" : undefined;
  }
  if (!READ_ONLY.has(tool)) return `${tool} is not a recognised read-only or verification command`;
  const refused = READ_ONLY_REFUSED[tool];
  const bad = refused === undefined ? undefined : words.slice(1).find((w) => refused.test(w));
  return bad === undefined ? undefined : `${tool} ${bad} writes or never ends`;
}

/** An address: a line number, `$`, `first~step`, or a `/regex/` (no `/` inside, `I`/`M` flags). */
const SED_ADDRESS = String.raw`(?:\d+(?:~\d+)?|\$|/(?:[^/\\]|\\.)*/[IM]*)`;

/**
 * One command of a read-only sed script: an optional address range, an optional `!`, then a command
 * that only prints or moves through the input, or an `s` with `/` delimiters and without the `w` and
 * `e` flags. Everything else (`w`, `W`, `r`, `R`, `e`, blocks, other delimiters) is refused.
 */
const SED_COMMAND = new RegExp(
  String.raw`^\s*(?:${SED_ADDRESS}(?:\s*,\s*${SED_ADDRESS})?)?\s*!?\s*` +
    String.raw`(?:[pP=lqQdDnNgGhHx]|s/(?:[^/\\]|\\.)*/(?:[^/\\]|\\.)*/[gpiImM0-9]*)\s*$`,
);

/**
 * `sed -n` is read-only when it cannot write or run anything: no -i, no script file, and every
 * script only prints (commands above); with GNU sed's `--sandbox` sed itself refuses w, r and e.
 */
function sedReason(words: readonly string[]): string | undefined {
  const why = "sed is read-only only as `sed -n` without -i, -f, and w, r or e commands (or with --sandbox)";
  const scripts: string[] = [];
  let quiet = false;
  let positional = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--quiet" || w === "--silent") quiet = true;
    else if (w === "--expression") scripts.push(words[++i] ?? "");
    else if (w.startsWith("--expression=")) scripts.push(w.slice("--expression=".length));
    else if (w.startsWith("--in-place") || w.startsWith("--file")) return why;
    else if (/^-[A-Za-z]+$/.test(w)) {
      // A cluster of short options: -i and -f are refused, -e and -l take the next word.
      const flags = w.slice(1);
      if (/[if]/.test(flags) || /[el]./.test(flags)) return why;
      quiet ||= flags.includes("n");
      if (flags.endsWith("e")) scripts.push(words[++i] ?? "");
      else if (flags.endsWith("l")) i++;
    } else if (w === "-" || w.startsWith("--")) continue;
    else if (w.startsWith("-")) return why; // e.g. -i.bak, -l5
    else if (scripts.length === 0 && !positional) {
      scripts.push(w);
      positional = true;
    }
  }
  if (!quiet) return why;
  if (words.includes("--sandbox")) return undefined;
  const unsafe = scripts.flatMap((s) => s.split(/[;\n]/)).some((c) =>
    c.trim() !== "" && !SED_COMMAND.test(c)
  );
  return unsafe ? why : undefined;
}

/** `head`/`tail` after a pipe, with no file argument and no follow mode. */
function boundedPager(words: readonly string[]): boolean {
  const [tool, ...args] = words;
  if (tool !== "head" && tool !== "tail") return false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (/^-\d+$/.test(a) || /^--(?:lines|bytes)=\d+$/.test(a) || /^-[nc]\d+$/.test(a)) continue;
    if ((a === "-n" || a === "-c") && /^\+?\d+$/.test(args[i + 1] ?? "")) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}

function insideWorkspace(dir: string, workspaceRoot: string): boolean {
  if (/[*?[\]~]/.test(dir)) return false;
  const target = isAbsolute(dir) ? resolve(dir) : resolve(workspaceRoot, dir);
  const rel = relative(workspaceRoot, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Whether the command is a recognised verification command, read-only, or neither (and why). */
export function classifyCommand(command: string, workspaceRoot: string): CommandClass {
  if (command.trim() === "") return { kind: "rejected", reason: "empty command" };
  if (!bashParserLoaded()) return { kind: "rejected", reason: "the command parser is not loaded" };
  const line = readCommandLine(command);
  const parts = line.plain;
  if (parts === undefined) return { kind: "rejected", reason: line.notPlain ?? "not a plain command" };
  let i = 0;
  const first = parts[0]!;
  if (first.words[0] === "cd") {
    const dir = first.words[1];
    if (first.words.length !== 2 || dir === undefined || !insideWorkspace(dir, workspaceRoot)) {
      return { kind: "rejected", reason: "cd must name one folder inside the workspace" };
    }
    if (dir.includes("$")) {
      return { kind: "rejected", reason: "cd must name one folder inside the workspace" };
    }
    if (parts.length === 1) return { kind: "read-only" };
    if (parts[1]!.separator !== "&&") return { kind: "rejected", reason: "cd must be followed by &&" };
    i = 1;
  }
  let verification: string | undefined;
  let piped = false;
  for (; i < parts.length; i++) {
    const part: PlainCommand = parts[i]!;
    if (part.runner !== undefined) {
      return { kind: "rejected", reason: `${part.runner.word} runs another command` };
    }
    if (part.separator === "&" || part.separator === "|&") {
      return {
        kind: "rejected",
        reason: `${part.separator} runs commands in the background or pipes errors`,
      };
    }
    const expansion = part.words.find((w) => w.includes("$"));
    if (expansion !== undefined) return { kind: "rejected", reason: `expansion in ${expansion}` };
    if (part.separator === "|") {
      if (!boundedPager(part.words)) {
        return { kind: "rejected", reason: "only a bounded head or tail may follow a pipe" };
      }
      piped = true;
      continue;
    }
    if (piped) return { kind: "rejected", reason: "nothing may follow the head or tail of a pipe" };
    const words = part.words;
    const env = (part.assignments ?? []).find((a) => !ENV_PREFIX.test(a));
    if (env !== undefined) return { kind: "rejected", reason: `it sets ${env}` };
    const flag = words.find((w) => MUTATING_FLAG.test(w));
    const found = verificationOf(words);
    if (found !== undefined) {
      if (flag !== undefined) return { kind: "rejected", reason: `${flag} changes files or never ends` };
      const output = outputFlag(words);
      if (output !== undefined) {
        return { kind: "rejected", reason: `${output} writes a file (only /dev/null is allowed here)` };
      }
      verification = found;
      continue;
    }
    const reason = readOnlyReason(words);
    if (reason !== undefined) return { kind: "rejected", reason };
  }
  return verification === undefined
    ? { kind: "read-only" }
    : { kind: "verification", command: command.trim() };
}
