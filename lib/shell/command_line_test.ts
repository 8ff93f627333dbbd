import assert from "node:assert/strict";
import { loadBashParser } from "./bash_parser.ts";
import { plainCommandWords, readCommandLine } from "./command_line.ts";

await loadBashParser();

// [command, its plain commands' words (undefined: not plain)]
const PLAIN: [string, string[][] | undefined][] = [
  ["git status", [["git", "status"]]],
  ["git status && npm test 2>&1 | head -5", [["git", "status"], ["npm", "test"], ["head", "-5"]]],
  ["ls -la >/dev/null 2>&1; pwd", [["ls", "-la"], ["pwd"]]],
  ["echo 'a; b' \"c && d\"", [["echo", "a; b", "c && d"]]],
  ["echo hi # ; touch x", [["echo", "hi"]]],
  ["echo $'\\'' ; touch pwned #'", undefined],
  ["echo ${x:-'}'};touch pwned #'", undefined],
  ["echo hi > f", undefined],
  ["echo hi &", undefined],
  ["(echo hi)", undefined],
  ["{ echo hi; }", undefined],
  ["f() { echo; }", undefined],
  ["X=1 echo", [["echo"]]], // plain, with its assignment kept (allow rules refuse it)
  ["PS4=x echo", undefined],
  ["cat <<EOF\nhi\nEOF", undefined],
  ["echo $(date)", undefined],
  ['echo "unterminated', undefined],
  ["", undefined],
];

for (const [command, words] of PLAIN) {
  Deno.test(`readCommandLine(${JSON.stringify(command)}).plain`, () => {
    const line = readCommandLine(command);
    assert.deepEqual(line.plain?.map((c) => c.words), words);
    if (words === undefined) assert.ok(line.notPlain !== undefined && line.notPlain !== "");
  });
}

// [command, every command it may run (undefined: a word built at run time), why it is unknowable]
const FORMS: [string, (string | undefined)[][], string | undefined][] = [
  ["case x in x) touch pwned;; esac", [["touch", "pwned"]], undefined],
  ["f() { touch pwned; }; f", [["touch", "pwned"], ["f"]], undefined],
  ["echo $(echo $(touch a))", [["echo", undefined], ["echo", undefined], ["touch", "a"]], undefined],
  ["env -C . touch pwned", [["env", "-C", ".", "touch", "pwned"], ["touch", "pwned"]], undefined],
  ["timeout -s KILL 10 touch x", [["timeout", "-s", "KILL", "10", "touch", "x"], ["touch", "x"]], undefined],
  ["nohup nice -n 5 rm x", [["nohup", "nice", "-n", "5", "rm", "x"], ["nice", "-n", "5", "rm", "x"], [
    "rm",
    "x",
  ]], undefined],
  ["bash -c -- 'touch pwned'", [["bash", "-c", "--", "touch pwned"], ["touch", "pwned"]], undefined],
  ["/usr/bin/touch x", [["touch", "x"]], undefined],
  ["$'touch' pwned", [[undefined, "pwned"]], "the command name $'touch' is built at run time"],
  ["coproc touch pwned", [["coproc", "touch", "pwned"]], "coproc runs a command as a co-process"],
  ["env -S 'touch x'", [["env", "-S", "touch x"]], "env -S is an option Blade cannot follow"],
  ["bash script.sh", [["bash", "script.sh"]], "bash runs the script file script.sh, which rules cannot read"],
];

for (const [command, forms, dynamic] of FORMS) {
  Deno.test(`readCommandLine(${JSON.stringify(command)}).forms`, () => {
    const line = readCommandLine(command);
    assert.deepEqual(line.forms.map((f) => f.words), forms);
    assert.equal(line.dynamic, dynamic);
  });
}

Deno.test("a deeply nested line still reads to its innermost command", () => {
  const deep = `echo ${"$(echo ".repeat(12)}$(touch pwned)${")".repeat(12)}`;
  assert.ok(readCommandLine(deep).forms.some((f) => f.words[0] === "touch"));
});

Deno.test("plainCommandWords: exactly one plain command, no runner, assignment or file redirection", () => {
  assert.deepEqual(plainCommandWords("ls -la 'my dir'"), ["ls", "-la", "my dir"]);
  assert.deepEqual(plainCommandWords("git log --oneline 2>/dev/null"), ["git", "log", "--oneline"]);
  assert.equal(plainCommandWords("ls; pwd"), undefined);
  assert.equal(plainCommandWords("ls | head"), undefined);
  assert.equal(plainCommandWords("ls > out"), undefined);
  assert.equal(plainCommandWords("LC_ALL=C ls"), undefined);
  assert.equal(plainCommandWords("env ls"), undefined);
  assert.equal(plainCommandWords("ls $HOME"), undefined);
});
