// End-to-end: custom slash commands and skills through the real CLI against a fake model server
// (docs/guides/memory.md): allowed-tools narrow and never widen (of a command and of a loaded skill), a
// `!`command`` the gate refuses stops the run before any request, an unknown /name is sent as typed
// (said in --debug), Blade's built-ins win over a command file, untrusted folders load no project
// command or skill, and `Skill(name)` deny rules refuse a skill.

import assert from "node:assert/strict";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { bladeSandbox } from "./support/blade.ts";
import { mentions, toolResultCount } from "./support/claude_context_cases.ts";
import { osSandbox } from "../lib/sys/os_sandbox.ts";

type Body = {
  model: string;
  messages: { role: string; content: { type: string; text?: string; content?: string }[] }[];
};

function lastResults(body: Body): string[] {
  return body.messages.at(-1)!.content.filter((b) => b.type === "tool_result").map((b) => String(b.content));
}

function userTexts(body: Body): string[] {
  return body.messages.filter((m) => m.role === "user").flatMap((m) => m.content).filter((b) =>
    b.type === "text"
  )
    .map((b) => b.text ?? "");
}

const REVIEW = "---\nallowed-tools: Read, Bash(echo:*)\n---\nReview $ARGUMENTS.\n";

Deno.test("commands: allowed-tools narrow the turn (Write refused, Read allowed) and never approve", async () => {
  await using box = await bladeSandbox();
  await box.write(".claude/commands/review.md", REVIEW);
  await box.write("a.txt", "text\n");
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      if (req.path !== "/v1/messages") return new Response("{}", { status: 404 });
      switch (toolResultCount(req.body)) {
        case 0:
          return fakeTurn({
            toolCalls: [
              { name: "Read", input: { file_path: "a.txt" } },
              { name: "Write", input: { file_path: "b.txt", content: "x" } },
              { name: "Bash", input: { command: "echo hi" } },
            ],
          });
        default:
          return fakeTurn({ text: "Done." });
      }
    },
  });
  const env = {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    BLADE_TRUST_WORKSPACE: "1",
  };
  // Even in yolo mode (Write and Bash would be allowed), the command's list narrows the turn.
  const run = await box.run(["-p", "/review a.txt", "--permission-mode", "yolo", "--output-format", "json"], {
    env,
  });
  assert.equal(run.code, 0, run.stderr);
  const results = lastResults(server.requests.at(-1)!.body as unknown as Body);
  assert.match(results[0]!, /text/);
  assert.equal(
    results[1],
    "Write is refused: /review allows only Read, Bash(echo:*) (its allowed-tools narrow what this turn may use).",
  );
  assert.match(results[2]!, /^hi/);
  await assert.rejects(Deno.stat(`${box.workspace}/b.txt`));

  // In default print mode the command's Bash(echo:*) approves nothing: the run's gate still refuses.
  server.requests.length = 0;
  const plain = await box.run(["-p", "/review a.txt", "--output-format", "json"], { env });
  // Every change the run asked for (Write, Bash) was refused: it does not succeed (exit 1).
  assert.equal(plain.code, 1, plain.stderr);
  assert.match(lastResults(server.requests.at(-1)!.body as unknown as Body)[2]!, /Bash/);
  assert.doesNotMatch(lastResults(server.requests.at(-1)!.body as unknown as Body)[2]!, /^hi/);
});

Deno.test("commands: a refused !`command` stops the run before any request, naming the command", async () => {
  await using box = await bladeSandbox();
  await box.write(".claude/commands/check.md", "Status: !`touch made.txt`\n");
  await using server = startFakeAnthropicServer([fakeTurn({ text: "never" })]);
  const env = {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    BLADE_TRUST_WORKSPACE: "1",
  };
  const run = await box.run(["-p", "/check", "--output-format", "json"], { env });
  assert.equal(run.code, 1);
  const result = JSON.parse(run.stdout) as { is_error: boolean; error: { code: string; message: string } };
  assert.equal(result.is_error, true);
  assert.equal(result.error.code, "command_refused");
  assert.match(result.error.message, /^\/check runs `touch made\.txt`, which did not run: /);
  assert.equal(server.requests.length, 0);
  await assert.rejects(Deno.stat(`${box.workspace}/made.txt`));
});

