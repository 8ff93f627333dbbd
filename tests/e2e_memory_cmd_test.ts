// End-to-end: `blade memory` (alias `blade context`) through the real CLI (docs/guides/memory.md): what a
// session in this folder loads from files and from where, with sizes in tokens — the user's CLAUDE.md, the
// project's with its @import, CLAUDE.local.md, skills and commands — the same as a `-p` run would load:
// project files only in a trusted folder, nothing with --bare. Text and --json.

import assert from "node:assert/strict";
import { bladeSandbox } from "./support/blade.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";

Deno.test("blade memory: every loaded file with its kind, origin and tokens; untrusted and --bare load no project file", async () => {
  await using box = await bladeSandbox();
  await Deno.mkdir(`${box.home}/.claude`, { recursive: true });
  await Deno.writeTextFile(`${box.home}/.claude/CLAUDE.md`, "USER-MEMORY ".repeat(10));
  await box.write("CLAUDE.md", "Project rules. See @docs/style.md\n");
  await box.write("docs/style.md", "Two spaces.\n");
  await box.write("CLAUDE.local.md", "My notes.\n");
  await box.write(".claude/skills/deploy/SKILL.md", "---\ndescription: Deploy\n---\nDeploy.\n");
  await box.write(".claude/commands/review.md", "Review $ARGUMENTS.\n");
  const ws = box.workspace;

  const trusted = await box.run(["memory", "--trust-workspace"]);
  assert.equal(trusted.code, 0, trusted.stderr);
  const lines = trusted.stdout.split("\n");
  const row = (kind: string, path: string) =>
    lines.find((l) => new RegExp(`^\\s+[\\d,]+ tokens\\s+${kind}\\s+${path.replaceAll(".", "\\.")}`).test(l));
  assert.match(lines[0]!, /^Memory of .* \(trusted\)$/);
  assert.ok(row("user", `${box.home}/.claude/CLAUDE.md`), trusted.stdout);
  assert.ok(row("project", `${ws}/CLAUDE.md`), trusted.stdout);
  assert.match(row("project", `${ws}/docs/style.md`) ?? "", /\(imported by .*\/CLAUDE\.md\)/, trusted.stdout);
  assert.ok(row("local", `${ws}/CLAUDE.local.md`), trusted.stdout);
  assert.match(trusted.stdout, /Total: [\d,]+ tokens in 4 files/);
  assert.match(trusted.stdout, /deploy\s+.*\/\.claude\/skills\/deploy\/SKILL\.md/);
  assert.match(trusted.stdout, /\/review\s+.*\/\.claude\/commands\/review\.md/);

  const json = await box.run(["context", "--json", "--trust-workspace"]);
  assert.equal(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as {
    memory: { path: string; tokens: number }[];
    totalTokens: number;
  };
  assert.equal(parsed.memory.length, 4);
  assert.equal(parsed.totalTokens, parsed.memory.reduce((n, f) => n + f.tokens, 0));
  assert.ok(parsed.memory.find((f) => f.path.endsWith("/.claude/CLAUDE.md"))!.tokens >= 30);

  const untrusted = await box.run(["memory"]);
  assert.equal(untrusted.code, 0, untrusted.stderr);
  assert.match(untrusted.stdout, /tokens\s+user\s+.*\/\.claude\/CLAUDE\.md/);
  assert.match(untrusted.stdout, /Project memory is not loaded: this folder is not trusted/);
  assert.doesNotMatch(untrusted.stdout, new RegExp(`${ws.replaceAll(".", "\\.")}/CLAUDE\\.md`));
  assert.doesNotMatch(untrusted.stdout, /deploy|\/review/);

  const bare = await box.run(["memory", "--bare", "--trust-workspace"]);
  assert.equal(bare.code, 0, bare.stderr);
  assert.match(bare.stdout, /--bare: no memory, commands or skills are loaded from files\./);
});

Deno.test("memory: a managed CLAUDE.md (BLADE_MANAGED_DIR) is listed first and reaches the model first, before the user's", async () => {
  await using box = await bladeSandbox();
  const managed = `${box.root}/managed`;
  await Deno.mkdir(managed, { recursive: true });
  await Deno.writeTextFile(`${managed}/CLAUDE.md`, "MANAGED-POLICY\n");
  await Deno.mkdir(`${box.home}/.claude`, { recursive: true });
  await Deno.writeTextFile(`${box.home}/.claude/CLAUDE.md`, "USER-MEMORY\n");
  await box.write("CLAUDE.md", "PROJECT-MEMORY\n");
  const env = { BLADE_MANAGED_DIR: managed, BLADE_TRUST_WORKSPACE: "1" };
  const listed = await box.run(["memory"], { env });
  assert.equal(listed.code, 0, listed.stderr);
  const kinds = listed.stdout.split("\n").flatMap((l) => /^\s+[\d,]+ tokens\s+(\S+)/.exec(l)?.slice(1) ?? []);
  assert.deepEqual(kinds, ["managed", "user", "project"], listed.stdout);
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "ok" }) });
  const run = await box.run(["-p", "hi"], {
    env: { ...env, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" },
  });
  assert.equal(run.code, 0, run.stderr);
  const sent = JSON.stringify((server.requests[0]!.body as { messages: unknown[] }).messages[0]);
  const at = ["MANAGED-POLICY", "USER-MEMORY", "PROJECT-MEMORY"].map((m) => sent.indexOf(m));
  assert.ok(at.every((i) => i > 0) && at[0]! < at[1]! && at[1]! < at[2]!, sent);
});

Deno.test("memory: a verification agent gets no memory block; a general-purpose child does", async () => {
  await using box = await bladeSandbox();
  await box.write("CLAUDE.md", "PROJECT-MEMORY\n");
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      const sent = JSON.stringify(req.body);
      if (sent.includes("AUDIT-TASK") || sent.includes("HELP-TASK")) return fakeTurn({ text: "done" });
      if (sent.includes('"tool_result"')) return fakeTurn({ text: "finished" });
      return fakeTurn({
        toolCalls: [
          {
            name: "Task",
            input: { subagent_type: "verification", description: "Audit", prompt: "AUDIT-TASK" },
          },
          {
            name: "Task",
            input: { subagent_type: "general-purpose", description: "Help", prompt: "HELP-TASK" },
          },
        ],
      });
    },
  });
  await box.run(["-p", "go"], {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", BLADE_TRUST_WORKSPACE: "1" },
  });
  const firstOf = (marker: string) => {
    const r = server.requests.find((r) => JSON.stringify(r.body).includes(marker));
    assert.ok(r !== undefined, marker);
    return JSON.stringify((r.body as { messages: unknown[] }).messages[0]);
  };
  assert.doesNotMatch(firstOf("AUDIT-TASK"), /PROJECT-MEMORY/);
  assert.match(firstOf("HELP-TASK"), /PROJECT-MEMORY/);
});
