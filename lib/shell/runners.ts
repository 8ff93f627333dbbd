// Owns command runners (docs/reference/permissions.md "Command runners"): programs and options that
// run another command or a script (`env`, `timeout`, `xargs`, `nice`, `nohup`, `command`, `builtin`,
// `exec`, `eval`, `bash -c`, `find -exec`, `git -c`, …). For an allow rule, the word that makes a
// command a runner, which the rule must name; for a deny rule, what the runner runs (its command's
// words, or its script to read again), or why that cannot be known. Options a runner's table does not
// know make it unknowable: fail closed. Pure.

/** A word's value, or undefined when it is built at run time. */
export type Word = string | undefined;

/** What a runner runs. */
export type Inner =
  | { kind: "command"; words: Word[]; /** more words may be appended at run time (xargs) */ open: boolean }
  | { kind: "script"; script: string }
  | { kind: "dynamic"; why: string };

/** How a runner's own options are read before the command it runs. */
interface OptionSpec {
  /** Options that take the next word (or `--opt=value`) as their argument. */
  withArgument: readonly string[];
  /** Options without an argument. */
  flags: RegExp;
  /** Operands before the command (timeout's duration, chroot's folder). */
  operands?: number;
  /** Options after which nothing runs (`command -v`). */
  runsNothing?: RegExp;
  /** `NAME=value` words are skipped (env). */
  assignments?: boolean;
}

const NONE = /^$/;

/** Runners whose command follows their options. */
const COMMAND_RUNNERS: Readonly<Record<string, OptionSpec>> = {
  env: {
    withArgument: ["-u", "--unset", "-C", "--chdir"],
    flags:
      /^(?:-|-i|-0|-v|--ignore-environment|--null|--debug|--default-signal(?:=.*)?|--ignore-signal(?:=.*)?|--block-signal(?:=.*)?)$/,
    assignments: true,
  },
  timeout: {
    withArgument: ["-s", "--signal", "-k", "--kill-after"],
    flags: /^(?:--preserve-status|--foreground|-v|--verbose|-f)$/,
    operands: 1,
  },
  nice: { withArgument: ["-n", "--adjustment"], flags: /^-\d+$/ },
  nohup: { withArgument: [], flags: NONE },
  command: { withArgument: [], flags: /^-p$/, runsNothing: /^-[pvV]*[vV][pvV]*$/ },
  builtin: { withArgument: [], flags: NONE },
  exec: { withArgument: ["-a"], flags: /^-[cl]+$/ },
  time: {
    withArgument: ["-f", "--format", "-o", "--output"],
    flags: /^(?:-p|-v|-a|-q|--verbose|--append|--quiet|--portability)$/,
  },
  stdbuf: { withArgument: ["-i", "-o", "-e", "--input", "--output", "--error"], flags: NONE },
  ionice: { withArgument: ["-c", "-n", "--class", "--classdata"], flags: /^(?:-t|--ignore)$/ },
  setsid: { withArgument: [], flags: /^(?:-[cfw]+|--ctty|--fork|--wait)$/ },
  chroot: { withArgument: ["--userspec", "--groups"], flags: /^--skip-chdir$/, operands: 1 },
  unbuffer: { withArgument: [], flags: /^-p$/ },
  fakeroot: { withArgument: [], flags: NONE },
  catchsegv: { withArgument: [], flags: NONE },
  busybox: { withArgument: [], flags: NONE },
};

/** Shells: `-c SCRIPT` runs the script; without `-c` they run a file or their input, which rules cannot see. */
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "yash", "rbash", "fish", "tcsh", "csh"]);

/** Runners that run code no rule can follow (they need an approval or a rule naming them). */
const OPAQUE: Readonly<Record<string, string>> = {
  sudo: "runs a command as another user",
  doas: "runs a command as another user",
  su: "runs a command as another user",
  runuser: "runs a command as another user",
  pkexec: "runs a command as another user",
  chrt: "runs a command with a scheduling policy",
  taskset: "runs a command on chosen processors",
  unshare: "runs a command in new namespaces",
  nsenter: "runs a command in other namespaces",
  firejail: "runs a command in a sandbox",
  strace: "runs a command under a tracer",
  ltrace: "runs a command under a tracer",
  valgrind: "runs a command under a checker",
  gdb: "runs a program under a debugger",
  parallel: "builds commands from its input",
  coproc: "runs a command as a co-process",
  source: "runs a script file",
  ".": "runs a script file",
  alias: "defines an alias",
  enable: "loads or enables shell builtins",
  fc: "runs commands from the history",
  bind: "binds commands to keys",
  complete: "binds commands to completions",
  compgen: "may run completion commands",
  hash: "binds command names to programs",
  flock: "runs a command holding a lock",
  watch: "runs a command repeatedly",
  script: "runs a shell or a command in a terminal log",
  proxychains: "runs a command through a proxy",
  torsocks: "runs a command through a proxy",
};

