// Claude Code's headless command lines through Blade (docs/guides/migrating-from-claude-code.md): each
// breakage issue 14 lists, reproduced against the fake server — flags that used to exit 2, variadic
// --allowedTools, failures before the run as a result object, errors on stdout, session ids.

import assert from "node:assert/strict";
import {
  type FakeAnthropicServer,
  fakeStatus,
  fakeTurn,
  startFakeAnthropicServer,
} from "../lib/testing/fake_anthropic_server.ts";
import { bladeSandbox } from "./support/blade.ts";

const env = (server: FakeAnthropicServer) => ({
  ANTHROPIC_BASE_URL: server.url,
  ANTHROPIC_API_KEY: "sk-ant-test",
});

function lastToolResults(request: FakeAnthropicServer["requests"][number]): string {
  const messages = (request.body.messages ?? []) as unknown as {
    content: { type: string; content?: unknown }[];
  }[];
  return (messages.at(-1)?.content ?? []).filter((b) => b.type === "tool_result").map((b) =>
    JSON.stringify(b.content)
  ).join("\n");
}

function userTexts(server: FakeAnthropicServer, n: number): string[] {
  const messages = (server.requests[n]!.body.messages ?? []) as unknown as {
    role: string;
    content: { type: string; text?: string }[];
  }[];
  return messages.filter((m) => m.role === "user").flatMap((m) => m.content).filter((b) => b.type === "text")
    .map((b) => b.text!);
}

Deno.test("claude flags: --allowedTools Read Edit (space-separated) are two rules, not part of the prompt", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "one\n");
  await using server = startFakeAnthropicServer([
    fakeTurn({
      toolCalls: [{
        name: "Edit",
        input: { file_path: `${sandbox.workspace}/a.txt`, old_string: "one", new_string: "two" },
      }],
    }),
    fakeTurn({ text: "Edited." }),
  ]);
  const run = await sandbox.run(
    [
      "-p",
      "change one to two",
      "--allowedTools",
      "Read",
      "Edit",
      "--trust-workspace",
      "--output-format",
      "json",
    ],
    { env: env(server) },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(userTexts(server, 0), ["change one to two"]);
  assert.equal(
    await Deno.readTextFile(`${sandbox.workspace}/a.txt`),
    "two\n",
    "Edit was allowed by the second rule",
  );
});

Deno.test("claude flags: every flag claude-code-action and SDK wrappers pass is accepted (never exit 2)", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.writeTextFile(`${sandbox.workspace}/sys.md`, "You are terse.");
  await Deno.writeTextFile(`${sandbox.workspace}/extra.md`, "Answer in English.");
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "ok" }) });
  const run = await sandbox.run([
    "-p",
    "hi",
    "--verbose",
    "--output-format",
    "stream-json",
    "--include-partial-messages",
    "--system-prompt-file",
    "sys.md",
    "--append-system-prompt-file",
    "extra.md",
    "--tools",
    "Read,Grep",
    "--session-id",
    "0b9c4c1e-4a57-4f8e-9d49-6c1f0d2a7e11",
    "--permission-prompt-tool",
    "mcp__auth__prompt",
    "--no-session-persistence",
    "--max-budget-usd",
    "5",
  ], { env: env(server) });
  assert.equal(run.code, 0, run.stderr);
  // An MCP approval tool is honoured (asked only when a call needs approval); this one is never asked.
  assert.doesNotMatch(run.stderr, /--permission-prompt-tool/);
  for (const flag of ["--no-session-persistence"]) {
    assert.equal(
      run.stderr.split("\n").filter((l) => l.includes(flag)).length,
      1,
      `one warning naming ${flag}`,
    );
  }
  const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines[0].session_id, "0b9c4c1e-4a57-4f8e-9d49-6c1f0d2a7e11");
  assert.ok(
    lines.some((l) => l.type === "stream_event"),
    "--include-partial-messages adds stream_event lines",
  );
  const body = server.requests[0]!.body as unknown as { system: unknown; tools: { name: string }[] };
  const system = JSON.stringify(body.system);
  assert.match(system, /You are terse\./);
  assert.match(system, /Answer in English\./);
  assert.deepEqual(body.tools.map((t) => t.name).sort(), ["Grep", "Read"]);
  assert.equal(lines.at(-1).session_id, "0b9c4c1e-4a57-4f8e-9d49-6c1f0d2a7e11");
});

