// Owns the decisions of the Agent SDK's control protocol on `--input-format stream-json`
// (docs/guides/agent-sdk.md): what Blade answers to each `control_request` the SDK sends, and what the
// session must do about it. Pure (request + state → response + action) and table-tested; the wiring
// that reads stdin, writes the responses and applies the actions is cli/sdk_session.ts.
//
//   {"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}
//   → {"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{…}}}

import {
  claudeModeName,
  parsePermissionMode,
  PERMISSION_MODE_NAMES,
  type PermissionMode,
} from "../protocol/permission_mode.ts";
import { MODE_ORDER } from "../permissions/ceiling.ts";
import { resolveModel } from "../config/config.ts";
import { VERSION } from "../version.ts";
import { type HookCallbackMatcher, hookMatchersOf } from "../protocol/hook_callbacks.ts";

/** The subtypes Blade answers with success (any other gets an error response naming it). */
export const ANSWERED_SUBTYPES = [
  "initialize",
  "interrupt",
  "set_permission_mode",
  "set_model",
  "set_max_thinking_tokens",
  "mcp_status",
  "mcp_message",
  "cancel_async_message",
  "stop_task",
  "end_session",
] as const;

export type ControlResponse =
  | {
    subtype: "success";
    request_id: string;
    response: Record<string, unknown>;
    /** On initialize, as Claude Code: the prompts Blade has asked and not had answered (none). */
    pending_permission_requests?: [];
    pending_user_dialog_requests?: [];
  }
  | { subtype: "error"; request_id: string; error: string; error_code: string };

/** What the session does besides answering. */
export type ControlAction =
  | { kind: "none" }
  /** Abort the running turn (as Ctrl-C does; the session goes on); drop the queued messages too. */
  | { kind: "interrupt"; cancelQueued: boolean }
  | { kind: "set_mode"; mode: PermissionMode }
  | { kind: "set_model"; model: string }
  /**
   * The thinking of the next turns: a budget (0 = off where the model allows; undefined = the launch's)
   * and the display — kept, back to the launch's (`default`), or the SDK's choice.
   */
  | {
    kind: "set_thinking";
    budget: number | undefined;
    display: "keep" | "default" | "summarized" | "highlights";
  }
  | { kind: "drop_queued"; uuid: string }
  /** Stop a background task of the session (an agent or a command), as TaskStop does. */
  | { kind: "stop_task"; taskId: string }
  /** The SDK's session options: applied before the first turn. */
  | { kind: "initialize"; options: InitializeOptions }
  /** An initialize Blade cannot honour: the session ends with this error (its turns would run unguarded). */
  | { kind: "fail"; message: string }
  /** A message of an in-process MCP server, sent by the server on its own (a list_changed notification). */
  | { kind: "mcp_deliver"; server: string; message: unknown }
  /** The SDK host is closing: no more input is read; the queued turns end the run. */
  | { kind: "end" };

export interface InitializeOptions {
  /** `systemPrompt` blocks (the SDK sends `[""]` when none was given: an empty base prompt). */
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** `agents`: subagent definitions in Claude Code's `--agents` shape. */
  agents?: Record<string, unknown>;
  /** `jsonSchema` (the SDK's outputFormat); the `--json-schema` flag wins when both are given. */
  jsonSchema?: Record<string, unknown>;
  /** `hooks`: the SDK's hook callbacks by event (run through the HookCallbacks port). */
  hooks?: Map<string, HookCallbackMatcher[]>;
  /** `sdkMcpServers`: the names of the SDK's in-process MCP servers (reached with mcp_message). */
  sdkMcpServers?: string[];
  /** `mcpServers` (the SDK's default delivery, with `--await-initialize`): more MCP servers. */
  mcpServers?: Record<string, unknown>;
  /** `plugins` sent with the initialize: not loaded (the answer says `plugins_applied: false`). */
  plugins?: boolean;
}

