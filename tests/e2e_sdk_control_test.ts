// The Agent SDK's control protocol on `--input-format stream-json` (docs/guides/agent-sdk.md), against a
// real Blade process and the loopback fake Anthropic server. The request lines are the ones
// @anthropic-ai/claude-agent-sdk 0.3.334 writes (captured from it; only the request ids are ours):
// each is answered in order by a control_response line, also while a turn runs; an interrupt ends the
// running turn cancelled and the session goes on; a PreToolUse hook callback is asked with
// hook_callback before a call runs and its deny refuses the call; an initialize whose hooks cannot be
// read fails and no turn runs. The real SDK's programs are tests/sdk_test.ts.

import assert from "node:assert/strict";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { bladeSandbox } from "./support/blade.ts";

/** `query()` with no options: the SDK asks for an empty system prompt. */
const INITIALIZE =
  '{"request_id":"r1","type":"control_request","request":{"subtype":"initialize","systemPrompt":[""]}}';
/** `query({ options: { hooks: { PreToolUse: [...] }, agents: { rev: … } } })`. */
const INITIALIZE_WITH_HOOKS =
  '{"request_id":"r1","type":"control_request","request":{"subtype":"initialize","hooks":{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"]}]},"systemPrompt":[""],"agents":{"rev":{"description":"Reviews","prompt":"You review."}}}}';
const INITIALIZE_WITH_BROKEN_HOOKS =
  '{"request_id":"r1","type":"control_request","request":{"subtype":"initialize","hooks":{"PreToolUse":[{"matcher":"Bash"}]},"systemPrompt":[""]}}';
const request = (id: string, body: Record<string, unknown>) =>
  JSON.stringify({ request_id: id, type: "control_request", request: body });
const user = (text: string) =>
  JSON.stringify({
    type: "user",
    message: { role: "user", content: text },
    parent_tool_use_id: null,
    session_id: "",
  });

// deno-lint-ignore no-explicit-any
const parse = (line: string) => JSON.parse(line) as Record<string, any>;
const ofType = (type: string) => (line: string) => line.startsWith("{") && parse(line).type === type;