Deno.test("claude flags: --print with --system-prompt and --append-system-prompt sets the system prompt; --disallowedTools takes a tool away, bypassPermissions or not", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "one\n");
  await using server = startFakeAnthropicServer([
    fakeTurn({
      toolCalls: [{
        name: "Edit",
        input: { file_path: `${sandbox.workspace}/a.txt`, old_string: "one", new_string: "two" },
      }],
    }),
    fakeTurn({ text: "Could not edit." }),
  ]);
  const run = await sandbox.run([
    "--print",
    "change one to two",
    "--system-prompt",
    "You are the migration probe.",
    "--append-system-prompt",
    "Always answer in French.",
    "--disallowedTools",
    "Edit",
    "--permission-mode",
    "bypassPermissions",
    "--trust-workspace",
    "--output-format",
    "json",
  ], { env: env(server) });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).result, "Could not edit.", "--print is -p");
  const system = JSON.stringify(server.requests[0]!.body.system);
  assert.match(system, /You are the migration probe\./);
  assert.match(system, /Always answer in French\./);
  assert.doesNotMatch(system, /You are Blade/, "--system-prompt replaces Blade's own");
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/a.txt`), "one\n", "the denied Edit did not run");
  const tools = (server.requests[0]!.body as unknown as { tools: { name: string }[] }).tools.map((t) =>
    t.name
  );
  assert.ok(
    tools.includes("Read") && !tools.includes("Edit"),
    `--disallowedTools Edit: the model is offered ${tools}`,
  );
  assert.match(lastToolResults(server.requests[1]!), /Unknown tool \\"Edit\\"/);
});

Deno.test("claude flags: --max-turns 1 ends the run after one model turn with error_max_turns", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.writeTextFile(`${sandbox.workspace}/notes.txt`, "hello\n");
  const read = () =>
    fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: `${sandbox.workspace}/notes.txt` } }] });
  await using server = startFakeAnthropicServer({ handler: read });
  const run = await sandbox.run(["-p", "read it forever", "--max-turns", "1", "--output-format", "json"], {
    env: env(server),
  });
  assert.equal(run.code, 1, run.stderr);
  const result = JSON.parse(run.stdout);
  // num_turns 2, as Claude Code counts it for --max-turns 1 (tests/fixtures/claude/max_turns/json.json).
  assert.deepEqual([result.subtype, result.is_error, result.num_turns], ["error_max_turns", true, 2]);
  assert.equal(server.requests.filter((r) => r.path === "/v1/messages").length, 1);
});

Deno.test("claude flags: --resume <uuid> --fork-session continues a copy under a new id", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "noted" }) });
  const id = "7d3f2c52-1b7e-4c1a-a1c6-0c8a1f6b2e33";
  const first = await sandbox.run(
    ["-p", "remember pineapple", "--session-id", id, "--output-format", "json"],
    {
      env: env(server),
    },
  );
  assert.equal(JSON.parse(first.stdout).session_id, id);
  const again = await sandbox.run(["-p", "x", "--session-id", id, "--output-format", "json"], {
    env: env(server),
  });
  assert.equal(again.code, 1);
  assert.equal(JSON.parse(again.stdout).error.code, "session_exists");
  const fork = await sandbox.run([
    "-p",
    "what word?",
    "--resume",
    id,
    "--fork-session",
    "--output-format",
    "json",
  ], {
    env: env(server),
  });
  assert.equal(fork.code, 0, fork.stderr);
  const forkId = JSON.parse(fork.stdout).session_id;
  assert.notEqual(forkId, id);
  assert.deepEqual(userTexts(server, server.requests.length - 1), ["remember pineapple", "what word?"]);
  const resumed = await sandbox.run(["-p", "again?", "--continue", "--output-format", "json"], {
    env: env(server),
  });
  assert.equal(
    JSON.parse(resumed.stdout).session_id,
    forkId,
    "--continue finds the newest session (a UUID one)",
  );
});

Deno.test("claude flags: a failure before the run is a result object in json and stream-json", async () => {
  await using sandbox = await bladeSandbox();
  for (const format of ["json", "stream-json"]) {
    const run = await sandbox.run(["-p", "hi", "--output-format", format, "--verbose"], {
      env: { ANTHROPIC_API_KEY: "" },
    });
    assert.equal(run.code, 1, run.stderr);
    const r = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
    assert.deepEqual([r.type, r.subtype, r.is_error], ["result", "error_during_execution", true]);
    assert.equal(r.error.code, "missing_api_key");
    assert.equal(r.result, r.error.message, "result carries the error text");
  }
});

Deno.test("claude flags: an empty ANTHROPIC_API_KEY counts as unset; text errors reach a captured stdout", async () => {
  await using sandbox = await bladeSandbox();
  const run = await sandbox.run(["-p", "hi"], { env: { ANTHROPIC_API_KEY: "" } });
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^Error: No Anthropic API key/);
  assert.match(run.stderr, /^blade: No Anthropic API key/);
});

Deno.test("claude flags: --max-budget-usd stops the run once its cost passes the budget", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "x\n");
  // Each turn costs 1M input tokens at $2 (claude-sonnet-5-5): over a $1 budget after the first.
  await using server = startFakeAnthropicServer({
    handler: () =>
      fakeTurn({
        toolCalls: [{ name: "Read", input: { file_path: `${sandbox.workspace}/a.txt` } }],
        usage: { inputTokens: 1_000_000, outputTokens: 1 },
      }),
  });
  const run = await sandbox.run(["-p", "loop", "--max-budget-usd", "1", "--output-format", "json"], {
    env: env(server),
  });
  assert.equal(run.code, 1, run.stderr);
  const r = JSON.parse(run.stdout);
  assert.deepEqual([r.subtype, r.is_error], ["error_max_budget_usd", true]);
  assert.equal(server.requests.length, 1);
  assert.ok(r.total_cost_usd > 1);
});

Deno.test("claude flags: --input-format stream-json runs each user line as a turn of one session", async () => {
  await using sandbox = await bladeSandbox();
  let n = 0;
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: `answer ${++n}` }) });
  const stdin = [
    { type: "user", message: { role: "user", content: "first question" } },
    { type: "user", message: { role: "user", content: [{ type: "text", text: "second question" }] } },
  ].map((l) => JSON.stringify(l)).join("\n") + "\n";
  const run = await sandbox.run(
    [
      "-p",
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
      "--verbose",
      "--replay-user-messages",
    ],
    { env: env(server), stdin },
  );
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const results = lines.filter((l) => l.type === "result");
  assert.deepEqual(results.map((r) => r.result), ["answer 1", "answer 2"]);
  assert.equal(results[0].session_id, results[1].session_id);
  assert.deepEqual(userTexts(server, 1), ["first question", "second question"]);
  assert.equal(lines.filter((l) => l.type === "user").length, 2, "--replay-user-messages echoes both");
});

Deno.test("claude flags: untrusted CI checkout: the command line grants (--allowedTools Edit edits), settings do not; project agents stay unloaded", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "one\n");
  await sandbox.write(".claude/agents/reviewer.md", "---\nname: reviewer\ndescription: x\n---\nReview.");
  // The repository's settings (never loaded untrusted) and the user's own (which grant nothing here).
  await sandbox.write(".claude/settings.json", JSON.stringify({ permissions: { allow: ["Bash"] } }));
  await Deno.mkdir(`${sandbox.home}/.claude`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.claude/settings.json`,
    JSON.stringify({ permissions: { allow: ["Write"], defaultMode: "bypassPermissions" } }),
  );
  const turns = () => [
    fakeTurn({
      toolCalls: [
        {
          name: "Edit",
          input: { file_path: `${sandbox.workspace}/a.txt`, old_string: "one", new_string: "two" },
        },
        { name: "Write", input: { file_path: `${sandbox.workspace}/b.txt`, content: "b" } },
        { name: "Bash", input: { command: "touch c.txt" } },
      ],
    }),
    fakeTurn({ text: "done" }),
  ];
  await using server = startFakeAnthropicServer({ responses: turns() });
  const args = ["-p", "edit", "--allowedTools", "Edit", "--output-format", "json"];
  const run = await sandbox.run(args, { env: env(server) });
  assert.equal(run.code, 0, run.stderr);
  const warnings = run.stderr.split("\n").filter((l) => l.startsWith("blade: warning:"));
  assert.match(
    warnings[0]!,
    /not trusted, so only the command line grants.*permission mode bypassPermissions and the settings' allow rules Write do not apply.*--trust-workspace.*BLADE_TRUST_WORKSPACE=1.*blade trust/,
  );
  assert.match(warnings[1]!, /project agents not loaded.*reviewer/);
  const r = JSON.parse(run.stdout);
  assert.deepEqual(r.permission_denials.map((d: { tool_name: string }) => d.tool_name), ["Write", "Bash"]);
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/a.txt`), "two\n", "the command line's Edit ran");
  for (const f of ["b.txt", "c.txt"]) await assert.rejects(Deno.stat(`${sandbox.workspace}/${f}`));

  await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "one\n");
  server.push(...turns());
  const trusted = await sandbox.run(args, { env: { ...env(server), BLADE_TRUST_WORKSPACE: "1" } });
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.doesNotMatch(trusted.stderr, /not trusted/);
  assert.deepEqual(JSON.parse(trusted.stdout).permission_denials, [], "trusted: every setting applies");
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/a.txt`), "two\n");
  await Deno.stat(`${sandbox.workspace}/c.txt`);
});

