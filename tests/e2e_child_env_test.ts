// What a Worker child inherits from its run besides its permissions (docs/guides/migrating-from-claude-code.md):
// the Bash limit variables (BASH_MAX_OUTPUT_LENGTH, BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS) and
// `--fallback-model`. A Worker has no environment grant, so the main thread must hand them over.

import assert from "node:assert/strict";
import {
  type FakeAnthropicServer,
  fakeStatus,
  fakeTurn,
  type RecordedRequest,
  startFakeAnthropicServer,
} from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import { bladeSandbox } from "./support/blade.ts";
import { lastToolResults } from "./support/claude_conversations.ts";

const env = (server: FakeAnthropicServer) => ({
  ANTHROPIC_BASE_URL: server.url,
  ANTHROPIC_API_KEY: "sk-ant-test",
});

const CHILD_PROMPT = "Run the command and report what it printed.";

function fromChild(req: RecordedRequest<AnthropicRequestBody>): boolean {
  return JSON.stringify(req.body.messages?.[0] ?? "").includes(CHILD_PROMPT);
}

const delegate = fakeTurn({
  toolCalls: [{
    name: "Task",
    input: { subagent_type: "general-purpose", description: "Run a command", prompt: CHILD_PROMPT },
  }],
});

Deno.test("child env: a Worker child's Bash honours BASH_MAX_OUTPUT_LENGTH like the main session's", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      const results = (req.body.messages ?? []).length;
      if (fromChild(req)) {
        return results === 1
          ? fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "printf 'x%.0s' $(seq 1 500)" } }] })
          : fakeTurn({ text: "printed many x" });
      }
      return results === 1 ? delegate : fakeTurn({ text: "done" });
    },
  });
  const run = await sandbox.run(
    ["-p", "go", "--permission-mode", "bypassPermissions", "--trust-workspace", "--output-format", "json"],
    { env: { ...env(server), BASH_MAX_OUTPUT_LENGTH: "100" } },
  );
  assert.equal(run.code, 0, run.stderr);
  const childSecond = server.requests.filter(fromChild)[1];
  assert.ok(childSecond !== undefined, "the child asked the model again after its Bash call");
  const output = lastToolResults(childSecond);
  // Past the child's limit its output is saved to a file in its own folder, as in the session.
  assert.match(
    output,
    /^<persisted-output>\nOutput too large \(500 bytes\)\. Full output saved to: \S+\/agent-/,
    output.slice(0, 300),
  );
});

Deno.test("child env: a Worker child whose model is overloaded switches to --fallback-model", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      if (fromChild(req)) {
        return req.body.model === "claude-main-x"
          ? fakeStatus(529, { message: "Overloaded", headers: { "retry-after": "0" } })
          : fakeTurn({ text: "child answer from the fallback" });
      }
      return (req.body.messages ?? []).length === 1 ? delegate : fakeTurn({ text: "done" });
    },
  });
  const run = await sandbox.run(
    [
      "-p",
      "go",
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
  const result = JSON.parse(run.stdout);
  assert.equal(result.is_error, false, run.stdout);
  const child = server.requests.filter(fromChild).map((r) => r.body.model);
  assert.equal(child.at(-1), "claude-fallback-y", `child models: ${child.join(", ")}`);
  assert.ok(child.slice(0, -1).every((m) => m === "claude-main-x"));
  const main = server.requests.filter((r) => !fromChild(r)).at(-1)!;
  assert.match(lastToolResults(main), /child answer from the fallback/);
});