Deno.test("agent sdk: control requests are answered in order, mid-turn too; interrupt cancels the turn and the session goes on", async () => {
  await using sandbox = await bladeSandbox();
  let n = 0;
  await using server = startFakeAnthropicServer({
    // The first turn streams one text delta and stalls (until the interrupt); the second answers.
    handler: () =>
      ++n === 1
        ? { ...fakeTurn({ text: "never finished", chunks: 3 }), stallAfterEvents: 4 }
        : fakeTurn({ text: "answer 2" }),
  });
  const blade = await sandbox.spawn(
    // As the SDK starts it: no -p (stream-json input is print mode).
    [
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--include-partial-messages",
      "--permission-mode",
      "acceptEdits",
    ],
    { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" }, stdin: "open" },
  );
  const guard = setTimeout(() => blade.kill("SIGKILL"), 60_000);
  try {
    const response = async () => parse(await blade.nextLine(ofType("control_response"))).response;
    await blade.write(INITIALIZE + "\n");
    const init = await response();
    assert.equal(init.subtype, "success", JSON.stringify(init));
    assert.equal(init.request_id, "r1");
    assert.deepEqual(init.response.commands, []);
    assert.ok(
      init.response.agents.some((a: { name: string }) => a.name === "Explore"),
      "the registry's agents",
    );
    assert.equal(init.response.current_permission_mode, "acceptEdits");
    assert.deepEqual(init.pending_permission_requests, []);

    await blade.write(
      [
        request("r2", { subtype: "set_model", model: "haiku" }),
        request("r3", { subtype: "set_permission_mode", mode: "bypassPermissions" }),
        request("r4", { subtype: "set_permission_mode", mode: "plan" }),
        JSON.stringify({ type: "control_cancel_request", request_id: "r2" }),
        request("r5", { subtype: "rewind_files", user_message_id: "m" }),
      ].join("\n") + "\n",
    );
    const answers = [await response(), await response(), await response(), await response()];
    assert.deepEqual(answers.map((a) => [a.request_id, a.subtype]), [
      ["r2", "success"],
      ["r3", "error"],
      ["r4", "success"],
      ["r5", "error"],
    ]);
    assert.deepEqual(answers[0].response, { model: "claude-haiku-5-5" });
    assert.match(answers[1].error, /bypassPermissions needs --allow-dangerously-skip-permissions/);
    assert.deepEqual(answers[2].response, { mode: "plan" });
    assert.match(answers[3].error, /Unsupported control request subtype: rewind_files/);

    await blade.write(user("first question") + "\n");
    // The turn is running: its first text delta arrived, the rest never will.
    await blade.nextLine((l) => ofType("stream_event")(l) && parse(l).event.type === "content_block_delta");
    await blade.write(request("r6", { subtype: "interrupt" }) + "\n");
    const interrupted = await response();
    assert.deepEqual([interrupted.request_id, interrupted.subtype], ["r6", "success"]);
    assert.deepEqual(interrupted.response, { still_queued: [] });
    const cancelled = parse(await blade.nextLine(ofType("result")));
    assert.equal(cancelled.is_error, true);
    assert.equal(cancelled.subtype, "error_during_execution");

    await blade.write(user("second question") + "\n");
    const second = parse(await blade.nextLine(ofType("result")));
    assert.equal(second.result, "answer 2");
    assert.equal(second.session_id, cancelled.session_id, "one session");

    await blade.closeStdin();
    const done = await blade.result;
    assert.equal(done.code, 0, done.stderr);
    // set_model and set_permission_mode applied from the next turn on.
    assert.deepEqual(server.requests.map((r) => r.body.model), ["claude-haiku-5-5", "claude-haiku-5-5"]);
    const inits = done.stdout.split("\n").filter(ofType("system")).map(parse).filter((l) =>
      l.subtype === "init"
    );
    assert.deepEqual(inits.map((l) => l.permissionMode), ["plan", "plan"]);
    const status = done.stdout.split("\n").filter(ofType("system")).map(parse).find((l) =>
      l.subtype === "status"
    );
    assert.equal(status?.permissionMode, "plan");
  } finally {
    clearTimeout(guard);
  }
});

Deno.test("agent sdk: an initialize whose hooks cannot be read fails and no turn runs unguarded", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "should not run" }) });
  const run = await sandbox.run(
    ["-p", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"],
    {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" },
      stdin: INITIALIZE_WITH_BROKEN_HOOKS + "\n" + user("hello") + "\n",
    },
  );
  assert.equal(run.code, 1, run.stderr);
  const lines = run.stdout.trim().split("\n").map(parse);
  assert.deepEqual(lines.map((l) => l.type), ["control_response", "result"]);
  assert.equal(lines[0]!.response.subtype, "error");
  assert.match(lines[0]!.response.error, /hooks\.PreToolUse\[0\] has no hookCallbackIds/);
  // The SDK turns an error result into an exception carrying errors[0].
  assert.equal(lines[1]!.is_error, true);
  assert.match(lines[1]!.errors[0], /hookCallbackIds/);
  assert.equal(lines[1]!.error.code, "sdk_option_unsupported");
  assert.equal(server.requests.length, 0);
});