export interface ControlState {
  initialized: boolean;
  /**
   * The mode now in effect, and the widest a request may set: the top-level session may widen (the
   * SDK host's choice; children keep the grant they were started with), up to `auto` — up to
   * `bypassPermissions` with --allow-dangerously-skip-permissions — and in an untrusted folder not past
   * what the command line granted (cli/sdk_session.ts).
   */
  mode: PermissionMode;
  ceiling: PermissionMode;
  /** Why nothing wider may be set, for a refusal. */
  ceilingSource: string;
  /** The launch's model (what `set_model` with no model or "default" goes back to) and the aliases. */
  defaultModel: string;
  aliases: Readonly<Record<string, string>>;
  /** The uuids of user messages read and not yet started (they survive an interrupt). */
  queued: readonly string[];
  /** `mcp_status`: the run's MCP servers. */
  mcpServers: readonly { name: string; status: string; error?: string; tools: readonly string[] }[];
}

export interface Decision {
  response: ControlResponse;
  action: ControlAction;
}

const NONE: ControlAction = { kind: "none" };

function success(id: string, response: Record<string, unknown> = {}): ControlResponse {
  return { subtype: "success", request_id: id, response };
}

function error(id: string, code: string, message: string): ControlResponse {
  return { subtype: "error", request_id: id, error: message, error_code: code };
}

/** Blade's answer to one control request, and what the session must do. */
export function decideControl(
  id: string,
  request: Record<string, unknown>,
  state: ControlState,
): Decision {
  const subtype = typeof request.subtype === "string" ? request.subtype : "";
  switch (subtype) {
    case "initialize":
      return initialize(id, request, state);
    case "interrupt": {
      const cancelQueued = request.cancel_queued === true;
      return {
        response: success(
          id,
          cancelQueued ? { still_queued: [], cancelled: [...state.queued] } : {
            still_queued: [...state.queued],
          },
        ),
        action: { kind: "interrupt", cancelQueued },
      };
    }
    case "set_permission_mode":
      return setMode(id, request.mode, state);
    case "set_model":
      return setModel(id, request.model, state);
    case "set_max_thinking_tokens":
      return setThinking(id, request);
    case "mcp_status":
      return {
        response: success(id, {
          mcpServers: state.mcpServers.map((s) => ({
            name: s.name,
            status: s.status,
            ...(s.error === undefined ? {} : { error: s.error }),
            tools: s.tools.map((name) => ({ name })),
          })),
        }),
        action: NONE,
      };
    case "mcp_message": {
      const server = request.server_name;
      if (typeof server !== "string") {
        return { response: error(id, "invalid_request", "mcp_message needs server_name."), action: NONE };
      }
      // The SDK does not wait for this answer; its acknowledgement mirrors Claude Code's.
      return {
        response: success(id, { mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } }),
        action: { kind: "mcp_deliver", server, message: request.message },
      };
    }
    case "end_session":
      return { response: success(id), action: { kind: "end" } };
    case "stop_task":
      // As Claude Code: an id no task of the session has is no error (nothing to stop).
      return typeof request.task_id === "string" && request.task_id !== ""
        ? { response: success(id), action: { kind: "stop_task", taskId: request.task_id } }
        : { response: error(id, "invalid_request", "stop_task needs task_id."), action: NONE };
    case "cancel_async_message":
      return cancelQueued(id, request.message_uuid, state);
    default:
      return {
        response: error(
          id,
          "unsupported_request",
          `Unsupported control request subtype: ${printable(subtype || String(request.subtype))}. ` +
            `Blade answers ${ANSWERED_SUBTYPES.join(", ")}.`,
        ),
        action: NONE,
      };
  }
}

/** cancel_async_message: drops a queued user message by its uuid (one already started stays). */
function cancelQueued(id: string, uuid: unknown, state: ControlState): Decision {
  if (typeof uuid !== "string") {
    return {
      response: error(id, "invalid_request", "cancel_async_message needs message_uuid."),
      action: NONE,
    };
  }
  const queued = state.queued.includes(uuid);
  return {
    response: success(id, { cancelled: queued }),
    action: queued ? { kind: "drop_queued", uuid } : NONE,
  };
}

