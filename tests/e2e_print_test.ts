// End-to-end: `blade -p` as a real subprocess against the loopback fake Anthropic server (docs/reference/cli.md, docs/reference/permissions.md,
// §3, §14): output formats, the tool round trip and its transcript, retries and give-up, broken model
// output, Workspace Trust, usage errors, resume, secret redaction and Ctrl-C.

import assert from "node:assert/strict";
import {
  type FakeAnthropicServer,
  fakeHang,
  fakeStatus,
  fakeTurn,
  startFakeAnthropicServer,
} from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicBlock, AnthropicMessage } from "../lib/provider/anthropic_wire.ts";
import {
  type BladeSandbox,
  bladeSandbox,
  listFiles,
  parseJsonResult,
  transcriptEvents,
  transcriptPath,
  waitFor,
} from "./support/blade.ts";

const KEY = "test-key";

type WireToolResult = Extract<AnthropicBlock, { type: "tool_result" }>;

function anthropicEnv(server: FakeAnthropicServer, key = KEY): Record<string, string> {
  return { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: key };
}

/** `blade <args> --provider anthropic` against `server`. */
function ask(sandbox: BladeSandbox, args: string[], options: { server: FakeAnthropicServer }) {
  return sandbox.run([...args, "--provider", "anthropic"], { env: anthropicEnv(options.server) });
}

/** The messages of the n-th request the fake server received. */
function requestMessages(server: FakeAnthropicServer, n: number): AnthropicMessage[] {
  const request = server.requests[n];
  assert.ok(request !== undefined, `the server saw only ${server.requests.length} requests, not ${n + 1}`);
  return request.body.messages;
}

/** The tool results in the last message of the n-th request. */
function lastToolResults(server: FakeAnthropicServer, n: number): WireToolResult[] {
  const last = requestMessages(server, n).at(-1);
  assert.equal(last?.role, "user");
  return last.content.filter((b): b is WireToolResult => b.type === "tool_result");
}

function assertNoStack(stderr: string): void {
  assert.doesNotMatch(stderr, /^\s+at /m, `stderr shows a stack trace:\n${stderr}`);
  assert.doesNotMatch(stderr, /internal error/);
}

Deno.test("print: a streamed text answer in --output-format json", async () => {
  await using sandbox = await bladeSandbox();
  const answer = "Blade streams this answer in three pieces.";
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: answer, chunks: 3, usage: { inputTokens: 12, outputTokens: 9 } }),
  ]);
  const run = await ask(sandbox, ["-p", "Say something", "--output-format", "json"], { server });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "");
  const result = parseJsonResult(run);
  assert.match(String(result.session_id), /^session-[\w-]{21}$/);
  assert.equal(typeof result.duration_ms, "number");
  assert.equal(typeof result.duration_api_ms, "number");
  assert.equal(typeof result.uuid, "string");
  // claude-sonnet-5-5 (the sonnet alias) at $2 / $10 per million tokens.
  const cost = (12 * 2 + 9 * 10) / 1e6;
  assert.deepEqual(result, {
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: result.duration_ms,
    duration_api_ms: result.duration_api_ms,
    num_turns: 1,
    result: answer,
    stop_reason: "end_turn",
    session_id: result.session_id,
    total_cost_usd: cost,
    usage: {
      input_tokens: 12,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 9,
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: "standard",
    },
    modelUsage: {
      "claude-sonnet-5-5": {
        inputTokens: 12,
        outputTokens: 9,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: cost,
      },
    },
    permission_denials: [],
    terminal_reason: "completed",
    api_error_status: null,
    uuid: result.uuid,
    tool_calls: 0,
    subagents: { spawned: 0, completed: 0, failed: 0, cancelled: 0, by_type: {} },
  });
  const request = server.requests[0]!;
  assert.equal(request.headers["x-api-key"], KEY);
  assert.equal(request.body.stream, true);
  assert.deepEqual(request.body.messages, [{
    role: "user",
    content: [{ type: "text", text: "Say something" }],
  }]);
});