/** Options that make an ordinary program run a command of its own. */
const OPTION_RUNNERS: Readonly<Record<string, RegExp>> = {
  find: /^-(?:exec|execdir|ok|okdir)$/,
  rg: /^--pre(?:=.*)?$/,
  tar:
    /^(?:--to-command|--use-compress-program|--checkpoint-action|--info-script|--new-volume-script|-I|-F)(?:=.*)?$/,
  rsync: /^(?:-e|--rsh|--rsync-path)(?:=.*)?$/,
  sort: /^--compress-program(?:=.*)?$/,
  zip: /^(?:-TT|--unzip-command)(?:=.*)?$/,
  ssh: /^-o$/,
};

/** git's global options that change what it runs, and its subcommands' options that run commands. */
const GIT_GLOBAL_RUNNERS = /^(?:-c|--config-env(?:=.*)?|--exec-path(?:=.*)?)$/;
const GIT_SUBCOMMAND_RUNNERS: Readonly<Record<string, RegExp>> = {
  rebase: /^(?:-x|--exec(?:=.*)?)$/,
  fetch: /^(?:--upload-pack(?:=.*)?)$/,
  pull: /^(?:--upload-pack(?:=.*)?)$/,
  clone: /^(?:-u|--upload-pack(?:=.*)?)$/,
  "ls-remote": /^(?:--upload-pack(?:=.*)?)$/,
  push: /^(?:--receive-pack(?:=.*)?|--exec(?:=.*)?)$/,
  archive: /^(?:--exec(?:=.*)?)$/,
  difftool: /^(?:-x|--extcmd(?:=.*)?)$/,
  "filter-branch": /^--[a-z-]*filter$/,
  submodule: /^foreach$/,
  bisect: /^run$/,
};
const GIT_GLOBAL_WITH_ARGUMENT = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--config-env",
]);

function base(program: string): string {
  return program.includes("/") ? program.slice(program.lastIndexOf("/") + 1) : program;
}

/** The word that makes this command a runner (index into `words`), for allow rules; undefined when none. */
export function runnerWord(words: readonly string[]): { index: number; word: string } | undefined {
  const program = words[0];
  if (program === undefined) return undefined;
  const name = base(program);
  if (Object.hasOwn(COMMAND_RUNNERS, name) || SHELLS.has(name) || Object.hasOwn(OPAQUE, name)) {
    return { index: 0, word: program };
  }
  if (["eval", "trap", "let", "xargs", "mapfile", "readarray"].includes(name)) {
    return { index: 0, word: program };
  }
  if (name === "git") return gitRunner(words);
  const option = OPTION_RUNNERS[name];
  if (option === undefined) return undefined;
  const index = words.findIndex((w, i) => i > 0 && option.test(w));
  return index < 0 ? undefined : { index, word: words[index]! };
}

function gitRunner(words: readonly string[]): { index: number; word: string } | undefined {
  let i = 1;
  for (; i < words.length && words[i]!.startsWith("-"); i++) {
    if (GIT_GLOBAL_RUNNERS.test(words[i]!)) return { index: i, word: words[i]! };
    if (GIT_GLOBAL_WITH_ARGUMENT.has(words[i]!)) i++;
  }
  const sub = words[i];
  const option = sub === undefined ? undefined : GIT_SUBCOMMAND_RUNNERS[sub];
  if (option === undefined) return undefined;
  const index = words.findIndex((w, j) => j > i && option.test(w));
  return index < 0 ? undefined : { index, word: words[index]! };
}

/**
 * What a command runs besides itself, for deny rules: [] when it is no runner (or runs nothing), else
 * each inner command or script, or why it cannot be known.
 */
