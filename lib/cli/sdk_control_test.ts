import assert from "node:assert/strict";
import { type ControlState, decideControl, initializePayload } from "./sdk_control.ts";
import { streamJsonInput } from "./print_inputs.ts";
import { BladeError } from "../errors.ts";

const STATE: ControlState = {
  initialized: false,
  mode: "default",
  ceiling: "default",
  ceilingSource: "permission mode default",
  defaultModel: "claude-sonnet-4-5",
  aliases: { sonnet: "claude-sonnet-4-5", haiku: "claude-haiku-4-5" },
  queued: ["u1", "u2"],
  mcpServers: [{ name: "docs", status: "connected", tools: ["mcp__docs__search"] }],
};

interface Row {
  name: string;
  request: Record<string, unknown>;
  state?: Partial<ControlState>;
  /** `success` with this payload, or `error` whose message matches. */
  ok?: Record<string, unknown>;
  error?: RegExp;
  code?: string;
  action: Record<string, unknown>;
}

const ROWS: Row[] = [
  // The SDK's own initialize (0.3.334, no options): the empty system prompt it asks for is kept.
  {
    name: "initialize as the SDK sends it",
    request: { subtype: "initialize", systemPrompt: [""] },
    ok: {},
    action: { kind: "initialize", options: { systemPrompt: "" } },
  },
  {
    name: "initialize with a preset prompt's append, agents and a schema",
    request: {
      subtype: "initialize",
      appendSystemPrompt: "Be brief.",
      agents: { rev: { description: "Reviews", prompt: "You review." } },
      jsonSchema: { type: "object" },
      title: "ignored",
    },
    ok: {},
    action: {
      kind: "initialize",
      options: {
        appendSystemPrompt: "Be brief.",
        agents: { rev: { description: "Reviews", prompt: "You review." } },
        jsonSchema: { type: "object" },
      },
    },
  },
  {
    name: "hooks, in-process servers, mcpServers and plugins are taken (the SDK's default deliveries)",
    request: {
      subtype: "initialize",
      hooks: {
        PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["hook_0", "hook_1"], timeout: 5 }],
        Stop: [],
      },
      sdkMcpServers: ["mine"],
      mcpServers: { docs: { command: "docs-server" } },
      plugins: [{ type: "local", path: "/p" }],
    },
    ok: {},
    action: {
      kind: "initialize",
      options: {
        hooks: new Map([["PreToolUse", [{
          matcher: "Bash",
          callbackIds: ["hook_0", "hook_1"],
          timeoutSeconds: 5,
        }]]]),
        sdkMcpServers: ["mine"],
        mcpServers: { docs: { command: "docs-server" } },
        plugins: true,
      },
    },
  },
  {
    name: "a hook matcher without callbacks fails initialize naming it",
    request: { subtype: "initialize", hooks: { PreToolUse: [{ matcher: "Bash" }] } },
    error: /hooks\.PreToolUse\[0\] has no hookCallbackIds/,
    code: "invalid_request",
    action: { kind: "fail" },
  },
  {
    name: "sdkMcpServers must name servers",
    request: { subtype: "initialize", sdkMcpServers: [1] },
    error: /sdkMcpServers must be a list of server names/,
    code: "invalid_request",
    action: { kind: "fail" },
  },
  {
    name: "empty hooks are not a refusal",
    request: { subtype: "initialize", hooks: {}, sdkMcpServers: [] },
    ok: {},
    action: { kind: "initialize", options: {} },
  },
  {
    name: "a bad field fails initialize naming it",
    request: { subtype: "initialize", systemPrompt: [1] },
    error: /systemPrompt must be a list of strings/,
    code: "invalid_request",
    action: { kind: "fail" },
  },
  {
    name: "a second initialize",
    request: { subtype: "initialize" },
    state: { initialized: true },
    error: /already initialized/,
    code: "already_initialized",
    action: { kind: "none" },
  },
  {
    name: "interrupt: queued messages survive and are listed",
    request: { subtype: "interrupt" },
    ok: { still_queued: ["u1", "u2"] },
    action: { kind: "interrupt", cancelQueued: false },
  },
  {
    name: "interrupt with cancel_queued drops them",
    request: { subtype: "interrupt", cancel_queued: true },
    ok: { still_queued: [], cancelled: ["u1", "u2"] },
    action: { kind: "interrupt", cancelQueued: true },
  },
  {
    name: "set_permission_mode narrower than the launch",
    request: { subtype: "set_permission_mode", mode: "plan" },
    ok: { mode: "plan" },
    action: { kind: "set_mode", mode: "plan" },
  },
  {
    name: "set_permission_mode back up to the launch's mode",
    request: { subtype: "set_permission_mode", mode: "acceptEdits" },
    state: { mode: "plan", ceiling: "autoEdit", ceilingSource: "permission mode acceptEdits" },
    ok: { mode: "acceptEdits" },
    action: { kind: "set_mode", mode: "autoEdit" },
  },
  {
    name: "set_permission_mode widens the session (the SDK host's choice) up to its ceiling",
    request: { subtype: "set_permission_mode", mode: "acceptEdits" },
    state: { ceiling: "auto" },
    ok: { mode: "acceptEdits" },
    action: { kind: "set_mode", mode: "autoEdit" },
  },
  {
    name: "auto is a mode (Claude Code's, without its classifier)",
    request: { subtype: "set_permission_mode", mode: "auto" },
    state: { ceiling: "auto" },
    ok: { mode: "auto" },
    action: { kind: "set_mode", mode: "auto" },
  },
  {
    name: "bypassPermissions needs the launch to allow it",
    request: { subtype: "set_permission_mode", mode: "bypassPermissions" },
    state: {
      ceiling: "auto",
      ceilingSource: "bypassPermissions needs --allow-dangerously-skip-permissions",
    },
    error: /Cannot set permission mode to bypassPermissions: .*--allow-dangerously-skip-permissions/,
    code: "above_ceiling",
    action: { kind: "none" },
  },
  {
    name: "bypassPermissions under --allow-dangerously-skip-permissions",
    request: { subtype: "set_permission_mode", mode: "bypassPermissions" },
    state: { ceiling: "yolo", ceilingSource: "--allow-dangerously-skip-permissions" },
    ok: { mode: "bypassPermissions" },
    action: { kind: "set_mode", mode: "yolo" },
  },
  {
    name: "an unknown mode names the known ones",
    request: { subtype: "set_permission_mode", mode: "whenever" },
    error: /Blade's modes are default, .*plan\./,
    code: "invalid_mode",
    action: { kind: "none" },
  },
  {
    name: "set_model resolves an alias",
    request: { subtype: "set_model", model: "haiku" },
    ok: { model: "claude-haiku-4-5" },
    action: { kind: "set_model", model: "claude-haiku-4-5" },
  },
  {
    name: "set_model with no model goes back to the launch's",
    request: { subtype: "set_model" },
    ok: { model: "claude-sonnet-4-5" },
    action: { kind: "set_model", model: "claude-sonnet-4-5" },
  },
  {
    name: "set_model refuses what is not a model id",
    request: { subtype: "set_model", model: "x\u001b[2J y" },
    error: /Cannot set model "x \[2J y"/,
    code: "invalid_model",
    action: { kind: "none" },
  },
  {
    name: "set_max_thinking_tokens sets a budget and keeps the display when none is given",
    request: { subtype: "set_max_thinking_tokens", max_thinking_tokens: 3000 },
    ok: {},
    action: { kind: "set_thinking", budget: 3000, display: "keep" },
  },
  {
    name: "set_max_thinking_tokens 0 with a display (0 turns thinking off where the model allows)",
    request: { subtype: "set_max_thinking_tokens", max_thinking_tokens: 0, thinking_display: "summarized" },
    ok: {},
    action: { kind: "set_thinking", budget: 0, display: "summarized" },
  },
  {
    name: "set_max_thinking_tokens null, display omitted: both back to the launch's",
    request: { subtype: "set_max_thinking_tokens", max_thinking_tokens: null, thinking_display: "omitted" },
    ok: {},
    action: { kind: "set_thinking", budget: undefined, display: "default" },
  },
  {
    name: "set_max_thinking_tokens refuses a budget that is not an integer",
    request: { subtype: "set_max_thinking_tokens", max_thinking_tokens: "abc" },
    error: /max_thinking_tokens must be an integer or null/,
    code: "invalid_request",
    action: { kind: "none" },
  },
  {
    name: "set_max_thinking_tokens refuses an unknown display",
    request: { subtype: "set_max_thinking_tokens", max_thinking_tokens: 10, thinking_display: "loud" },
    error: /thinking_display must be "summarized", "omitted", "highlights", or null/,
    code: "invalid_request",
    action: { kind: "none" },
  },
  {
    name: "stop_task stops the session's task of that id (an unknown one is no error, as in Claude Code)",
    request: { subtype: "stop_task", task_id: "agent-x" },
    ok: {},
    action: { kind: "stop_task", taskId: "agent-x" },
  },
  {
    name: "stop_task without a task_id is refused",
    request: { subtype: "stop_task" },
    error: /stop_task needs task_id/,
    code: "invalid_request",
    action: { kind: "none" },
  },
  {
    name: "mcp_status lists the run's servers",
    request: { subtype: "mcp_status" },
    ok: { mcpServers: [{ name: "docs", status: "connected", tools: [{ name: "mcp__docs__search" }] }] },
    action: { kind: "none" },
  },
  {
    name: "cancel_async_message of a queued message",
    request: { subtype: "cancel_async_message", message_uuid: "u2" },
    ok: { cancelled: true },
    action: { kind: "drop_queued", uuid: "u2" },
  },
  {
    name: "cancel_async_message of one that already ran",
    request: { subtype: "cancel_async_message", message_uuid: "gone" },
    ok: { cancelled: false },
    action: { kind: "none" },
  },
  {
    name: "mcp_message from an in-process server is handed to its transport and acknowledged",
    request: {
      subtype: "mcp_message",
      server_name: "calc",
      message: { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    },
    ok: { mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } },
    action: {
      kind: "mcp_deliver",
      server: "calc",
      message: { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    },
  },
  {
    name: "end_session: the host is closing",
    request: { subtype: "end_session", reason: "host closing" },
    ok: {},
    action: { kind: "end" },
  },
  {
    name: "any other subtype is an error naming it and what Blade answers",
    request: { subtype: "rewind_files", user_message_id: "m" },
    error: /^Unsupported control request subtype: rewind_files\. Blade answers initialize, interrupt,/,
    code: "unsupported_request",
    action: { kind: "none" },
  },
  {
    name: "no subtype at all",
    request: {},
    error: /Unsupported control request subtype: undefined/,
    code: "unsupported_request",
    action: { kind: "none" },
  },
];