Deno.test("agent sdk: a PreToolUse hook callback is asked before the call; its deny refuses it", async () => {
  await using sandbox = await bladeSandbox();
  const script = [
    fakeTurn({ toolCalls: [{ name: "Bash", id: "toolu_1", input: { command: "touch hooked.txt" } }] }),
    fakeTurn({ text: "refused" }),
  ];
  let n = 0;
  await using server = startFakeAnthropicServer({ handler: () => script[n++]! });
  const blade = await sandbox.spawn(
    [
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--dangerously-skip-permissions",
    ],
    { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" }, stdin: "open" },
  );
  const guard = setTimeout(() => blade.kill("SIGKILL"), 60_000);
  try {
    await blade.write(INITIALIZE_WITH_HOOKS + "\n" + user("make a file") + "\n");
    const init = parse(await blade.nextLine(ofType("control_response")));
    assert.equal(init.response.response.hooks_applied, true);
    const asked = parse(await blade.nextLine(ofType("control_request")));
    assert.equal(asked.request.subtype, "hook_callback");
    assert.equal(asked.request.callback_id, "hook_0");
    assert.equal(asked.request.tool_use_id, "toolu_1");
    assert.equal(asked.request.input.hook_event_name, "PreToolUse");
    assert.equal(asked.request.input.tool_name, "Bash");
    assert.deepEqual(asked.request.input.tool_input, { command: "touch hooked.txt" });
    assert.equal(asked.request.input.permission_mode, "bypassPermissions");
    await blade.write(
      JSON.stringify({
        type: "control_response",
        response: {
          subtype: "success",
          request_id: asked.request_id,
          response: {
            hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "No new files." },
          },
        },
      }) + "\n",
    );
    assert.equal(parse(await blade.nextLine(ofType("result"))).result, "refused");
    await blade.closeStdin();
    const done = await blade.result;
    assert.equal(done.code, 0, done.stderr);
    const results = JSON.stringify(server.requests[1]!.body.messages.at(-1));
    assert.match(results, /"content":"PreToolUse:Bash hook error: No new files\.","is_error":true/);
    await assert.rejects(Deno.stat(`${sandbox.workspace}/hooked.txt`), Deno.errors.NotFound);
  } finally {
    clearTimeout(guard);
  }
});

Deno.test("agent sdk: canUseTool (--permission-prompt-tool stdio): a call needing approval is asked with can_use_tool and runs only when allowed", async () => {
  await using sandbox = await bladeSandbox();
  const bash = (command: string, id: string) =>
    fakeTurn({ toolCalls: [{ name: "Bash", id, input: { command } }] });
  const script = [
    bash("echo approved-call-ran", "toolu_1"),
    fakeTurn({ text: "ran it" }),
    bash("echo refused", "toolu_2"),
    fakeTurn({ text: "ok" }),
  ];
  let n = 0;
  await using server = startFakeAnthropicServer({ handler: () => script[n++]! });
  const blade = await sandbox.spawn(
    [
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
      "--trust-workspace",
    ],
    { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" }, stdin: "open" },
  );
  const guard = setTimeout(() => blade.kill("SIGKILL"), 60_000);
  try {
    const asked = async () => {
      const line = parse(await blade.nextLine(ofType("control_request")));
      assert.equal(line.request.subtype, "can_use_tool");
      return line;
    };
    const answer = (id: string, response: Record<string, unknown>) =>
      blade.write(
        JSON.stringify({
          type: "control_response",
          response: { subtype: "success", request_id: id, response },
        }) + "\n",
      );

    await blade.write(INITIALIZE + "\n" + user("run it") + "\n");
    const first = await asked();
    assert.equal(first.request.tool_name, "Bash");
    assert.deepEqual(first.request.input, { command: "echo approved-call-ran" });
    assert.equal(first.request.tool_use_id, "toolu_1");
    await answer(first.request_id, {
      behavior: "allow",
      updatedInput: { command: "echo approved-call-ran" },
    });
    assert.equal(parse(await blade.nextLine(ofType("result"))).result, "ran it");

    await blade.write(user("again") + "\n");
    const second = await asked();
    await answer(second.request_id, { behavior: "deny", message: "not this one" });
    assert.equal(parse(await blade.nextLine(ofType("result"))).result, "ok");

    await blade.closeStdin();
    const done = await blade.result;
    assert.equal(done.code, 0, done.stderr);
    assert.doesNotMatch(done.stderr, /permission-prompt-tool/, "honoured, so no not-yet warning");
    const toolResult = (i: number) => JSON.stringify(server.requests[i]!.body.messages.at(-1));
    assert.match(toolResult(1), /"content":"approved-call-ran","is_error":false/, "the allowed command ran");
    // The SDK's own reason reaches the model, as in Claude Code.
    assert.match(toolResult(3), /"content":"not this one","is_error":true/);
  } finally {
    clearTimeout(guard);
  }
});