export function innerCommands(words: readonly Word[]): Inner[] {
  const program = words[0];
  if (program === undefined) return [];
  const name = base(program);
  const spec = COMMAND_RUNNERS[name];
  if (spec !== undefined) return [afterOptions(name, spec, words)];
  if (SHELLS.has(name)) return [shellScript(name, words)];
  const opaque = OPAQUE[name];
  if (opaque !== undefined) return [{ kind: "dynamic", why: `${name} ${opaque}` }];
  switch (name) {
    case "eval":
      return [joinedScript("eval", words.slice(1))];
    case "trap":
      return [trapScript(words)];
    case "xargs":
      return [xargsCommand(words)];
    case "let":
      return [{ kind: "dynamic", why: "let evaluates arithmetic, which can run commands" }];
    case "mapfile":
    case "readarray":
      return words.some((w) => w === undefined || w.startsWith("-C"))
        ? [{ kind: "dynamic", why: `${name} -C runs a callback` }]
        : [];
    case "find":
      return findCommands(words);
    case "git":
      return gitCommands(words);
  }
  const option = OPTION_RUNNERS[name];
  if (option === undefined) return [];
  const hit = words.find((w, i) => i > 0 && w !== undefined && option.test(w));
  if (hit !== undefined) return [{ kind: "dynamic", why: `${name} ${hit} runs a command of its own` }];
  // A word built at run time may be such an option.
  if (words.some((w) => w === undefined)) {
    return [{ kind: "dynamic", why: `an argument of ${name} is built at run time` }];
  }
  return [];
}

function afterOptions(name: string, spec: OptionSpec, words: readonly Word[]): Inner {
  let i = 1;
  let operands = spec.operands ?? 0;
  for (; i < words.length; i++) {
    const w = words[i];
    if (w === undefined) return { kind: "dynamic", why: `an argument of ${name} is built at run time` };
    if (w === "--") {
      i++;
      break;
    }
    if (spec.runsNothing?.test(w) === true) return { kind: "command", words: [], open: false };
    if (w.startsWith("-") && w !== "-" || (name === "env" && w === "-")) {
      if (spec.withArgument.includes(w)) {
        i++;
        continue;
      }
      if (spec.withArgument.some((o) => o.startsWith("--") && w.startsWith(`${o}=`))) continue;
      if (spec.withArgument.some((o) => !o.startsWith("--") && o.length === 2 && w.startsWith(o))) continue;
      if (spec.flags.test(w)) continue;
      return { kind: "dynamic", why: `${name} ${w} is an option Blade cannot follow` };
    }
    if (spec.assignments === true && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      if (w.startsWith("BASH_FUNC_")) return { kind: "dynamic", why: `${name} exports a shell function` };
      continue;
    }
    if (operands > 0) {
      operands--;
      continue;
    }
    break;
  }
  return { kind: "command", words: words.slice(i), open: false };
}

function shellScript(name: string, words: readonly Word[]): Inner {
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === undefined) return { kind: "dynamic", why: `an argument of ${name} is built at run time` };
    if (["-o", "+o", "-O", "+O", "--rcfile", "--init-file"].includes(w)) {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(w) && w.slice(1).includes("c") && w.startsWith("-")) {
      // The first operand after the options is the script.
      let j = i + 1;
      while (j < words.length && (words[j] === "--" || /^[-+][A-Za-z]+$/.test(words[j] ?? ""))) j++;
      const script = words[j];
      return script === undefined
        ? { kind: "dynamic", why: `the script of ${name} -c is built at run time` }
        : { kind: "script", script };
    }
    if (w.startsWith("-") || w.startsWith("+")) continue;
    return { kind: "dynamic", why: `${name} runs the script file ${w}, which rules cannot read` };
  }
  return { kind: "dynamic", why: `${name} runs the script it reads from its input` };
}

function joinedScript(name: string, args: readonly Word[]): Inner {
  if (args.some((a) => a === undefined)) {
    return { kind: "dynamic", why: `the script of ${name} is built at run time` };
  }
  return { kind: "script", script: args.join(" ") };
}

function trapScript(words: readonly Word[]): Inner {
  const args = words.slice(1);
  if (args[0] === "-p" || args[0] === "-l" || args.length < 2) {
    return { kind: "command", words: [], open: false };
  }
  const action = args[0] === "--" ? args[1] : args[0];
  if (action === undefined) return { kind: "dynamic", why: "the action of trap is built at run time" };
  return action === "-" || action === ""
    ? { kind: "command", words: [], open: false }
    : { kind: "script", script: action };
}