Deno.test("decideControl: each request's response and action", () => {
  for (const row of ROWS) {
    const { response, action } = decideControl("r1", row.request, { ...STATE, ...row.state });
    assert.equal(response.request_id, "r1", row.name);
    if (row.ok !== undefined) {
      assert.equal(response.subtype, "success", `${row.name}: ${JSON.stringify(response)}`);
      if (response.subtype === "success") assert.deepEqual(response.response, row.ok, row.name);
    } else {
      assert.equal(response.subtype, "error", row.name);
      if (response.subtype === "error") {
        assert.match(response.error, row.error!, row.name);
        assert.equal(response.error_code, row.code, row.name);
      }
    }
    if (row.action.kind === "fail") assert.equal(action.kind, "fail", row.name);
    else assert.deepEqual(action, row.action, row.name);
  }
});

Deno.test("initializePayload: what Blade can say truly (no slash commands, its agents, its aliases)", () => {
  const payload = initializePayload({
    agents: [{ name: "review", description: "Reviews" }],
    model: "claude-sonnet-4-5",
    aliases: { haiku: "claude-haiku-4-5" },
    mode: "autoEdit",
    apiKeySource: "ANTHROPIC_API_KEY",
  });
  assert.deepEqual(payload.commands, []);
  assert.deepEqual(payload.agents, [{ name: "review", description: "Reviews" }]);
  assert.deepEqual((payload.models as { value: string }[]).map((m) => m.value), ["default", "haiku"]);
  assert.equal(payload.current_permission_mode, "acceptEdits");
  assert.deepEqual(payload.account, { apiKeySource: "ANTHROPIC_API_KEY" });
});