Deno.test("commands and skills: a project file linking out of the project, or a FIFO, is never read; naming it says why", async () => {
  await using box = await bladeSandbox();
  const secret = `${box.home}/secret.txt`;
  await Deno.writeTextFile(secret, "TOP-SECRET-TEXT\n");
  await box.write(".claude/commands/keep.md", "placeholder");
  await Deno.symlink(secret, `${box.workspace}/.claude/commands/leak.md`);
  await new Deno.Command("mkfifo", { args: [`${box.workspace}/.claude/commands/pipe.md`] }).output();
  await box.write(".claude/skills/keep/SKILL.md", "placeholder");
  await Deno.mkdir(`${box.workspace}/.claude/skills/leak`);
  await Deno.symlink(secret, `${box.workspace}/.claude/skills/leak/SKILL.md`);
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "answered" }) });
  const env = {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    BLADE_TRUST_WORKSPACE: "1",
  };
  for (
    const [name, why] of [["leak", `it leads outside the project \\(to ${secret}\\)`], [
      "pipe",
      "it is a FIFO",
    ]]
  ) {
    const run = await box.run(["-p", `/${name}`, "--output-format", "json"], { env });
    assert.equal(run.code, 1, run.stderr);
    const result = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    assert.equal(result.error.code, "command_refused");
    assert.match(
      result.error.message,
      new RegExp(`^The command /${name} was not run: .*/\\.claude/commands/${name}\\.md: ${why}`),
    );
  }
  assert.equal(server.requests.length, 0, "nothing was sent");
  // The skill that links out is not listed to the model; the other one is.
  const run = await box.run(["-p", "hello"], { env });
  assert.equal(run.code, 0, run.stderr);
  const sent = JSON.stringify(server.requests.map((r) => r.body));
  assert.match(sent, /- keep: placeholder/);
  assert.doesNotMatch(sent, /TOP-SECRET|- leak:/);
});

Deno.test("commands: unknown /name is sent as typed (said with --debug); built-ins win over files", async () => {
  await using box = await bladeSandbox();
  await box.write(".claude/commands/memory.md", "SHADOWED-BODY\n");
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "ok" }) });
  const env = {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    BLADE_TRUST_WORKSPACE: "1",
  };
  const unknown = await box.run(["-p", "/nosuch some words", "--debug"], { env });
  assert.equal(unknown.code, 0, unknown.stderr);
  assert.deepEqual(userTexts(server.requests[0]!.body as unknown as Body), ["/nosuch some words"]);
  assert.match(
    unknown.stderr,
    /\[debug\] \/nosuch: no custom command of that name in .*; the prompt is sent as typed/,
  );
  const shadowed = await box.run(["-p", "/memory"], { env });
  assert.equal(shadowed.code, 0, shadowed.stderr);
  assert.deepEqual(userTexts(server.requests[1]!.body as unknown as Body), ["/memory"]);
  assert.match(
    shadowed.stderr,
    /warning: \/memory is Blade's own; the custom command .*\.claude\/commands\/memory\.md is not used/,
  );
});

