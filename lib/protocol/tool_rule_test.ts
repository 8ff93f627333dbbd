import assert from "node:assert/strict";
import {
  checkRules,
  parseRuleList,
  parseToolRule,
  pathMatches,
  type RuleSet,
  splitRuleList,
  type ToolRule,
  unknownRuleTools,
  wholeToolsDenied,
} from "./tool_rule.ts";
import { parseShell } from "./shell_parse.ts";

const scope = { workspaceRoot: "/ws", home: "/home/u" };

function rules(...texts: string[]): ToolRule[] {
  const parsed = parseRuleList(texts);
  assert.deepEqual(parsed.problems, []);
  return parsed.rules;
}

function verdict(set: Partial<RuleSet>, command: string): string {
  const full: RuleSet = { allow: set.allow ?? [], deny: set.deny ?? [], ask: set.ask ?? [] };
  return checkRules(full, { tool: "Bash", input: { command } }, scope).verdict;
}

// [allow rule(s), command, expected: true = approved]
const ALLOW_TABLE: [string[], string, boolean][] = [
  // Claude Code's documented examples
  [["Bash(npm run build)"], "npm run build", true],
  [["Bash(npm run build)"], "npm run build --watch", false],
  [["Bash(npm run test:*)"], "npm run test", true],
  [["Bash(npm run test:*)"], "npm run test -- --grep x", true],
  [["Bash(npm run test:*)"], "npm run testx", false],
  [["Bash(npm run test:*)"], "npm run", false],
  [["Bash(curl http://site.com/:*)"], "curl http://site.com/", true],
  [["Bash(curl http://site.com/:*)"], "curl -X GET http://site.com/x", false],
  [["Bash(ls *)"], "ls -la", true],
  [["Bash(ls *)"], "ls", true],
  [["Bash(ls *)"], "lsof", false],
  [["Bash(ls*)"], "lsof", true],
  [["Bash(git * main)"], "git checkout main", true],
  [["Bash(git * main)"], "git push origin main", true],
  [["Bash(git * main)"], "git push origin dev", false],
  [["Bash(*)"], "anything; at all", true],
  [["Bash"], "rm -rf x && touch y", true],
  [["Bash(safe-cmd:*)"], "safe-cmd && other-cmd", false],
  // the bypasses from issue 11
  [["Bash(echo:*)"], "echo hi", true],
  [["Bash(echo:*)"], "echo hi; touch x", false],
  [["Bash(echo:*)"], "echo hi && touch x", false],
  [["Bash(echo:*)"], "echo hi || touch x", false],
  [["Bash(echo:*)"], "echo hi | sh", false],
  [["Bash(echo:*)"], "echo hi & touch x", false],
  [["Bash(echo:*)"], "echo hi\ntouch x", false],
  [["Bash(echo:*)"], "echo $(touch x)", false],
  [["Bash(echo:*)"], 'echo "$(touch x)"', false],
  [["Bash(echo:*)"], "echo `touch x`", false],
  [["Bash(echo:*)"], "echo ${X:-$(touch x)}", false],
  [["Bash(echo:*)"], "echo $((1+2))", false],
  [["Bash(echo:*)"], "echo <(touch x)", false],
  [["Bash(echo:*)"], "(touch x)", false],
  [["Bash(echo:*)"], "echo hi > x", false],
  [["Bash(echo:*)"], "echo hi >> ~/.bashrc", false],
  [["Bash(echo:*)"], "echo hi >x", false],
  [["Bash(echo:*)"], "echo hi 2>x", false],
  [["Bash(echo:*)"], "echo hi &>x", false],
  [["Bash(echo:*)"], "echo hi >&x", false],
  [["Bash(echo:*)"], "cat <<EOF\nhi\nEOF", false],
  [["Bash(echo:*)"], "echox_not_echo", false],
  [["Bash(echo:*)"], "echo", true],
  [["Bash(echo:*)"], "FOO=1 echo hi", false],
  [["Bash(echo:*)"], "{ touch x; }", false],
  [["Bash(echo:*)"], "echo 'unterminated", false],
  [["Bash(echo:*)"], "", false],
  // quoting is data, not operators
  [["Bash(echo:*)"], "echo 'a; touch x'", true],
  [["Bash(echo:*)"], 'echo "a && touch x"', true],
  [["Bash(echo:*)"], "echo a\\;b", true],
  [["Bash(echo:*)"], "echo '$(touch x)'", true],
  [["Bash(echo:*)"], "echo hi # ; touch x", true],
  [["Bash(echo:*)"], "echo hi 2>&1", true],
  [["Bash(echo:*)"], "echo hi >/dev/null 2>&1", true],
  [["Bash(echo:*)"], "echo $HOME", true],
  // every simple command must be matched, possibly by different rules
  [["Bash(git status)", "Bash(git diff:*)"], "git status && git diff HEAD", true],
  [["Bash(git status)", "Bash(git diff:*)"], "git status && git log", false],
  [["Bash(npm test:*)", "Bash(head:*)"], "npm test 2>&1 | head -50", true],
  [["Bash(git diff:*)"], "git  diff   --stat", true],
  [["Bash(git diff:*)"], 'git "diff" --stat', true],
  [["Bash(git diff:*)"], "git diff --output=x", true],
  [["Bash(rm:*)"], "rm -rf /", true],
  // other tools' rules never approve Bash
  [["Edit", "Read(**)"], "ls", false],
];

