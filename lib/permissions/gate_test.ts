import assert from "node:assert/strict";
import { decide, type GateInput } from "./gate.ts";
import { readScope } from "./read_scope.ts";
import { PERMISSION_MODES, type PermissionMode } from "../protocol/permission_mode.ts";
import { parseRuleList, type RuleSet } from "../protocol/tool_rule.ts";
import type { ToolKind } from "../protocol/tool_kind.ts";
import { loadBashParser } from "../shell/bash_parser.ts";

await loadBashParser();

const scope = { workspaceRoot: "/ws" };
const rules = (...t: string[]) => parseRuleList(t).rules;

function gate(over: Partial<GateInput> & { kind: ToolKind; name: string }): boolean {
  return decide({
    input: {},
    trusted: true,
    mode: "default",
    rules: { allow: [], deny: [], ask: [] },
    scope,
    ...over,
  }).allow;
}

// [mode, read, write, execute] with no rules, trusted
const TABLE: [PermissionMode, boolean, boolean, boolean][] = [
  ["plan", true, false, false],
  ["default", true, false, false],
  ["dontAsk", true, false, false],
  ["autoEdit", true, true, false],
  // Claude Code's auto mode without its classifier: writes (and, as every mode, read-only commands).
  ["auto", true, true, false],
  ["yolo", true, true, true],
];

Deno.test("every mode against every kind of tool, without rules", () => {
  assert.deepEqual(TABLE.map((r) => r[0]).sort(), [...PERMISSION_MODES].sort());
  for (const [mode, read, write, execute] of TABLE) {
    assert.equal(gate({ mode, kind: "read", name: "Read", path: "/ws/a" }), read, `${mode} read`);
    assert.equal(gate({ mode, kind: "write", name: "Write", path: "/ws/a" }), write, `${mode} write`);
    assert.equal(
      gate({ mode, kind: "execute", name: "Bash", input: { command: "npm test" } }),
      execute,
      `${mode} bash`,
    );
  }
});

