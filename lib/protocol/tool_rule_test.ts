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
import { loadBashParser } from "../shell/bash_parser.ts";

await loadBashParser();

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
  [["Bash(echo:*)"], "echo $HOME", false],
  [["Bash(echo:*)"], "echo hi &", false],
  [["Bash(echo:*)"], "echo *.ts", false],
  [["Bash(echo:*)"], "echo ~/x", false],
  [["Bash(echo:*)"], "echo {a,b}", false],
  [["Bash(echo:*)"], "echo 'a b' \"c d\" e\\ f", true],
  [["Bash(git log:*)"], "git log HEAD~1", true],
  // issue 28: past an allow rule (ANSI-C quoting, ${…} quoting, arithmetic subscripts, prompt expansion)
  [["Bash(echo:*)"], "echo $'\\'' ; touch pwned #'", false],
  [["Bash(echo:*)"], "echo ${x:-'}'};touch pwned #'", false],
  [["Bash(echo:*)"], "echo ${x:=a[\\$\\(touch pwned\\)]}$[x]", false],
  [["Bash(echo:*)"], "echo ${x:=\\$\\(touch pwned\\)}${x@P}", false],
  [["Bash(printf:*)"], "printf -v 'a[$(touch pwned)]' hi", false],
  [["Bash(test:*)"], "test -v 'a[$(touch pwned)]'", false],
  [["Bash(printf:*)"], "printf '%s\\n' 'a[1]'", false],
  [["Bash(printf:*)"], "printf '%s\\n' hi", true],
  // command runners need a rule that names them
  [["Bash(env:*)"], "env -C . touch pwned", true],
  [["Bash(echo:*)", "Bash(touch:*)"], "env touch pwned", false],
  [["Bash(timeout:*)"], "timeout 5 make", true],
  [["Bash(make:*)"], "timeout 5 make", false],
  [["Bash(find:*)"], "find . -name x", true],
  [["Bash(find:*)"], "find . -exec touch pwned ;", false],
  [["Bash(find . -exec:*)"], "find . -exec touch pwned ;", true],
  [["Bash(git:*)"], "git -c core.pager=touch log", false],
  [["Bash(git:*)"], "git log -p", true],
  [["Bash(bash:*)"], "bash -c 'touch pwned'", true],
  [["Bash(npm test:*)"], "bash -c 'npm test'", false],
  [["Bash(echo:*)", "Bash(xargs:*)"], "echo pwned | xargs touch", true],
  [["Bash(echo:*)", "Bash(touch:*)"], "echo pwned | xargs touch", false],
  [["Bash(echo:*)"], "command echo hi", false],
  [["Bash(echo:*)"], "f() { echo; }; f", false],
  [["Bash(echo:*)"], "case x in x) echo;; esac", false],
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
  // issue 28: past a deny rule
  ["Bash(touch:*)", "case x in x) touch pwned;; esac", true],
  ["Bash(touch:*)", "f() { touch pwned; }; f", true],
  ["Bash(touch:*)", "$'touch' pwned", true],
  ["Bash(touch:*)", "env -C . touch pwned", true],
  ["Bash(touch:*)", "timeout -s KILL 10 touch pwned", true],
  ["Bash(touch:*)", "echo pwned | xargs -I {} touch {}", true],
  ["Bash(touch:*)", "echo pwned | xargs touch", true],
  ["Bash(touch:*)", "bash -c -- 'touch pwned'", true],
  ["Bash(touch:*)", "coproc touch pwned; wait", true],
  ["Bash(touch:*)", "command -- touch pwned", true],
  ["Bash(touch:*)", `echo ${"$(echo ".repeat(12)}$(touch pwned)${")".repeat(12)}`, true],
  ["Bash(touch:*)", "echo $'\\'' ; touch pwned #'", true],
  ["Bash(touch:*)", "echo ${x:-'}'};touch pwned #'", true],
  ["Bash(touch:*)", "echo ${x:=a[\\$\\(touch pwned\\)]}$[x]", true],
  ["Bash(touch:*)", "echo ${x:=\\$\\(touch pwned\\)}${x@P}", true],
  ["Bash(touch:*)", "printf -v 'a[$(touch pwned)]' hi", true],
  ["Bash(touch:*)", "test -v 'a[$(touch pwned)]'", true],
  ["Bash(touch:*)", "x='a[$(touch pwned)]'; [[ $x -eq 1 ]]", true],
  ["Bash(touch:*)", "PS4='$(touch pwned)'; set -x; true", true],
  ["Bash(touch:*)", "t\\ouch pwned", true],
  ["Bash(touch:*)", '"touch" pwned', true],
  ["Bash(touch:*)", "/usr/bin/tou?h pwned", true],
  ["Bash(touch:*)", "$CMD pwned", true],
  ["Bash(touch:*)", "builtin eval 'touch pwned'", true],
  ["Bash(touch:*)", "find . -exec touch {} +", true],
  ["Bash(touch:*)", "trap 'touch pwned' EXIT", true],
  ["Bash(touch:*)", "echo 'touch pwned' | bash", true],
  ["Bash(touch:*)", "git -c core.pager='touch pwned' log", true],
  ["Bash(touch:*)", 'echo "unterminated', true],
  ["Bash(touch:*)", "echo $HOME; ls -la; git status", false],
  ["Bash(touch:*)", "echo ${x:-default} $((1 + 2))", false],
  ["Bash(git push:*)", "git $op origin", true],
  ["Bash(git push:*)", "git log $ref", false],
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