for (const [allow, command, expected] of ALLOW_TABLE) {
  Deno.test(`allow ${allow.join(" + ")} ${expected ? "approves" : "refuses"} ${JSON.stringify(command)}`, () => {
    assert.equal(verdict({ allow: rules(...allow) }, command), expected ? "allow" : "none");
  });
}

// [deny rule, command, expected: true = denied]
const DENY_TABLE: [string, string, boolean][] = [
  ["Bash(rm:*)", "rm -rf x", true],
  ["Bash(rm:*)", "echo hi && rm -rf x", true],
  ["Bash(rm:*)", "echo $(rm -rf x)", true],
  ["Bash(rm:*)", "echo `rm -rf x`", true],
  ["Bash(rm:*)", "(cd /tmp; rm x)", true],
  ["Bash(rm:*)", "FOO=1 rm x", true],
  ["Bash(rm:*)", "/bin/rm x", true],
  ["Bash(rm:*)", "sudo rm x", true],
  ["Bash(rm:*)", "timeout 5 rm x", true],
  ["Bash(rm:*)", "env -i FOO=1 rm x", true],
  ["Bash(rm:*)", "nohup nice -n 5 rm x", true],
  ["Bash(rm:*)", "sh -c 'rm x'", true],
  ["Bash(rm:*)", 'bash -lc "echo a; rm x"', true],
  ["Bash(rm:*)", "eval rm x", true],
  ["Bash(rm:*)", "if true; then rm x; fi", true],
  ["Bash(rm:*)", "find . | xargs rm", true],
  ["Bash(rm:*)", "echo rm", false],
  ["Bash(rm:*)", "rmdir x", false],
  ["Bash(git push:*)", "git push origin main", true],
  ["Bash(git push:*)", "git pull", false],
  ["Bash(aws *)", "aws s3 ls", true],
];

for (const [deny, command, expected] of DENY_TABLE) {
  Deno.test(`deny ${deny} ${expected ? "refuses" : "lets through"} ${JSON.stringify(command)}`, () => {
    assert.equal(verdict({ deny: rules(deny), allow: rules("Bash") }, command), expected ? "deny" : "allow");
  });
}

Deno.test("deny beats allow, ask beats allow, deny beats ask", () => {
  assert.equal(verdict({ allow: rules("Bash(aws s3 ls)"), deny: rules("Bash(aws *)") }, "aws s3 ls"), "deny");
  assert.equal(verdict({ allow: rules("Bash(git:*)"), ask: rules("Bash(git push:*)") }, "git push"), "ask");
  assert.equal(verdict({ ask: rules("Bash(git:*)"), deny: rules("Bash(git push:*)") }, "git push"), "deny");
});

