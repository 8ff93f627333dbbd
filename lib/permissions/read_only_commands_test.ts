// Table test of the read-only commands Bash runs without a rule: the list, the flags that take a
// command off it, and arguments that name places outside the session's folders.

import assert from "node:assert/strict";
import { isReadOnlyCommand, readOnlyCommandList } from "./read_only_commands.ts";

const scope = { workspaceRoot: "/ws", additionalDirs: ["/extra"] };
const cases: [string[], boolean][] = [
  [["ls"], true],
  [["ls", "-la", "src"], true],
  [["pwd"], true],
  [["cat", "notes.txt"], true],
  [["head", "-n", "5", "a.txt"], true],
  [["tail", "-20", "log.txt"], true],
  [["wc", "-l", "a.txt"], true],
  [["git", "status"], true],
  [["git", "status", "--porcelain"], true],
  [["git", "diff", "--staged"], true],
  [["git", "diff", "HEAD~1", "--", "src/a.ts"], true],
  [["git", "log", "--oneline", "-5"], true],
  [["git", "show", "HEAD"], true],
  [["git", "branch"], true],
  [["git", "branch", "-a"], true],
  [["git", "branch", "--list", "feat*"], true],
  [["grep", "-rn", "TODO", "src"], true],
  [["find", ".", "-name", "*.ts"], true],
  [["cat", "/ws/a.txt"], true],
  [["cat", "/extra/b.txt"], true],
  // Writes, runs or names an output file.
  [["git", "branch", "new-feature"], false],
  [["git", "branch", "-D", "main"], false],
  [["git", "diff", "--output=x.patch"], false],
  [["git", "diff", "--ext-diff"], false],
  [["git", "-c", "core.pager=evil", "log"], false],
  [["git", "-C", "/elsewhere", "status"], false],
  [["git", "commit", "-m", "x"], false],
  [["git", "push"], false],
  [["git", "checkout", "x"], false],
  [["git"], false],
  [["find", ".", "-delete"], false],
  [["find", ".", "-exec", "rm", "{}", ";"], false],
  [["sort", "-o", "a.txt", "a.txt"], false],
  [["rg", "--pre", "sh", "x"], false],
  [["date", "-s", "2020-01-01"], false],
  [["touch", "x"], false],
  [["rm", "-rf", "x"], false],
  [["npm", "test"], false],
  [["/bin/ls"], false],
  [["./ls"], false],
  // Places outside the session's folders.
  [["cat", "/etc/passwd"], false],
  [["cat", "../other/secret"], false],
  [["cat", "~/.ssh/id_rsa"], false],
  [["ls", "/"], false],
  [["grep", "--file=/etc/shadow", "x"], false],
  [["git", "show", "HEAD:/etc/passwd"], false],
  [["git", "diff", "--no-index", "/etc/passwd", "a"], false],
  [["cat", "/wsx/a"], false],
];

for (const [words, expected] of cases) {
  Deno.test(`isReadOnlyCommand ${JSON.stringify(words)} → ${expected}`, () => {
    assert.equal(isReadOnlyCommand(words, scope), expected);
  });
}

Deno.test("readOnlyCommandList: the documented list", () => {
  const list = readOnlyCommandList();
  for (
    const c of [
      "ls",
      "pwd",
      "cat",
      "head",
      "tail",
      "wc",
      "git status",
      "git diff",
      "git log",
      "git show",
      "git branch",
    ]
  ) {
    assert.ok(list.includes(c), c);
  }
});
