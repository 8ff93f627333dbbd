// End-to-end: where Claude Code's user-level files come from and settings' extra folders
// (docs/guides/memory.md): CLAUDE_CONFIG_DIR moves `~/.claude` (memory, settings, commands, skills,
// agents) and `~/.claude.json`; settings `permissions.additionalDirectories` add folders as `--add-dir`
// does (a project's only when trusted; a missing one is left out).

import assert from "node:assert/strict";
import { fakeTurn, startFakeAnthropicServer, systemText } from "../lib/testing/fake_anthropic_server.ts";
import { bladeSandbox } from "./support/blade.ts";

type Body = {
  model: string;
  system: string;
  messages: { role: string; content: { type: string; text?: string }[] }[];
};
const texts = (b: Body) => b.messages.flatMap((m) => m.content).map((c) => c.text ?? "");

async function tree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${root}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${root}/${path}`, text);
  }
}

Deno.test("CLAUDE_CONFIG_DIR replaces ~/.claude for memory, settings, commands, skills and agents", async () => {
  await using box = await bladeSandbox();
  const config = `${box.root}/claude-config`;
  await tree(config, {
    "CLAUDE.md": "CONFIG-DIR-MEMORY\n",
    "settings.json": JSON.stringify({ model: "claude-config-dir-model" }),
    "commands/hello.md": "CONFIG-DIR-COMMAND $ARGUMENTS\n",
    "skills/tidy/SKILL.md": "---\ndescription: CONFIG-DIR-SKILL\n---\nTidy.\n",
    "agents/helper.md": "---\nname: config-helper\ndescription: CONFIG-DIR-AGENT\n---\nHelp.\n",
  });
  await tree(box.home, { ".claude/CLAUDE.md": "HOME-MEMORY-NOT-LOADED\n" });
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "ok" }) });
  const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", CLAUDE_CONFIG_DIR: config };
  const run = await box.run(["-p", "/hello there"], { env });
  assert.equal(run.code, 0, run.stderr);
  const body = server.requests[0]!.body as unknown as Body;
  const all = texts(body).join("\n");
  assert.match(all, new RegExp(`Contents of ${config}/CLAUDE.md \\(user's private global instructions`));
  assert.doesNotMatch(all, /HOME-MEMORY-NOT-LOADED/);
  assert.match(all, /CONFIG-DIR-COMMAND there/);
  assert.match(all, /- tidy: CONFIG-DIR-SKILL/);
  assert.equal(body.model, "claude-config-dir-model");
  assert.match(JSON.stringify(body), /config-helper/);
});

Deno.test("settings permissions.additionalDirectories add folders like --add-dir", async () => {
  await using box = await bladeSandbox();
  const shared = `${box.root}/shared`;
  await Deno.mkdir(shared);
  await box.write(
    ".claude/settings.json",
    JSON.stringify({ permissions: { additionalDirectories: ["../shared", "../missing"] } }),
  );
  const write = fakeTurn({
    toolCalls: [{ name: "Write", input: { file_path: `${shared}/out.txt`, content: "made\n" } }],
  });
  await using server = startFakeAnthropicServer({
    handler: (req) => (req.body.messages ?? []).length === 1 ? write : fakeTurn({ text: "done" }),
  });
  const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" };
  const base = ["-p", "write it", "--permission-mode", "acceptEdits", "--output-format", "json"];
  // Untrusted: the project's settings add nothing (and its Write is refused as outside the workspace).
  const untrusted = await box.run(base, { env });
  assert.equal(JSON.parse(untrusted.stdout).permission_denials.length, 1, untrusted.stdout);
  await assert.rejects(Deno.stat(`${shared}/out.txt`));
  const trusted = await box.run(base, { env: { ...env, BLADE_TRUST_WORKSPACE: "1" } });
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.deepEqual(JSON.parse(trusted.stdout).permission_denials, []);
  assert.equal(await Deno.readTextFile(`${shared}/out.txt`), "made\n");
  assert.match(
    systemText(server.requests.at(-1)!.body),
    new RegExp(`Additional working directories: ${shared}$`, "m"),
  );
});