Deno.test("auto: read-only commands and writes run; anything else needs the classifier Blade lacks", () => {
  const bash = (command: string) =>
    decide({
      input: { command },
      trusted: true,
      mode: "auto",
      rules: { allow: [], deny: [], ask: [] },
      scope,
      kind: "execute",
      name: "Bash",
    });
  assert.equal(bash("git status").allow, true);
  const refused = bash("npm test");
  assert.equal(refused.allow, false);
  assert.match(!refused.allow ? refused.message : "", /auto mode's safety check, which Blade does not have/);
  assert.equal(!refused.allow && refused.askable, true, "someone who can answer may approve it");
  // Protected paths are never auto-approved (as in Claude Code).
  assert.equal(
    gate({ mode: "auto", kind: "write", name: "Write", path: "/ws/.git/hooks/pre-commit" }),
    false,
  );
  assert.equal(gate({ mode: "auto", kind: "external", name: "mcp__x__y" }), false);
});

Deno.test("allow rules approve in default and dontAsk, never in plan; untrusted Bash stays refused", () => {
  const allow: RuleSet = { allow: rules("Bash(ls *)", "Write"), deny: [], ask: [] };
  for (const mode of ["default", "dontAsk"] as const) {
    assert.equal(
      gate({ mode, kind: "execute", name: "Bash", input: { command: "ls -l" }, rules: allow }),
      true,
    );
    assert.equal(gate({ mode, kind: "write", name: "Write", path: "/ws/a", rules: allow }), true);
  }
  assert.equal(gate({ mode: "plan", kind: "write", name: "Write", path: "/ws/a", rules: allow }), false);
  assert.equal(
    gate({ trusted: false, kind: "execute", name: "Bash", input: { command: "ls" }, rules: allow }),
    false,
  );
});

Deno.test("deny rules beat yolo and apply in untrusted folders, for reads too", () => {
  const deny: RuleSet = { allow: rules("Read"), deny: rules("Read(./secrets/**)"), ask: [] };
  for (const trusted of [true, false]) {
    const d = decide({
      name: "Read",
      kind: "read",
      input: { file_path: "secrets/k" },
      path: "/ws/secrets/k",
      trusted,
      mode: "yolo",
      rules: deny,
      scope,
    });
    assert.equal(d.allow, false);
    assert.match(
      !d.allow ? d.message : "",
      /Read on \/ws\/secrets\/k matches the deny rule Read\(\.\/secrets\/\*\*\)/,
    );
  }
});

Deno.test("an ask rule refuses in print mode and says so; an agent's tool limits narrow", () => {
  const ask: RuleSet = { allow: rules("Bash"), deny: [], ask: rules("Bash(git push:*)") };
  const d = decide({
    name: "Bash",
    kind: "execute",
    input: { command: "git push" },
    trusted: true,
    mode: "yolo",
    rules: ask,
    scope,
  });
  assert.equal(d.allow, false);
  assert.equal(!d.allow && d.askable, true);
  const limits = [rules("Bash(git:*)")];
  assert.equal(
    gate({ mode: "yolo", kind: "execute", name: "Bash", input: { command: "git log" }, limits }),
    true,
  );
  assert.equal(
    gate({ mode: "yolo", kind: "execute", name: "Bash", input: { command: "rm x" }, limits }),
    false,
  );
});

Deno.test("protected paths need yolo or an explicit allow rule", () => {
  for (
    const p of [
      "/ws/.git/hooks/pre-commit",
      "/ws/.claude/agents/x.md",
      "/ws/.blade/settings.json",
      "/ws/sub/.git/config",
    ]
  ) {
    assert.equal(gate({ mode: "autoEdit", kind: "write", name: "Write", path: p }), false, p);
    assert.equal(gate({ mode: "yolo", kind: "write", name: "Write", path: p }), true, p);
  }
  const allow: RuleSet = { allow: rules("Edit(.claude/agents/**)"), deny: [], ask: [] };
  assert.equal(
    gate({ mode: "autoEdit", kind: "write", name: "Write", path: "/ws/.claude/agents/x.md", rules: allow }),
    true,
  );
  assert.equal(gate({ mode: "autoEdit", kind: "write", name: "Write", path: "/ws/.github/x.yml" }), true);
  const d = decide({
    name: "Write",
    kind: "write",
    input: {},
    path: "/ws/.git/config",
    trusted: true,
    mode: "autoEdit",
    rules: { allow: [], deny: [], ask: [] },
    scope,
  });
  assert.match(
    !d.allow ? d.message : "",
    /Write may not write \/ws\/.git\/config: it is inside .git\/.*Edit\(.git\/config\)/,
  );
});

Deno.test("limits: every layer (the agent's and each ancestor's) must approve; an Edit layer limits Write too", () => {
  const layers = [rules("Bash(git:*)", "Edit(docs/**)", "Task"), rules("Bash(git status:*)", "Edit", "Task")];
  const call = (name: string, input: Record<string, unknown>, path?: string) =>
    gate({
      mode: "yolo",
      kind: name === "Bash" ? "execute" : name === "Task" ? "delegate" : "write",
      name,
      input,
      limits: layers,
      ...(path === undefined ? {} : { path }),
    });
  assert.equal(call("Bash", { command: "git status" }), true);
  assert.equal(call("Bash", { command: "git log" }), false, "outside the inner layer");
  assert.equal(call("Bash", { command: "touch pwned" }), false);
  assert.equal(call("Edit", { file_path: "/ws/docs/a.md" }, "/ws/docs/a.md"), true);
  assert.equal(call("Edit", { file_path: "/ws/src/app.ts" }, "/ws/src/app.ts"), false);
  assert.equal(
    call("Write", { file_path: "/ws/src/app.ts" }, "/ws/src/app.ts"),
    false,
    "Edit(docs/**) names Write",
  );
  assert.equal(call("Task", { subagent_type: "general-purpose" }), true);
});

Deno.test("web tools: a rule or yolo in every mode, plan included, trusted or not; deny by domain wins", () => {
  const fetchOf = (url: string) => ({
    kind: "network" as const,
    name: "WebFetch",
    input: { url, prompt: "p" },
  });
  const allow: RuleSet = {
    allow: rules("WebFetch(domain:docs.example.com)", "WebSearch"),
    deny: [],
    ask: [],
  };
  for (const mode of PERMISSION_MODES) {
    assert.equal(
      gate({ mode, ...fetchOf("https://docs.example.com/a") }),
      mode === "yolo",
      `${mode} no rule`,
    );
    for (const trusted of [true, false]) {
      assert.equal(
        gate({ mode, trusted, rules: allow, ...fetchOf("https://docs.example.com/a") }),
        true,
        mode,
      );
      assert.equal(
        gate({ mode, trusted, rules: allow, kind: "network", name: "WebSearch", input: { query: "q" } }),
        true,
      );
    }
    assert.equal(gate({ mode, rules: allow, ...fetchOf("https://example.com/a") }), mode === "yolo", mode);
  }
  const deny: RuleSet = { allow: rules("WebFetch"), deny: rules("WebFetch(domain:*.evil.example)"), ask: [] };
  assert.equal(gate({ mode: "yolo", rules: deny, ...fetchOf("https://a.evil.example/") }), false);
  assert.equal(gate({ mode: "yolo", rules: deny, ...fetchOf("https://evil.example/") }), true);
  // A URL the rules cannot read: an allow rule approves nothing, a deny rule refuses it.
  assert.equal(gate({ rules: allow, ...fetchOf("not a url") }), false);
  assert.equal(
    gate({
      mode: "yolo",
      rules: { allow: [], deny: rules("WebFetch(domain:x.example)"), ask: [] },
      ...fetchOf("::"),
    }),
    false,
  );
});

Deno.test("web tools: the refusal names the rule that would allow the call", () => {
  const d = decide({
    name: "WebFetch",
    kind: "network",
    input: { url: "https://Docs.Example.com:8443/page", prompt: "p" },
    trusted: true,
    mode: "default",
    rules: { allow: [], deny: [], ask: [] },
    scope,
  });
  assert.deepEqual(d, {
    allow: false,
    askable: true,
    allowWith: "WebFetch(domain:docs.example.com)",
    message:
      'Permission denied: WebFetch of "https://Docs.Example.com:8443/page" needs approval in permission ' +
      'mode "default", and print mode cannot ask. Re-run with --allowed-tools "WebFetch(domain:docs.example.com)" ' +
      "(or permission mode yolo).",
  });
  const search = decide({
    name: "WebSearch",
    kind: "network",
    input: { query: "deno" },
    trusted: true,
    mode: "dontAsk",
    rules: { allow: [], deny: [], ask: [] },
    scope,
  });
  assert.equal(search.allow, false);
  assert.match(
    (search as { message: string }).message,
    /permission mode "dontAsk" refuses everything else\. Re-run with --allowed-tools "WebSearch"/,
  );
});

Deno.test("read-only commands need no rule in default, plan, dontAsk and autoEdit; deny and ask rules still win", async () => {
  await loadBashParser();
  const bash = (command: string, over: Partial<GateInput> = {}) =>
    decide({
      name: "Bash",
      kind: "execute",
      input: { command },
      trusted: true,
      mode: "default",
      rules: { allow: [], deny: [], ask: [] },
      scope,
      ...over,
    });
  for (const mode of ["default", "plan", "dontAsk", "autoEdit"] as const) {
    for (const command of ["ls", "git status", "git diff --staged", "cat notes.txt", "pwd"]) {
      assert.deepEqual(
        bash(command, { mode }),
        { allow: true, readOnlyCommand: true },
        `${mode}: ${command}`,
      );
    }
    // Not exactly one plain read-only command: a rule is needed as before.
    for (
      const command of [
        "ls > out.txt",
        "touch x",
        "ls | wc -l",
        "echo $HOME",
        "ls; rm -rf x",
        "cat /etc/passwd",
      ]
    ) {
      assert.equal(bash(command, { mode }).allow, false, `${mode}: ${command}`);
    }
  }
  // In yolo everything runs anyway (not marked read-only); untrusted stays refused.
  assert.deepEqual(bash("ls", { mode: "yolo" }), { allow: true });
  assert.equal(bash("ls", { trusted: false }).allow, false);
  assert.equal(bash("ls", { input: { command: "ls", run_in_background: true } }).allow, false);
  const rules = (deny: string[], ask: string[] = []) => ({
    allow: [],
    deny: parseRuleList(deny).rules,
    ask: parseRuleList(ask).rules,
  });
  assert.match(
    (bash("git diff", { rules: rules(["Bash(git diff:*)"]) }) as { message: string }).message,
    /deny rule/,
  );
  assert.match(
    (bash("cat a", { rules: rules([], ["Bash(cat:*)"]) }) as { message: string }).message,
    /ask rule/,
  );
  // --add-dir folders count as the workspace.
  assert.equal(bash("cat /extra/a.txt").allow, false);
  assert.equal(bash("cat /extra/a.txt", { additionalDirs: ["/extra"] }).allow, true);
});

Deno.test("protected paths: only an allow rule that names the path approves it (not a bare Write, not Edit(**))", () => {
  const write = (path: string, ...allow: string[]) =>
    gate({
      mode: "default",
      kind: "write",
      name: "Write",
      path,
      input: { file_path: path },
      rules: { allow: rules(...allow), deny: [], ask: [] },
    });
  for (
    const p of [
      "/ws/.git/config",
      "/ws/.claude/settings.json",
      "/ws/.claude/settings.local.json",
      "/ws/.mcp.json",
    ]
  ) {
    assert.equal(write(p, "Write"), false, `bare Write: ${p}`);
    assert.equal(write(p, "Edit"), false, `bare Edit: ${p}`);
    assert.equal(write(p, "Edit(**)"), false, `Edit(**): ${p}`);
    assert.equal(write(p, "Write(*)"), false, `Write(*): ${p}`);
  }
  assert.equal(write("/ws/.mcp.json", "Write(.mcp.json)"), true);
  assert.equal(write("/ws/.claude/settings.json", "Edit(.claude/settings.json)"), true);
  assert.equal(
    write("/ws/.claude/settings.json", "Edit(.claude/agents/**)"),
    false,
    "names .claude, not this file",
  );
  assert.equal(write("/ws/src/a.ts", "Write"), true);
  // NotebookEdit writes as Write does (issue 32 item 4): a bare rule approves no protected path.
  const notebook = (path: string, ...allow: string[]) =>
    gate({
      mode: "default",
      kind: "write",
      name: "NotebookEdit",
      path,
      input: { notebook_path: path },
      rules: { allow: rules(...allow), deny: [], ask: [] },
    });
  for (const p of ["/ws/.claude/x.ipynb", "/ws/.git/hooks/x.ipynb", "/ws/.blade/x.ipynb"]) {
    assert.equal(notebook(p, "NotebookEdit"), false, `bare NotebookEdit: ${p}`);
    assert.equal(notebook(p, "Edit"), false, `bare Edit: ${p}`);
  }
  assert.equal(notebook("/ws/.claude/x.ipynb", "NotebookEdit(.claude/x.ipynb)"), true);
  assert.equal(notebook("/ws/nb/a.ipynb", "NotebookEdit"), true);
});

Deno.test("protected Bash: a rule naming .git approves only a command it matches itself", () => {
  const run = (command: string, ...allow: string[]) =>
    gate({
      mode: "default",
      kind: "execute",
      name: "Bash",
      input: { command },
      rules: { allow: rules(...allow), deny: [], ask: [] },
    });
  // The unrelated rule's text contains `.git`; before, that was enough to approve the copy into .git/hooks.
  assert.equal(run("cp hook .git/hooks/pre-commit", "Bash(cp:*)", "Bash(cat .gitignore)"), false);
  assert.equal(run("cp hook .git/hooks/pre-commit", "Bash(cp hook .git/hooks/pre-commit)"), true);
  assert.equal(run("cp hook .git/hooks/pre-commit", "Bash(cp:*)", "Bash(cp * .git/hooks/*)"), true);
});

Deno.test("reads: free inside the roots; elsewhere approval or a rule; credential folders and storage only by a naming rule", () => {
  const reads = readScope({
    workspaceRoot: "/ws",
    additionalDirs: ["/extra"],
    storageRoot: "/home/u/.blade",
    home: "/home/u",
  });
  const read = (path: string, mode: PermissionMode, ...allow: string[]) =>
    decide({
      name: "Read",
      kind: "read",
      input: { file_path: path },
      path,
      trusted: false,
      mode,
      rules: { allow: rules(...allow), deny: [], ask: [] },
      scope: { workspaceRoot: "/ws", home: "/home/u" },
      reads,
    });
  const table: [string, PermissionMode, string[], "allow" | "ask" | "deny"][] = [
    ["/ws/src/a.ts", "default", [], "allow"],
    ["/extra/notes.md", "plan", [], "allow"],
    ["/home/u/.blade/worktrees/repo-abc/agent+x/a.ts", "default", [], "allow"],
    ["/etc/passwd", "default", [], "ask"],
    ["/etc/passwd", "plan", [], "ask"],
    ["/etc/passwd", "yolo", [], "allow"],
    ["/etc/passwd", "default", ["Read"], "allow"],
    ["/etc/passwd", "default", ["Read(//etc/**)"], "allow"],
    ["/home/u/.ssh/id_rsa", "default", [], "deny"],
    ["/home/u/.ssh/id_rsa", "yolo", [], "deny"],
    ["/home/u/.ssh/id_rsa", "default", ["Read"], "deny"],
    ["/home/u/.ssh/id_rsa", "default", ["Read(~/.ssh/id_rsa)"], "allow"],
    ["/home/u/.aws/credentials", "yolo", [], "deny"],
    ["/home/u/.gnupg/private-keys-v1.d/x.key", "yolo", [], "deny"],
    ["/home/u/.config/gh/hosts.yml", "yolo", [], "deny"],
    ["/home/u/.config/other/x", "yolo", [], "allow"],
    ["/home/u/.blade/trust.json", "yolo", [], "deny"],
    ["/home/u/.blade/projects/-other-0123456789abcdef/s.jsonl", "yolo", ["Read"], "deny"],
  ];
  for (const [path, mode, allow, want] of table) {
    const d = read(path, mode, ...allow);
    const got = d.allow ? "allow" : d.askable ? "ask" : "deny";
    assert.equal(got, want, `${path} ${mode} [${allow}]: ${d.allow ? "" : d.message}`);
  }
  const ssh = read("/home/u/.ssh/id_rsa", "default");
  assert.match(
    !ssh.allow ? ssh.message : "",
    /Read on \/home\/u\/\.ssh\/id_rsa is refused: \/home\/u\/\.ssh holds credentials .* "Read\(\/\/home\/u\/\.ssh\/id_rsa\)"/,
  );
});