Deno.test("print: Read → Edit → answer changes the file; the transcript holds every event in order", async () => {
  await using sandbox = await bladeSandbox();
  const file = await sandbox.write("src/greet.ts", 'export const greeting = "Helo";\n');
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: "Reading.", toolCalls: [{ name: "Read", input: { file_path: "src/greet.ts" } }] }),
    fakeTurn({
      toolCalls: [{
        name: "Edit",
        input: { file_path: "src/greet.ts", old_string: "Helo", new_string: "Hello" },
      }],
    }),
    fakeTurn({ text: "Fixed the greeting." }),
  ]);
  const run = await ask(sandbox, [
    "-p",
    "Fix the typo",
    "--output-format",
    "json",
    "--permission-mode",
    "autoEdit",
    "--trust-workspace",
  ], { server });
  assert.equal(run.code, 0, run.stderr);
  const result = parseJsonResult(run);
  assert.deepEqual([result.result, result.num_turns, result.tool_calls], ["Fixed the greeting.", 3, 2]);
  assert.equal(await Deno.readTextFile(file), 'export const greeting = "Hello";\n');

  // The model saw each tool's result in the next request.
  assert.equal(server.requests.length, 3);
  const readResult = lastToolResults(server, 1);
  assert.equal(readResult.length, 1);
  assert.equal(readResult[0]!.tool_use_id, "toolu_fake_1_0");
  assert.equal(readResult[0]!.is_error, false);
  assert.match(readResult[0]!.content, /export const greeting = "Helo";/);
  const editResult = lastToolResults(server, 2);
  assert.deepEqual(editResult.map((b) => [b.tool_use_id, b.is_error]), [["toolu_fake_2_0", false]]);

  const events = await transcriptEvents(
    transcriptPath(sandbox, String(result.session_id)),
  );
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), "seq is 1, 2, 3, … without gaps");
  const shape = events.map((e) => {
    if (e.type === "message_created") return `message:${e.data.role}`;
    if (e.type === "part_created") {
      const part = e.data.part;
      return part.type === "tool_call"
        ? `tool_call:${part.name}`
        : part.type === "tool_result"
        ? `tool_result:${part.isError}`
        : part.type;
    }
    return e.type;
  });
  assert.deepEqual(shape, [
    "session_created",
    "turn_started",
    "message:user",
    "text",
    "message:assistant",
    "text",
    "tool_call:Read",
    "message:user",
    "tool_result:false",
    "message:assistant",
    "tool_call:Edit",
    "message:user",
    "tool_result:false",
    "message:assistant",
    "text",
    "turn_completed",
  ]);
  for (const e of events) {
    assert.deepEqual([e.sessionId, e.projectPath], [result.session_id, sandbox.workspace]);
  }
  const completed = events.at(-1)!;
  assert.equal(completed.type, "turn_completed");
  if (completed.type === "turn_completed") {
    assert.deepEqual([completed.data.turn, completed.data.turns, completed.data.toolCalls], [1, 3, 2]);
  }
});

Deno.test("print: 429 with retry-after, then success; blade-events prints one event per line and a result", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer([
    fakeStatus(429, { message: "Slow down", headers: { "retry-after": "0.05" } }),
    fakeTurn({ text: "Second time lucky." }),
  ]);
  const run = await ask(sandbox, ["-p", "Hello", "--output-format", "blade-events"], { server });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(server.requests.length, 2);
  assert.ok(run.stdout.endsWith("\n"));
  const lines = run.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  const types = lines.map((l) => l.type);
  assert.deepEqual(types.filter((t) => t !== "text_delta"), [
    "session_started",
    "turn_started",
    "retry",
    "assistant_message",
    "turn_completed",
    "result",
  ]);
  assert.ok(types.includes("text_delta"));
  const retry = lines.find((l) => l.type === "retry")!;
  assert.deepEqual([retry.attempt, retry.delayMs], [2, 50], "the server's retry-after (0.05 s) is honoured");
  assert.match(String(retry.reason), /429 Too Many Requests.*Slow down/);
  const result = lines.at(-1)!;
  assert.deepEqual([result.is_error, result.result], [false, "Second time lucky."]);
  const sessionId = lines[0]!.sessionId;
  assert.equal(result.session_id, sessionId);
});