Deno.test("claude flags: --agent runs the main session as that agent (prompt, tools, model)", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.mkdir(`${sandbox.workspace}/.claude/agents`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.workspace}/.claude/agents/terse.md`,
    "---\nname: terse\ndescription: Answers tersely\ntools: Read, Grep\nmodel: claude-haiku-4-5\n---\nYou are terse and precise.\n",
  );
  await using server = startFakeAnthropicServer([fakeTurn({ text: "ok" })]);
  const run = await sandbox.run([
    "-p",
    "hi",
    "--agent",
    "terse",
    "--trust-workspace",
    "--output-format",
    "json",
  ], {
    env: env(server),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /--agent/);
  const body = server.requests[0]!.body as unknown as {
    model: string;
    system: unknown;
    tools: { name: string }[];
  };
  assert.equal(body.model, "claude-haiku-4-5");
  assert.match(JSON.stringify(body.system), /You are terse and precise\./);
  assert.deepEqual(body.tools.map((t) => t.name).sort(), ["Grep", "Read"]);
});

Deno.test("claude flags: --fallback-model: an overloaded model (529 after its retries) switches to the fallback", async () => {
  await using sandbox = await bladeSandbox();
  const overloaded = () => fakeStatus(529, { message: "Overloaded", headers: { "retry-after": "0" } });
  await using server = startFakeAnthropicServer([
    ...Array.from({ length: 5 }, overloaded),
    fakeTurn({ text: "from the fallback" }),
    fakeTurn({ text: "second turn" }),
  ]);
  const run = await sandbox.run(
    [
      "-p",
      "hi",
      "--model",
      "claude-main-x",
      "--fallback-model",
      "claude-fallback-y",
      "--output-format",
      "json",
    ],
    { env: env(server) },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /not honoured/);
  const result = JSON.parse(run.stdout);
  assert.equal(result.is_error, false);
  assert.equal(result.result, "from the fallback");
  const models = server.requests.map((r) => r.body.model);
  assert.deepEqual(models, [...Array(5).fill("claude-main-x"), "claude-fallback-y"]);
});

Deno.test("claude flags: --fallback-model does not hide other failures (a 500 still fails the run)", async () => {
  await using sandbox = await bladeSandbox();
  const failure = () => fakeStatus(500, { message: "down", headers: { "retry-after": "0" } });
  await using server = startFakeAnthropicServer(Array.from({ length: 5 }, failure));
  const run = await sandbox.run(
    [
      "-p",
      "hi",
      "--model",
      "claude-main-x",
      "--fallback-model",
      "claude-fallback-y",
      "--output-format",
      "json",
    ],
    { env: env(server) },
  );
  assert.equal(run.code, 1, run.stderr);
  assert.equal(JSON.parse(run.stdout).api_error_status, 500);
  assert.ok(server.requests.every((r) => r.body.model === "claude-main-x"));
});
