// Claude Code's environment variables through Blade: each row sets one variable and shows its effect on
// the request the fake Anthropic server receives (or on what the run's Bash tool did). The variables are
// granted to Blade's process from one list (lib/permissions/deno_permissions.ts BLADE_ENV_NAMES).

import assert from "node:assert/strict";
import {
  fakeHang,
  fakeSse,
  fakeStatus,
  fakeTurn,
  startFakeAnthropicServer,
} from "../lib/testing/fake_anthropic_server.ts";
import { type BladeResult, type BladeSandbox, bladeSandbox } from "./support/blade.ts";
import { type AnthropicRequest, lastToolResults } from "./support/claude_conversations.ts";

type Req = AnthropicRequest;

const bash = (command: string, extra: Record<string, unknown> = {}) =>
  fakeTurn({ toolCalls: [{ name: "Bash", input: { command, ...extra } }] });

interface Row {
  variable: string;
  env: Record<string, string>;
  flags?: string[];
  responses: (sandbox: BladeSandbox) => Parameters<typeof startFakeAnthropicServer>[0];
  check: (requests: Req[], run: BladeResult) => void;
}

const ROWS: Row[] = [
  {
    variable: "ANTHROPIC_AUTH_TOKEN",
    env: { ANTHROPIC_AUTH_TOKEN: "gateway-token-123", ANTHROPIC_API_KEY: "" },
    responses: () => [fakeTurn({ text: "ok" })],
    check: ([r]) => {
      assert.equal(r!.headers["authorization"], "Bearer gateway-token-123");
      assert.equal(r!.headers["x-api-key"], undefined);
    },
  },
  {
    variable: "ANTHROPIC_MODEL",
    env: { ANTHROPIC_MODEL: "claude-haiku-4-5" },
    responses: () => [fakeTurn({ text: "ok" })],
    check: ([r]) => assert.equal(r!.body.model, "claude-haiku-4-5"),
  },
  ...([
    ["ANTHROPIC_DEFAULT_SONNET_MODEL", "sonnet"],
    ["ANTHROPIC_DEFAULT_OPUS_MODEL", "opus"],
    ["ANTHROPIC_DEFAULT_HAIKU_MODEL", "haiku"],
  ] as const).map(([variable, alias]): Row => ({
    variable,
    env: { [variable]: `gateway-${alias}` },
    flags: ["--model", alias],
    responses: () => [fakeTurn({ text: "ok" })],
    check: ([r]) => assert.equal(r!.body.model, `gateway-${alias}`),
  })),
  {
    variable: "CLAUDE_CODE_SUBAGENT_MODEL",
    env: { CLAUDE_CODE_SUBAGENT_MODEL: "claude-haiku-4-5" },
    responses: () => [
      fakeTurn({
        toolCalls: [{
          name: "Task",
          input: {
            subagent_type: "general-purpose",
            description: "look",
            prompt: "Look around and report back.",
          },
        }],
      }),
      fakeTurn({ text: "child done" }),
      fakeTurn({ text: "parent done" }),
    ],
    check: (rs) =>
      assert.deepEqual(rs.map((r) => r.body.model), [
        "claude-sonnet-5-5",
        "claude-haiku-4-5",
        "claude-sonnet-5-5",
      ]),
  },
  {
    variable: "ANTHROPIC_CUSTOM_HEADERS",
    env: { ANTHROPIC_CUSTOM_HEADERS: "X-Gateway-Team: blade\nX-Trace: on" },
    responses: () => [fakeTurn({ text: "ok" })],
    check: ([r]) => assert.deepEqual([r!.headers["x-gateway-team"], r!.headers["x-trace"]], ["blade", "on"]),
  },
  {
    variable: "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: "1234" },
    responses: () => [fakeTurn({ text: "ok" })],
    check: ([r]) => assert.equal(r!.body.max_tokens, 1234),
  },
  {
    variable: "MAX_THINKING_TOKENS",
    // The budget of a model that thinks on a budget (the current ones think adaptively and ignore it,
    // as in Claude Code 2.1.332: tests/fixtures/claude/models/).
    env: { MAX_THINKING_TOKENS: "2048", ANTHROPIC_MODEL: "claude-sonnet-4-5" },
    responses: () => [fakeTurn({ text: "ok" })],
    check: ([r]) => {
      assert.deepEqual(r!.body.thinking, { type: "enabled", budget_tokens: 2048, display: "omitted" });
      assert.ok(r!.body.max_tokens > 2048, "max_tokens stays above the thinking budget");
    },
  },
  {
    variable: "CLAUDE_CODE_MAX_RETRIES",
    env: { CLAUDE_CODE_MAX_RETRIES: "1" },
    responses: () => Array.from({ length: 4 }, () => fakeStatus(500, { headers: { "retry-after": "0" } })),
    check: (rs, run) => {
      assert.equal(rs.length, 2, "one attempt and one retry");
      assert.equal(run.code, 1);
    },
  },
  {
    variable: "API_TIMEOUT_MS",
    env: { API_TIMEOUT_MS: "300", CLAUDE_CODE_MAX_RETRIES: "0" },
    responses: () => [fakeHang()],
    check: (rs, run) => {
      assert.equal(rs.length, 1);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /300 ?ms|timed out|timeout/i);
    },
  },
  {
    variable: "BASH_DEFAULT_TIMEOUT_MS",
    env: { BASH_DEFAULT_TIMEOUT_MS: "300" },
    responses: () => [bash("sleep 5"), fakeTurn({ text: "ok" })],
    check: (rs) => assert.match(lastToolResults(rs[1]!), /timed out after 300 ms/),
  },
  {
    variable: "BASH_MAX_TIMEOUT_MS",
    env: { BASH_MAX_TIMEOUT_MS: "400" },
    responses: () => [bash("sleep 5", { timeout: 100_000 }), fakeTurn({ text: "ok" })],
    check: (rs) => assert.match(lastToolResults(rs[1]!), /timed out after 400 ms/),
  },
  {
    variable: "BASH_MAX_OUTPUT_LENGTH",
    env: { BASH_MAX_OUTPUT_LENGTH: "100" },
    responses: () => [bash("printf 'x%.0s' $(seq 1 2000)"), fakeTurn({ text: "ok" })],
    // Past the limit the output is saved to a file and the model gets a preview and its path.
    check: (rs) =>
      assert.match(
        lastToolResults(rs[1]!),
        /^<persisted-output>\nOutput too large \(2KB\)\. Full output saved to: /,
      ),
  },
];