Deno.test("commands and skills: an untrusted folder loads only the user's", async () => {
  await using box = await bladeSandbox();
  await box.write(".claude/commands/proj.md", "PROJECT-COMMAND\n");
  await box.write(".claude/skills/proj-skill/SKILL.md", "---\ndescription: project skill\n---\nP\n");
  await Deno.mkdir(`${box.home}/.claude/commands`, { recursive: true });
  await Deno.writeTextFile(`${box.home}/.claude/commands/mine.md`, "USER-COMMAND $ARGUMENTS\n");
  await Deno.mkdir(`${box.home}/.claude/skills/mine-skill`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.claude/skills/mine-skill/SKILL.md`,
    "---\ndescription: user skill\n---\nU\n",
  );
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "ok" }) });
  const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" };
  assert.equal((await box.run(["-p", "/proj"], { env })).code, 0);
  assert.equal((await box.run(["-p", "/mine x"], { env })).code, 0);
  const [proj, mine] = server.requests.map((r) => userTexts(r.body as unknown as Body));
  assert.ok(proj!.includes("/proj"));
  assert.ok(mine!.includes("USER-COMMAND x\n"));
  const listing = mine!.find((t) => t.includes("The following skills"))!;
  assert.match(listing, /- mine-skill: user skill/);
  assert.doesNotMatch(listing, /proj-skill/);
});

Deno.test("skills: a loaded skill narrows the rest of the turn; Skill(name) deny rules refuse it", async () => {
  await using box = await bladeSandbox();
  await box.write(
    ".claude/skills/safe/SKILL.md",
    "---\ndescription: read only\nallowed-tools: Read\n---\nOnly read.\n",
  );
  await box.write("a.txt", "text\n");
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      if (req.path !== "/v1/messages") return new Response("{}", { status: 404 });
      switch (toolResultCount(req.body)) {
        case 0:
          return fakeTurn({ toolCalls: [{ name: "Skill", input: { skill: "safe" } }] });
        case 1:
          return fakeTurn({
            toolCalls: [
              { name: "Read", input: { file_path: "a.txt" } },
              { name: "Bash", input: { command: "echo no" } },
            ],
          });
        default:
          return fakeTurn({ text: "Done." });
      }
    },
  });
  const env = {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    BLADE_TRUST_WORKSPACE: "1",
  };
  const run = await box.run(["-p", "go", "--permission-mode", "yolo"], { env });
  // Its one change (Bash) was refused by the skill's narrowing: the run does not succeed.
  assert.equal(run.code, 1, run.stderr);
  const results = lastResults(server.requests.at(-1)!.body as unknown as Body);
  assert.match(results[0]!, /text/);
  assert.equal(
    results[1],
    "Bash is refused: the skill safe allows only Read (its allowed-tools narrow what this turn may use).",
  );
  server.requests.length = 0;
  const denied = await box.run(["-p", "go", "--disallowed-tools", "Skill(safe)"], { env });
  // Its one change (Bash, default mode) was refused too: the run does not succeed.
  assert.equal(denied.code, 1, denied.stderr);
  assert.match(lastResults(server.requests[1]!.body as unknown as Body)[0]!, /deny rule Skill\(safe\)/);
});

Deno.test("commands: a stream-json user message naming a command is expanded like a -p prompt", async () => {
  await using box = await bladeSandbox();
  await box.write(".claude/commands/greet.md", "Greet $ARGUMENTS politely.\n");
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "Hello." }) });
  const line = (text: string) =>
    JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text }] } }) + "\n";
  const run = await box.run(["-p", "--input-format", "stream-json", "--output-format", "stream-json"], {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", BLADE_TRUST_WORKSPACE: "1" },
    stdin: line("/greet Ada") + line("plain words"),
  });
  assert.equal(run.code, 0, run.stderr);
  const [first, second] = server.requests.map((r) => userTexts(r.body as unknown as Body));
  assert.deepEqual(first, [
    "<command-message>greet</command-message>\n<command-name>/greet</command-name>\n<command-args>Ada</command-args>\n",
    "Greet Ada politely.\n",
  ]);
  assert.equal(second!.at(-1), "plain words");
});

Deno.test("memory: `blade run` gives its child the folder's memory as a Task child gets it", async () => {
  await using box = await bladeSandbox();
  await box.write("CLAUDE.md", "RUN-CHILD-MEMORY\n");
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "done" }) });
  const env = {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    BLADE_TRUST_WORKSPACE: "1",
  };
  const run = await box.run(["run", "general-purpose", "say done, then stop"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    userTexts(server.requests[0]!.body as unknown as Body)[0]!,
    /^<system-reminder>\nCodebase[\s\S]*RUN-CHILD-MEMORY/,
  );
});

Deno.test({
  name:
    "commands: a !`command` runs in the session's OS sandbox (it writes the workspace, never a protected path)",
  ignore: (await osSandbox()) !== "bwrap",
  async fn() {
    await using box = await bladeSandbox();
    // yolo: the gate lets both writes through; only the sandbox keeps .git/hooks read-only.
    await box.write(".git/hooks/keep", "");
    await box.write(
      ".claude/commands/probe.md",
      "Result: !`(echo x > made.txt) && echo workspace-ok; (echo x > .git/hooks/pre-commit) 2>/dev/null && echo hooks-written || echo hooks-refused`\n",
    );
    await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "ok" }) });
    const env = {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "sk-ant-test",
      BLADE_TRUST_WORKSPACE: "1",
    };
    const run = await box.run(["-p", "/probe", "--permission-mode", "yolo"], { env });
    assert.equal(run.code, 0, run.stderr);
    const body = userTexts(server.requests[0]!.body as unknown as Body).at(-1)!;
    assert.match(body, /workspace-ok\nhooks-refused/);
    await Deno.stat(`${box.workspace}/made.txt`);
    await assert.rejects(Deno.stat(`${box.workspace}/.git/hooks/pre-commit`));
  },
});

Deno.test("skills: a user skill's folder is readable without asking, by the session and a Worker child; nothing beside it", async () => {
  await using box = await bladeSandbox();
  const dir = `${box.home}/.claude/skills/deploy`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/SKILL.md`,
    "---\ndescription: Deploy\n---\nRead reference.md here first.\n",
  );
  await Deno.writeTextFile(`${dir}/reference.md`, "THE-REFERENCE\n");
  await Deno.writeTextFile(`${box.home}/.claude/private.md`, "NOT-A-SKILL-FILE\n");
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      if (req.path !== "/v1/messages") return new Response("{}", { status: 404 });
      // Session and child alike: load the skill, read in its folder and beside it; then the session delegates.
      switch (toolResultCount(req.body)) {
        case 0:
          return fakeTurn({ toolCalls: [{ name: "Skill", input: { skill: "deploy" } }] });
        case 1:
          return fakeTurn({
            toolCalls: [
              { name: "Read", input: { file_path: `${dir}/reference.md` } },
              { name: "Grep", input: { pattern: "REFERENCE", path: dir } },
              { name: "Read", input: { file_path: `${box.home}/.claude/private.md` } },
            ],
          });
        case 4:
          return mentions(req.body, "CHILD-TASK") ? fakeTurn({ text: "child done" }) : fakeTurn({
            toolCalls: [{
              name: "Task",
              input: { subagent_type: "general-purpose", description: "Deploy", prompt: "CHILD-TASK deploy" },
            }],
          });
        default:
          return fakeTurn({ text: "Done." });
      }
    },
  });
  const env = {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    BLADE_TRUST_WORKSPACE: "1",
  };
  const run = await box.run(["-p", "go"], { env });
  assert.equal(run.code, 0, run.stderr);
  const afterReads = server.requests.filter((r) => toolResultCount(r.body) === 4);
  assert.equal(afterReads.length, 2, "the session's and the child's");
  for (const { body } of afterReads) {
    const [read, grep, beside] = lastResults(body as unknown as Body);
    const who = mentions(body, "CHILD-TASK") ? "child" : "session";
    assert.match(read!, /THE-REFERENCE/, who);
    assert.match(grep!, /reference\.md/, who);
    // Refused: by the gate in the session, by the Worker's Deno read grant in the child.
    assert.match(beside!, /needs approval: it is outside the workspace|outside this agent's access/, who);
    assert.doesNotMatch(beside!, /NOT-A-SKILL-FILE/, who);
  }
});