Deno.test("print: 500 on every attempt gives up with exit 1, is_error and a clear message", async () => {
  await using sandbox = await bladeSandbox();
  const failure = () => fakeStatus(500, { message: "database on fire", headers: { "retry-after": "0" } });
  await using server = startFakeAnthropicServer(Array.from({ length: 5 }, failure));
  const json = await ask(sandbox, ["-p", "Hello", "--output-format", "json"], { server });
  assert.equal(json.code, 1, json.stderr);
  assertNoStack(json.stderr);
  assert.equal(server.requests.length, 5, "one attempt and four retries");
  const result = parseJsonResult(json);
  const message =
    "Anthropic API returned 500 Internal Server Error after 5 attempts: api_error: database on fire";
  const hint = "The API had a server error: run again; if it persists, check the provider's status page.";
  // As Claude Code ends a run the API refused (tests/fixtures/claude/api_error): subtype success with
  // is_error, terminal_reason api_error, the API's own error as the result; Blade's error object beside.
  assert.deepEqual([result.is_error, result.subtype, result.terminal_reason, result.error], [
    true,
    "success",
    "api_error",
    { code: "provider_error", message, hint },
  ]);
  assert.deepEqual([result.result, result.api_error_status], ["API Error: 500 database on fire", 500]);

  server.push(...Array.from({ length: 5 }, failure));
  const text = await ask(sandbox, ["-p", "Hello again"], { server });
  assert.equal(text.code, 1);
  // stdout is not a terminal here: `out=$(blade -p …)` gets the error too, as with `claude -p`.
  assert.equal(text.stdout, `Error: ${message}\n`);
  assertNoStack(text.stderr);
  assert.equal(
    text.stderr,
    "blade: Anthropic API returned 500 Internal Server Error after 5 attempts: api_error: database on fire\n" +
      `  hint: ${hint}\n`,
  );
});

Deno.test("print: invalid JSON in tool arguments reaches the model as an error result and the run goes on", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "Read", rawArguments: '{"file_path": "a.ts", ' }] }),
    fakeTurn({ text: "I will send valid arguments next time." }),
  ]);
  const run = await ask(sandbox, ["-p", "Read a.ts", "--output-format", "json"], { server });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(parseJsonResult(run).result, "I will send valid arguments next time.");
  const results = lastToolResults(server, 1);
  assert.equal(results.length, 1);
  assert.equal(results[0]!.is_error, true);
  assert.match(results[0]!.content, /^Invalid tool input for Read: /);
});

Deno.test("print: a stream cut mid-message fails with exit 1 and an aborted turn", async () => {
  await using sandbox = await bladeSandbox();
  // message_start, ping, content_block_start, first text delta — then the body closes.
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: "This answer is cut off somewhere in the middle", chunks: 3, cutAfterEvents: 4 }),
  ]);
  const run = await ask(sandbox, ["-p", "Hello", "--output-format", "json"], { server });
  assert.equal(run.code, 1, run.stderr);
  assertNoStack(run.stderr);
  assert.equal(server.requests.length, 1, "text already reached the user, so it is not retried");
  const result = parseJsonResult(run);
  assert.deepEqual([result.is_error, result.error], [true, {
    code: "provider_error",
    message: "Anthropic API stream ended before message_stop",
    hint: "The answer's stream was cut off: run again; --debug logs the requests.",
  }]);
  const events = await transcriptEvents(
    transcriptPath(sandbox, String(result.session_id)),
  );
  const last = events.at(-1)!;
  assert.deepEqual([last.type, last.data], ["turn_aborted", {
    turn: 1,
    cause: "failed",
    reason: "Anthropic API stream ended before message_stop",
  }]);
});