for (const row of ROWS) {
  Deno.test(`env ${row.variable}: its effect on the request`, async () => {
    await using sandbox = await bladeSandbox();
    await using server = startFakeAnthropicServer(row.responses(sandbox));
    const run = await sandbox.run([
      "-p",
      "go",
      "--trust-workspace",
      "--permission-mode",
      "bypassPermissions",
      ...(row.flags ?? []),
    ], {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", ...row.env },
    });
    row.check(server.requests.filter((r) => r.path === "/v1/messages"), run);
  });
}

Deno.test("env MAX_THINKING_TOKENS: thinking blocks are in stream-json, sent back to the model, never in text", async () => {
  const thinkingTurn = (index: number, text: string) =>
    fakeSse([
      {
        event: "message_start",
        data: { type: "message_start", message: { usage: { input_tokens: 5, output_tokens: 1 } } },
      },
      {
        event: "content_block_start",
        data: { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      },
      {
        event: "content_block_delta",
        data: {
          type: "content_block_delta",
          index: 0,
          delta: { type: "thinking_delta", thinking: "Let me think." },
        },
      },
      {
        event: "content_block_delta",
        data: {
          type: "content_block_delta",
          index: 0,
          delta: { type: "signature_delta", signature: "sig-1" },
        },
      },
      { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
      {
        event: "content_block_start",
        data: { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      },
      {
        event: "content_block_delta",
        data: { type: "content_block_delta", index: 1, delta: { type: "text_delta", text } },
      },
      { event: "content_block_stop", data: { type: "content_block_stop", index: 1 } },
      ...(index === 0
        ? [
          {
            event: "content_block_start",
            data: {
              type: "content_block_start",
              index: 2,
              content_block: { type: "tool_use", id: "toolu_t", name: "Glob", input: {} },
            },
          },
          {
            event: "content_block_delta",
            data: {
              type: "content_block_delta",
              index: 2,
              delta: { type: "input_json_delta", partial_json: '{"pattern":"*.md"}' },
            },
          },
          { event: "content_block_stop", data: { type: "content_block_stop", index: 2 } },
        ]
        : []),
      {
        event: "message_delta",
        data: {
          type: "message_delta",
          delta: { stop_reason: index === 0 ? "tool_use" : "end_turn" },
          usage: { output_tokens: 3 },
        },
      },
      { event: "message_stop", data: { type: "message_stop" } },
    ]);
  for (const format of ["stream-json", "text"]) {
    await using sandbox = await bladeSandbox();
    await using server = startFakeAnthropicServer([thinkingTurn(0, "Looking."), thinkingTurn(1, "Done.")]);
    const run = await sandbox.run(["-p", "go", "--output-format", format, "--verbose"], {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", MAX_THINKING_TOKENS: "1024" },
    });
    assert.equal(run.code, 0, run.stderr);
    const second = server.requests[1]!.body.messages.at(-2) as unknown as { content: { type: string }[] };
    assert.deepEqual(second.content[0], { type: "thinking", thinking: "Let me think.", signature: "sig-1" });
    if (format === "text") {
      assert.equal(run.stdout, "Done.\n");
    } else {
      const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
      const thinking = lines.filter((l) =>
        l.type === "assistant" && l.message.content[0].type === "thinking"
      );
      assert.equal(thinking.length, 2);
      assert.equal(thinking[0].message.content[0].thinking, "Let me think.");
    }
  }
});