Deno.test("Agent(type) matches the agent type; Task is Agent and KillShell is TaskStop", () => {
  const set: RuleSet = { allow: [], deny: rules("Agent(general-purpose)"), ask: [] };
  assert.equal(
    checkRules(set, { tool: "Agent", input: { subagent_type: "general-purpose" } }, scope).verdict,
    "deny",
  );
  assert.equal(
    checkRules(set, { tool: "Agent", input: { subagent_type: "Explore" } }, scope).verdict,
    "none",
  );
  const two: RuleSet = { allow: [], deny: rules("Task(Explore, Plan)"), ask: [] };
  assert.equal(checkRules(two, { tool: "Agent", input: { subagent_type: "Plan" } }, scope).verdict, "deny");
  assert.deepEqual(parseToolRule("KillShell"), { text: "KillShell", tool: "TaskStop" });
});

Deno.test("rule lists: commas and spaces outside parentheses; bad entries are reported", () => {
  assert.deepEqual(splitRuleList("Read,Bash(git diff:*) Edit", { spaces: true }), [
    "Read",
    "Bash(git diff:*)",
    "Edit",
  ]);
  assert.deepEqual(splitRuleList("Task(Explore, Plan), Read, Read"), ["Task(Explore, Plan)", "Read"]);
  assert.deepEqual(parseToolRule("Bash(*)"), { text: "Bash(*)", tool: "Bash" });
  assert.deepEqual(parseToolRule(" Task(Explore) "), {
    text: "Task(Explore)",
    tool: "Agent",
    specifier: "Explore",
  });
  const bad = parseRuleList(["Bash(npm", "9lives"]);
  assert.equal(bad.rules.length, 0);
  assert.equal(bad.problems.length, 2);
  assert.deepEqual(unknownRuleTools(rules("Read", "Bsah(ls)", "mcp__x__y"), ["Read", "Bash"]), ["Bsah"]);
  assert.deepEqual([...wholeToolsDenied(rules("Write", "Bash(rm:*)"))], ["Write"]);
});

Deno.test("every refusal of a Bash rule says which command hit it, or why Blade cannot tell", () => {
  const check = (set: Partial<RuleSet>, command: string) =>
    checkRules({ allow: [], deny: [], ask: [], ...set }, { tool: "Bash", input: { command } }, scope);
  assert.deepEqual(check({ deny: rules("Bash(touch:*)") }, "env -C . touch pwned"), {
    verdict: "deny",
    rule: rules("Bash(touch:*)")[0]!,
    why: " (it runs touch pwned)",
  });
  const dynamic = check({ deny: rules("Bash(touch:*)") }, "$'touch' pwned");
  assert.equal(dynamic.verdict, "deny");
  assert.match(
    "why" in dynamic ? dynamic.why ?? "" : "",
    /cannot tell what it runs: the command name \$'touch'/,
  );
  assert.deepEqual(check({ allow: rules("Bash(echo:*)") }, "echo ${x:-'}'};touch pwned #'"), {
    verdict: "none",
    why:
      "an allow rule matches only plain commands, and the word ${x:-'}'} is not a literal (parameter expansion ${…})",
  });
  assert.deepEqual(check({ allow: rules("Bash(find:*)") }, "find . -exec touch x \\;"), {
    verdict: "none",
    why: "find . -exec touch x ; runs another command through -exec, which Bash(find:*) does not name",
  });
});

Deno.test("WebFetch(domain:…): that host, or with *. its subdomains; ports and case do not matter", () => {
  const cases: [string, string, boolean][] = [
    ["domain:example.com", "https://example.com/a", true],
    ["domain:example.com", "http://EXAMPLE.com:8080/a", true],
    ["domain:example.com", "https://example.com./a", true],
    ["domain:example.com", "https://docs.example.com/a", false],
    ["domain:example.com", "https://example.com.evil.org/a", false],
    ["domain:*.example.com", "https://docs.example.com/a", true],
    ["domain:*.example.com", "https://a.b.example.com/a", true],
    ["domain:*.example.com", "https://example.com/a", false],
    ["domain:*.example.com", "https://badexample.com/a", false],
    ["example.com", "https://example.com/a", false],
    ["domain:127.0.0.1", "http://127.0.0.1:9/x", true],
  ];
  for (const [spec, url, match] of cases) {
    const set: RuleSet = { allow: rules(`WebFetch(${spec})`), deny: [], ask: [] };
    assert.equal(
      checkRules(set, { tool: "WebFetch", input: { url } }, scope).verdict,
      match ? "allow" : "none",
      `${spec} ${url}`,
    );
  }
  // A deny rule it cannot read (not a URL, not a domain: specifier) refuses.
  const deny: RuleSet = { allow: [], deny: rules("WebFetch(example.com)"), ask: [] };
  assert.equal(
    checkRules(deny, { tool: "WebFetch", input: { url: "https://x.org/" } }, scope).verdict,
    "deny",
  );
});