Deno.test("print: untrusted, a command-line grant runs Bash and writes (as claude -p); without one both are refused and the run fails", async () => {
  await using sandbox = await bladeSandbox();
  const turns = () => [
    fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "touch made-by-bash" } }] }),
    fakeTurn({ toolCalls: [{ name: "Write", input: { file_path: "new.txt", content: "hello\n" } }] }),
    fakeTurn({ text: "Done what I could." }),
  ];
  await using server = startFakeAnthropicServer(turns());
  // No grant: both refused. The run did none of the work it asked for, so it does not succeed.
  const refused = await ask(sandbox, ["-p", "Make files", "--output-format", "json"], { server });
  assert.equal(refused.code, 1, refused.stderr);
  const result = JSON.parse(refused.stdout);
  assert.equal(result.is_error, true);
  assert.equal(result.error.code, "permission_denied");
  assert.match(result.result, /^Every change the run asked for was refused: Bash, Write/);
  assert.deepEqual(result.permission_denials.map((d: { tool_name: string }) => d.tool_name), [
    "Bash",
    "Write",
  ]);
  const [bash] = lastToolResults(server, 1);
  assert.equal(bash?.is_error, true);
  assert.match(bash.content, /needs approval.*--permission-mode yolo/);
  assert.equal(await exists(`${sandbox.workspace}/made-by-bash`), false);
  assert.equal(await exists(`${sandbox.workspace}/new.txt`), false);

  // --dangerously-skip-permissions on the command line: granted for this run, as in Claude Code.
  server.push(...turns());
  const granted = await ask(sandbox, ["-p", "Make files", "--dangerously-skip-permissions"], { server });
  assert.equal(granted.code, 0, granted.stderr);
  assert.equal(granted.stdout, "Done what I could.\n");
  assert.equal(await exists(`${sandbox.workspace}/made-by-bash`), true);
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/new.txt`), "hello\n");
});

Deno.test("print: the prompt may come on standard input", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer([fakeTurn({ text: "Four." })]);
  const run = await sandbox.run(["-p", "--provider", "anthropic"], {
    env: anthropicEnv(server),
    stdin: "What is two plus two?\n",
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "Four.\n");
  assert.deepEqual(requestMessages(server, 0), [
    { role: "user", content: [{ type: "text", text: "What is two plus two?" }] },
  ]);
});

Deno.test("print: usage errors exit 2 with the problem and a hint, never a stack", async () => {
  await using sandbox = await bladeSandbox();
  const cases: [string[], RegExp, RegExp][] = [
    [["-p", "hi", "--frobnicate"], /^blade: Unknown option '--frobnicate'/, /blade --help/],
    [
      ["-p", "hi", "--output-format", "xml"],
      /^blade: Unknown output format "xml"/,
      /text, json, stream-json or blade-events/,
    ],
    [
      ["-p", "hi", "--resume", "../escape"],
      /^blade: Invalid session ID for --resume: "..\/escape"/,
      /letters, digits/,
    ],
    [["-p", "hi", "--resume", "a/b"], /^blade: Invalid session ID for --resume: "a\/b"/, /letters, digits/],
    [
      ["-p", "hi", "--session-id", ".."],
      /^blade: Invalid session ID for --session-id: "\.\."/,
      /letters, digits/,
    ],
  ];
  const runs = await Promise.all(cases.map(([args]) => sandbox.run(args)));
  runs.forEach((run, i) => {
    const [args, message, hint] = cases[i]!;
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.equal(run.stdout, "");
    assertNoStack(run.stderr);
    const [first, second, ...rest] = run.stderr.trimEnd().split("\n");
    assert.match(first!, message);
    assert.match(second!, /^ {2}hint: /);
    assert.match(second!, hint);
    assert.deepEqual(rest, []);
  });
});

Deno.test("print: --max-turns 0 is a usage error (exit 2, no stack)", async () => {
  await using sandbox = await bladeSandbox();
  const run = await sandbox.run(["-p", "hi", "--max-turns", "0"]);
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, "");
  assertNoStack(run.stderr);
  assert.match(run.stderr, /^blade: --max-turns must be a whole number from 1 to 1000, got "0"\./);
  assert.match(run.stderr, /\n {2}hint: /);
});

Deno.test("print: --resume continues a session with its earlier conversation", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: "Noted: the word is pineapple." }),
    fakeTurn({ text: "It was pineapple." }),
  ]);
  const first = await ask(sandbox, ["-p", "Remember the word pineapple", "--output-format", "json"], {
    server,
  });
  assert.equal(first.code, 0, first.stderr);
  const sessionId = String(parseJsonResult(first).session_id);
  const second = await ask(sandbox, [
    "-p",
    "What was the word?",
    "--output-format",
    "json",
    "--resume",
    sessionId,
  ], { server });
  assert.equal(second.code, 0, second.stderr);
  const result = parseJsonResult(second);
  assert.deepEqual([result.session_id, result.result], [sessionId, "It was pineapple."]);
  assert.deepEqual(requestMessages(server, 1), [
    { role: "user", content: [{ type: "text", text: "Remember the word pineapple" }] },
    { role: "assistant", content: [{ type: "text", text: "Noted: the word is pineapple." }] },
    { role: "user", content: [{ type: "text", text: "What was the word?" }] },
  ]);
  const events = await transcriptEvents(transcriptPath(sandbox, sessionId));
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
  assert.deepEqual(
    events.filter((e) => e.type === "turn_started" || e.type === "turn_completed").map((
      e,
    ) => [e.type, e.data.turn]),
    [["turn_started", 1], ["turn_completed", 1], ["turn_started", 2], ["turn_completed", 2]],
  );
});

Deno.test("print: the API key never reaches any file under the storage root", async () => {
  await using sandbox = await bladeSandbox();
  const secret = "sk-ant-e2e-SECRET-7f3a9c0d1e2b";
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "cat key.txt" } }] }),
    fakeTurn({ text: `The key is ${secret}.` }),
  ]);
  // Commands get no provider key from the environment (docs/reference/permissions.md), so the
  // command reads it from a file, as a model could from a careless `.env`.
  await Deno.writeTextFile(`${sandbox.workspace}/key.txt`, `key=${secret}`);
  const run = await sandbox.run(
    ["-p", "Print the key", "--provider", "anthropic", "--permission-mode", "yolo", "--trust-workspace"],
    { env: anthropicEnv(server, secret) },
  );
  assert.equal(run.code, 0, run.stderr);
  const [bash] = lastToolResults(server, 1);
  assert.equal(bash?.content, `key=${secret}`, "the command really saw the key");
  const files = await listFiles(sandbox.storage);
  assert.ok(files.some((f) => f.endsWith(".jsonl")), `no transcript among ${files.join(", ")}`);
  for (const file of files) {
    assert.ok(!(await Deno.readTextFile(file)).includes(secret), `${file} contains the API key`);
  }
  const transcript =
    (await Promise.all(files.filter((f) => f.endsWith(".jsonl")).map((f) => Deno.readTextFile(f))))
      .join("");
  assert.ok(transcript.includes("key=[REDACTED]"), "the Bash output is stored redacted");
  assert.ok(transcript.includes("The key is [REDACTED]."), "the model's answer is stored redacted");
});

Deno.test("print: Ctrl-C while waiting for the model exits 130 with a cancelled turn", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer([fakeHang()]);
  const blade = await sandbox.spawn([
    "-p",
    "Take your time",
    "--provider",
    "anthropic",
    "--output-format",
    "json",
  ], {
    env: anthropicEnv(server),
  });
  await waitFor("Blade's model request", () => server.requests.length === 1);
  blade.kill("SIGINT");
  const run = await blade.result;
  assert.equal(run.code, 130, run.stderr);
  assertNoStack(run.stderr);
  const result = parseJsonResult(run);
  assert.deepEqual([result.is_error, result.subtype, result.terminal_reason], [
    true,
    "error_during_execution",
    "aborted",
  ]);
  const events = await transcriptEvents(
    transcriptPath(sandbox, String(result.session_id)),
  );
  const last = events.at(-1)!;
  assert.equal(last.type, "turn_aborted");
  if (last.type === "turn_aborted") assert.deepEqual([last.data.turn, last.data.cause], [1, "cancelled"]);
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}