Deno.test("path specifiers match the normalised real path inside the workspace", () => {
  assert.equal(pathMatches("docs/*", "/ws/docs/a.md", scope), true);
  assert.equal(pathMatches("docs/*", "/ws/escaped.txt", scope), false); // docs/../escaped.txt, resolved
  assert.equal(pathMatches("docs/*", "/ws/docs/sub/a.md", scope), true); // a folder matches its contents
  assert.equal(pathMatches("src/**", "/ws/src/a/b.ts", scope), true);
  assert.equal(pathMatches("/src/**/*.ts", "/ws/src/a/b.ts", scope), true);
  assert.equal(pathMatches("./secrets/**", "/ws/secrets/k", scope), true);
  assert.equal(pathMatches("./secrets/**", "/elsewhere/secrets/k", scope), false);
  assert.equal(pathMatches("*.env", "/ws/deep/x/.env", scope), true); // as in .gitignore, * may be empty
  assert.equal(pathMatches("*.env", "/ws/deep/prod.env", scope), true);
  assert.equal(pathMatches(".env", "/ws/deep/.env", scope), true);
  assert.equal(pathMatches("//etc/**", "/etc/passwd", scope), true);
  assert.equal(pathMatches("~/Documents/*.pdf", "/home/u/Documents/a.pdf", scope), true);
  assert.equal(pathMatches("src/**", "/ws", scope), false);
});

Deno.test("an Edit rule covers Write; a Read rule covers Grep and Glob; a path rule needs a resolved path", () => {
  const set: RuleSet = { allow: rules("Edit(docs/**)"), deny: rules("Read(./secrets/**)"), ask: [] };
  const call = (tool: string, input: Record<string, unknown>, path?: string) =>
    checkRules(set, { tool, input, ...(path === undefined ? {} : { path }) }, scope).verdict;
  assert.equal(call("Write", { file_path: "docs/a" }, "/ws/docs/a"), "allow");
  assert.equal(call("Write", { file_path: "docs/../a" }, "/ws/a"), "none");
  assert.equal(call("Grep", { path: "secrets" }, "/ws/secrets"), "deny");
  assert.equal(call("Read", { file_path: "x" }), "deny"); // unknown path: a deny rule fails closed
  assert.equal(call("Write", { file_path: "x" }), "none"); // …and an allow rule approves nothing
});

Deno.test("Task(type) matches the agent type; Agent is Task", () => {
  const set: RuleSet = { allow: [], deny: rules("Agent(general-purpose)"), ask: [] };
  assert.equal(
    checkRules(set, { tool: "Task", input: { subagent_type: "general-purpose" } }, scope).verdict,
    "deny",
  );
  assert.equal(checkRules(set, { tool: "Task", input: { subagent_type: "Explore" } }, scope).verdict, "none");
  const two: RuleSet = { allow: [], deny: rules("Task(Explore, Plan)"), ask: [] };
  assert.equal(checkRules(two, { tool: "Task", input: { subagent_type: "Plan" } }, scope).verdict, "deny");
});

Deno.test("rule lists: commas and spaces outside parentheses; bad entries are reported", () => {
  assert.deepEqual(splitRuleList("Read,Bash(git diff:*) Edit", { spaces: true }), [
    "Read",
    "Bash(git diff:*)",
    "Edit",
  ]);
  assert.deepEqual(splitRuleList("Task(Explore, Plan), Read, Read"), ["Task(Explore, Plan)", "Read"]);
  assert.deepEqual(parseToolRule("Bash(*)"), { text: "Bash(*)", tool: "Bash" });
  assert.deepEqual(parseToolRule(" Agent(Explore) "), {
    text: "Agent(Explore)",
    tool: "Task",
    specifier: "Explore",
  });
  const bad = parseRuleList(["Bash(npm", "9lives"]);
  assert.equal(bad.rules.length, 0);
  assert.equal(bad.problems.length, 2);
  assert.deepEqual(unknownRuleTools(rules("Read", "Bsah(ls)", "mcp__x__y"), ["Read", "Bash"]), ["Bsah"]);
  assert.deepEqual([...wholeToolsDenied(rules("Write", "Bash(rm:*)"))], ["Write"]);
});

Deno.test("the shell parser keeps nested commands for deny rules", () => {
  const parsed = parseShell("echo $(a; b `c`) && (d | e)");
  assert.deepEqual(parsed.commands.map((c) => c.words[0] ?? c.hazards[0]), ["echo", "subshell (…)"]);
  assert.deepEqual(parsed.nested.map((c) => c.words[0]).sort(), ["a", "b", "c", "d", "e"]);
});