const XARGS_WITH_ARGUMENT = new Set([
  "-I",
  "-L",
  "-n",
  "-P",
  "-s",
  "-d",
  "-E",
  "-a",
  "--delimiter",
  "--max-args",
  "--max-procs",
  "--max-lines",
  "--max-chars",
  "--arg-file",
  "--eof",
  "--replace",
]);
const XARGS_FLAGS =
  /^(?:-[0rtpxo]+|--null|--no-run-if-empty|--verbose|--interactive|--exit|--open-tty|-i.*|-l\d*|-e.*)$/;

/** xargs runs its operands (default `echo`) with words from its input appended or put in place of `-I`'s. */
function xargsCommand(words: readonly Word[]): Inner {
  let placeholder: string | undefined;
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i];
    if (w === undefined) return { kind: "dynamic", why: "an argument of xargs is built at run time" };
    if (w === "--") {
      i++;
      break;
    }
    if (!w.startsWith("-")) break;
    if (w === "-I" || w === "--replace") {
      placeholder = words[++i];
      if (placeholder === undefined) {
        return { kind: "dynamic", why: "the placeholder of xargs -I is unknown" };
      }
      continue;
    }
    if (w.startsWith("--replace=")) placeholder = w.slice("--replace=".length);
    else if (XARGS_WITH_ARGUMENT.has(w)) i++;
    else if (/^-i/.test(w)) placeholder = w.length > 2 ? w.slice(2) : "{}";
    else if (
      !XARGS_FLAGS.test(w) &&
      ![...XARGS_WITH_ARGUMENT].some((o) => o.startsWith("--") && w.startsWith(`${o}=`))
    ) {
      return { kind: "dynamic", why: `xargs ${w} is an option Blade cannot follow` };
    }
  }
  const command = words.slice(i);
  if (command.length === 0) return { kind: "command", words: ["echo"], open: true };
  if (placeholder === undefined) return { kind: "command", words: command, open: true };
  return {
    kind: "command",
    words: command.map((w) => (w !== undefined && w.includes(placeholder!) ? undefined : w)),
    open: false,
  };
}

/** `find … -exec CMD … ;` (and -execdir, -ok, -okdir): each such command, `{}` standing for a file. */
function findCommands(words: readonly Word[]): Inner[] {
  const out: Inner[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === undefined || !OPTION_RUNNERS.find!.test(w)) continue;
    const command: Word[] = [];
    let j = i + 1;
    for (; j < words.length && words[j] !== ";" && words[j] !== "+"; j++) {
      const arg = words[j];
      command.push(arg === undefined || arg.includes("{}") ? undefined : arg);
    }
    out.push({ kind: "command", words: command, open: false });
    i = j;
  }
  if (words.some((w) => w === undefined)) {
    out.push({ kind: "dynamic", why: "an argument of find is built at run time" });
  }
  return out;
}

function gitCommands(words: readonly Word[]): Inner[] {
  // A word built at run time before the subcommand may be -c; after a subcommand that has options
  // running commands, it may be one of those.
  let i = 1;
  for (; i < words.length && words[i]?.startsWith("-") === true; i++) {
    if (GIT_GLOBAL_WITH_ARGUMENT.has(words[i]!)) i++;
  }
  const sub = words[i];
  const unknown = words.findIndex((w) => w === undefined);
  if (unknown >= 0 && (unknown <= i || Object.hasOwn(GIT_SUBCOMMAND_RUNNERS, sub ?? ""))) {
    return [{ kind: "dynamic", why: "an argument of git is built at run time" }];
  }
  const literal = words.map((w) => w ?? "");
  const hit = gitRunner(literal);
  if (hit === undefined) return [];
  const rest = words.slice(hit.index + 1);
  if (hit.word === "foreach") return [joinedScript("git submodule foreach", rest)];
  if (hit.word === "run") return [{ kind: "command", words: rest, open: false }];
  if (/^(?:-x|--exec)$/.test(hit.word) && rest[0] !== undefined) return [{ kind: "script", script: rest[0] }];
  return [{ kind: "dynamic", why: `git ${hit.word} makes git run a command of its own` }];
}