/** A value from the request, quoted for a message (cut, one line). */
function printable(value: string): string {
  // deno-lint-ignore no-control-regex
  const one = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
  return one.length > 80 ? `${one.slice(0, 80)}…` : one;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function initialize(id: string, request: Record<string, unknown>, state: ControlState): Decision {
  if (state.initialized) {
    return {
      response: error(
        id,
        "already_initialized",
        "The session was already initialized; Blade takes one initialize.",
      ),
      action: NONE,
    };
  }
  const bad = badInitializeField(request);
  if (bad !== undefined) {
    const message = `initialize: ${bad}.`;
    return { response: error(id, "invalid_request", message), action: { kind: "fail", message } };
  }
  const hooks = hookMatchersOf(request.hooks);
  if (hooks.problems.length > 0) {
    const message = `initialize: ${hooks.problems.map(printable).join("; ")}.`;
    return { response: error(id, "invalid_request", message), action: { kind: "fail", message } };
  }
  const system = request.systemPrompt;
  const options: InitializeOptions = {
    ...(Array.isArray(system) ? { systemPrompt: system.join("\n\n") } : {}),
    ...(typeof system === "string" ? { systemPrompt: system } : {}),
    ...(typeof request.appendSystemPrompt === "string"
      ? { appendSystemPrompt: request.appendSystemPrompt }
      : {}),
    ...(isRecord(request.agents) && Object.keys(request.agents).length > 0 ? { agents: request.agents } : {}),
    ...(isRecord(request.jsonSchema) ? { jsonSchema: request.jsonSchema } : {}),
    ...(hooks.byEvent.size > 0 ? { hooks: hooks.byEvent } : {}),
    ...(Array.isArray(request.sdkMcpServers) && request.sdkMcpServers.length > 0
      ? { sdkMcpServers: request.sdkMcpServers as string[] }
      : {}),
    ...(isRecord(request.mcpServers) && Object.keys(request.mcpServers).length > 0
      ? { mcpServers: request.mcpServers }
      : {}),
    ...(Array.isArray(request.plugins) && request.plugins.length > 0 ? { plugins: true } : {}),
  };
  // The payload (agents, models, account) is the session's to fill in: it knows the registry.
  return { response: success(id), action: { kind: "initialize", options } };
}

/** A field of the wrong type: named, so the SDK user sees what to fix. */
function badInitializeField(request: Record<string, unknown>): string | undefined {
  const system = request.systemPrompt;
  if (
    system !== undefined && typeof system !== "string" &&
    !(Array.isArray(system) && system.every((s) => typeof s === "string"))
  ) return "systemPrompt must be a list of strings";
  if (request.appendSystemPrompt !== undefined && typeof request.appendSystemPrompt !== "string") {
    return "appendSystemPrompt must be a string";
  }
  if (request.agents !== undefined && !isRecord(request.agents)) {
    return "agents must be an object of definitions";
  }
  if (request.jsonSchema !== undefined && !isRecord(request.jsonSchema)) {
    return "jsonSchema must be an object";
  }
  const servers = request.sdkMcpServers;
  if (servers !== undefined && !(Array.isArray(servers) && servers.every((s) => typeof s === "string"))) {
    return "sdkMcpServers must be a list of server names";
  }
  if (request.mcpServers !== undefined && !isRecord(request.mcpServers)) {
    return "mcpServers must be an object of server definitions";
  }
  return undefined;
}

function setMode(id: string, raw: unknown, state: ControlState): Decision {
  const names = PERMISSION_MODE_NAMES.join(", ");
  if (typeof raw !== "string") {
    return {
      response: error(id, "invalid_mode", `set_permission_mode needs a mode: one of ${names}.`),
      action: NONE,
    };
  }
  const mode = parsePermissionMode(raw);
  if (mode === undefined) {
    return {
      response: error(
        id,
        "invalid_mode",
        `Cannot set permission mode ${JSON.stringify(printable(raw))}: Blade's modes are ${names}.`,
      ),
      action: NONE,
    };
  }
  if (MODE_ORDER.indexOf(mode) > MODE_ORDER.indexOf(state.ceiling)) {
    return {
      response: error(
        id,
        "above_ceiling",
        `Cannot set permission mode to ${raw}: ${state.ceilingSource}. Start the session with ` +
          `--permission-mode ${claudeModeName(mode)}${
            mode === "yolo" ? " or --allow-dangerously-skip-permissions" : ""
          } instead.`,
      ),
      action: NONE,
    };
  }
  return { response: success(id, { mode: claudeModeName(mode) }), action: { kind: "set_mode", mode } };
}

function setModel(id: string, raw: unknown, state: ControlState): Decision {
  if (raw === undefined || raw === null || raw === "default") {
    return {
      response: success(id, { model: state.defaultModel }),
      action: { kind: "set_model", model: state.defaultModel },
    };
  }
  // An id goes into request bodies and transcripts: one printable word, as the API's ids are.
  if (typeof raw !== "string" || !/^[\w.:@/-]{1,200}$/.test(raw)) {
    return {
      response: error(
        id,
        "invalid_model",
        `Cannot set model ${
          JSON.stringify(printable(String(raw)))
        }: give a model id or an alias (sonnet, opus, haiku).`,
      ),
      action: NONE,
    };
  }
  const model = resolveModel(raw, state.aliases);
  return { response: success(id, { model }), action: { kind: "set_model", model } };
}

const DISPLAYS = ["summarized", "omitted", "highlights"];

/**
 * The SDK's setMaxThinkingTokens(tokens, display), as Claude Code 2.1.332 takes it
 * (tests/fixtures/sdk/max_thinking_tokens.json): an integer budget or null (the launch's); a display
 * left out keeps the current one, null or `omitted` goes back to the launch's.
 */
function setThinking(id: string, request: Record<string, unknown>): Decision {
  const tokens = request.max_thinking_tokens;
  const display = request.thinking_display;
  const tokensOk = tokens === undefined || tokens === null || Number.isSafeInteger(tokens);
  const displayOk = display === undefined || display === null || DISPLAYS.includes(display as string);
  if (!tokensOk || !displayOk) {
    return {
      response: error(
        id,
        "invalid_request",
        'set_max_thinking_tokens: max_thinking_tokens must be an integer or null and thinking_display must be "summarized", "omitted", "highlights", or null',
      ),
      action: NONE,
    };
  }
  return {
    response: success(id),
    action: {
      kind: "set_thinking",
      budget: typeof tokens === "number" ? tokens : undefined,
      display: display === undefined
        ? "keep"
        : display === "summarized" || display === "highlights"
        ? display
        : "default",
    },
  };
}

export interface InitializeInfo {
  agents: { name: string; description: string; model?: string }[];
  /** The session's model and the aliases it knows (sonnet, opus, haiku …). */
  model: string;
  aliases: Readonly<Record<string, string>>;
  mode: PermissionMode;
  apiKeySource: string;
}

/**
 * The success payload of `initialize`, as far as Blade can say it truly: no slash commands or output
 * styles in print mode, the agents of its registry, its model aliases, where the key came from.
 */
export function initializePayload(info: InitializeInfo): Record<string, unknown> {
  return {
    commands: [],
    agents: info.agents,
    output_style: "default",
    available_output_styles: ["default"],
    models: [
      {
        value: "default",
        resolvedModel: info.model,
        displayName: "Default",
        description: `The session's model (${info.model})`,
      },
      ...Object.entries(info.aliases).map(([alias, id]) => ({
        value: alias,
        resolvedModel: id,
        displayName: alias,
        description: id,
      })),
    ],
    account: { apiKeySource: info.apiKeySource },
    current_permission_mode: claudeModeName(info.mode),
    blade_version: VERSION,
  };
}