Deno.test("streamJsonInput: user lines, the control protocol's lines, and what is refused", () => {
  assert.equal(streamJsonInput("  ", 1), undefined);
  assert.deepEqual(
    streamJsonInput(
      '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"uuid":"u"}',
      1,
    ),
    { type: "user", text: "hi", uuid: "u" },
  );
  assert.deepEqual(
    streamJsonInput('{"type":"control_request","request_id":"r","request":{"subtype":"interrupt"}}', 1),
    { type: "control_request", requestId: "r", request: { subtype: "interrupt" } },
  );
  assert.deepEqual(
    streamJsonInput('{"type":"control_request","request_id":"r","request":[1]}', 1),
    { type: "control_request", requestId: "r", request: {} },
  );
  assert.deepEqual(streamJsonInput('{"type":"control_cancel_request","request_id":"r"}', 1), {
    type: "control_cancel_request",
    requestId: "r",
  });
  assert.deepEqual(streamJsonInput('{"type":"keep_alive"}', 1), { type: "keep_alive" });
  const refused: [string, RegExp][] = [
    ["not json", /line 3 of standard input is not JSON/],
    ['{"type":"assistant"}', /line 3 is not a user message or a control request \(type "assistant"\)/],
    [
      '{"type":"control_request","request":{"subtype":"interrupt"}}',
      /line 3 is a control_request without a request_id/,
    ],
    ['{"type":"user"}', /line 3 is a user line without a message/],
    ['{"type":"user","message":{"content":""}}', /line 3 has no text content/],
  ];
  for (const [line, message] of refused) {
    assert.throws(() => streamJsonInput(line, 3), (e: unknown) => {
      assert.ok(e instanceof BladeError && e.exitCode === 2, line);
      assert.match(e.message, message);
      return true;
    });
  }
});
