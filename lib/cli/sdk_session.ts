// Owns a print-mode run driven by the Agent SDK over `--input-format stream-json`
// (docs/guides/agent-sdk.md): stdin is read as lines arrive, also while a turn runs; user messages
// queue up and run in order as turns of one session; the SDK's control requests are answered at once,
// in order (decisions: cli/sdk_control.ts), and Blade's own requests to the SDK — can_use_tool,
// hook_callback, mcp_message — are sent with their ids and answered by its control_response lines.
// The run's MCP servers start once the initialize request (with the SDK's mcpServers and in-process
// servers) has arrived. Loaded only with `--input-format stream-json`, so plain `-p` never pays for it.

import type { App } from "../app.ts";
import type { Ports } from "../sys/mod.ts";
import type { McpHub } from "../mcp/hub.ts";
import type { McpLayer } from "../mcp/config.ts";
import { BladeError, usageError } from "../errors.ts";
import { stdinLines } from "../sys/signals.ts";
import { claudeModeName, type PermissionMode } from "../protocol/permission_mode.ts";
import type { Approver } from "../protocol/approval.ts";
import type { HookCallbackMatcher, HookCallbacks } from "../protocol/hook_callbacks.ts";
import { type Io, redactedIo } from "./io.ts";
import { jsonTerminalSafe, terminalSafe } from "./sanitize.ts";
import { jsonSchemaOf, type StreamJsonInput, streamJsonInput } from "./print_inputs.ts";
import { runTurn, type SessionChoice, type TurnFlags } from "./print_turn.ts";
import type { Values } from "./print_flags.ts";
import { canUseToolRequest, toolVerdict } from "./sdk_control_tool.ts";
import { preToolUseHooks, unfiredEvents } from "./sdk_hooks.ts";
import type { BeforeToolCall } from "../executor/tool_runner.ts";
import { SdkMcpTransport } from "../mcp/sdk_transport.ts";
import {
  type ControlAction,
  type ControlResponse,
  type ControlState,
  decideControl,
  type InitializeOptions,
  initializePayload,
} from "./sdk_control.ts";
import { sdkModeCeiling } from "./sdk_ceiling.ts";

/** What starts the run's MCP servers, with the SDK's own servers of its initialize request. */
export type McpStarter = (extra: {
  extraLayers?: McpLayer[];
  sdkServers?: { names: readonly string[]; transport: (server: string) => SdkMcpTransport };
}) => Promise<McpHub | undefined>;

export interface SdkSessionDeps {
  app: App;
  io: Io;
  ports: Ports;
  values: Values;
  turn: TurnFlags;
  open: SessionChoice;
  startMcp: McpStarter;
  /** The input lines (default: stdin as it arrives). */
  lines?: AsyncIterable<string>;
}

/** Runs the session until stdin ends (or a turn fails); returns the exit code. */
export async function runSdkSession(d: SdkSessionDeps): Promise<number> {
  const io = redactedIo(d.io, d.app.redact);
  const session = new SdkSession(d, (line) => io.out(jsonTerminalSafe(JSON.stringify(line)) + "\n"));
  session.read(d.lines ?? stdinLines());
  let open = d.open;
  let code = 0;
  try {
    for await (const turn of session.turns()) {
      const app = session.appFor(d.app);
      const flags = await session.flagsFor(d.turn);
      const mcp = await session.mcp();
      session.state("running");
      const done = await runTurn(app, d.io, turn.text, open, flags, mcp, turn.stop.signal);
      session.turnEnded(done.sessionId);
      session.state("idle");
      open = { resume: done.sessionId };
      // A turn the SDK interrupted ends cancelled and the session goes on, as in Claude Code.
      if (turn.interrupted) {
        code = 0;
        continue;
      }
      code = done.code;
      if (code !== 0) break;
    }
  } finally {
    await session.close();
  }
  return code;
}

interface Turn {
  text: string;
  uuid?: string;
  stop: AbortController;
  interrupted: boolean;
}

class SdkSession {
  readonly #d: SdkSessionDeps;
  readonly #write: (line: unknown) => void;
  readonly #queue: Turn[] = [];
  #running: Turn | undefined;
  #ended = false;
  #failure: Error | undefined;
  #wake: (() => void) | undefined;
  #seenUser = false;
  #seenControl = false;
  #initialized = false;
  readonly #initializedSignal = Promise.withResolvers<void>();
  #init: InitializeOptions = {};
  #mode: PermissionMode | undefined;
  #model: string | undefined;
  #sessionId: string | undefined;
  /** Blade's requests to the SDK waiting for its control_response, by request id. */
  readonly #asked = new Map<string, (response: Record<string, unknown>) => void>();
  #askedCount = 0;
  /** The widest mode a set_permission_mode may set, and why (cli/sdk_ceiling.ts). */
  readonly #ceiling: { mode: PermissionMode; source: string };
  readonly #transports = new Map<string, SdkMcpTransport>();
  #mcp: Promise<McpHub | undefined> | undefined;
  /** The SDK reads `session_state_changed` (it says so with CLAUDE_CODE_SDK_READS_SESSION_STATE=1). */
  readonly #statesWanted: boolean;

  constructor(d: SdkSessionDeps, write: (line: unknown) => void) {
    this.#d = d;
    this.#write = write;
    this.#ceiling = sdkModeCeiling({
      launched: d.app.config.permissionMode,
      allowBypass: d.values["allow-dangerously-skip-permissions"] === true,
    });
    this.#statesWanted = d.ports.env.get("CLAUDE_CODE_SDK_READS_SESSION_STATE") === "1";
  }

  /** Reads every line in the background; a bad line stops reading and fails the next turn. */
  read(lines: AsyncIterable<string>): void {
    (async () => {
      let n = 0;
      for await (const raw of lines) {
        const line = streamJsonInput(raw, ++n);
        if (line !== undefined) await this.#handle(line);
        if (this.#failure !== undefined || this.#ended) break;
      }
      if (!this.#seenUser && !this.#seenControl && this.#failure === undefined) {
        this.#failure = usageError("--input-format stream-json: no user message on standard input.");
      }
    })().catch((e) => {
      this.#failure = e instanceof Error ? e : new Error(String(e));
    }).finally(() => {
      this.#ended = true;
      // Nobody is left to answer Blade's requests: a can_use_tool is denied, a hook or MCP call fails.
      for (const resolve of this.#asked.values()) {
        resolve({ subtype: "error", error: "standard input ended" });
      }
      this.#asked.clear();
      this.#initializedSignal.resolve();
      this.#wake?.();
    });
  }

  /** The user turns in order, as they arrive; throws the failure that ended the input, if any. */
  async *turns(): AsyncGenerator<Turn> {
    // `--await-initialize`: nothing runs before the SDK's initialize (its servers and hooks) arrives.
    if (this.#d.values["await-initialize"] === true) await this.#initializedSignal.promise;
    while (true) {
      const next = this.#failure === undefined ? this.#queue.shift() : undefined;
      if (next !== undefined) {
        this.#running = next;
        yield next;
        continue;
      }
      if (this.#failure !== undefined) throw this.#failure;
      if (this.#ended) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }

  turnEnded(sessionId: string): void {
    this.#running = undefined;
    this.#sessionId = sessionId;
  }

  /** Claude Code's `session_state_changed` (running, idle), which the SDK waits for before it ends a run. */
  state(state: "running" | "idle"): void {
    if (!this.#statesWanted) return;
    this.#write({
      type: "system",
      subtype: "session_state_changed",
      state,
      sdk_host_only: true,
      uuid: crypto.randomUUID(),
      session_id: this.#sessionId ?? "",
    });
  }

  /** The run's MCP servers, started once (with the initialize's servers when it came first). */
  mcp(): Promise<McpHub | undefined> {
    return this.#mcp ??= this.#d.startMcp({
      ...(this.#init.mcpServers === undefined ? {} : {
        extraLayers: [{ source: "flag", origin: "the Agent SDK's mcpServers (initialize)", servers: this.#init.mcpServers }],
      }),
      ...(this.#init.sdkMcpServers === undefined ? {} : {
        sdkServers: { names: this.#init.sdkMcpServers, transport: (name) => this.#transport(name) },
      }),
    });
  }

  async close(): Promise<void> {
    await (await this.#mcp?.catch(() => undefined))?.close();
  }

  #transport(server: string): SdkMcpTransport {
    const made = new SdkMcpTransport(server, async (name, message) => {
      const answer = await this.#request({ subtype: "mcp_message", server_name: name, message });
      if (answer.subtype !== "success") throw new Error(String(answer.error ?? "the SDK refused the MCP message"));
      return (answer.response ?? {}) as Record<string, unknown>;
    });
    this.#transports.set(server, made);
    return made;
  }

  /** The App of the next turn: the mode and model the SDK set, the agents its initialize gave. */
  appFor(app: App): App {
    const agents = this.#agentsJson(app);
    return {
      ...app,
      config: {
        ...app.config,
        permissionMode: this.#mode ?? app.config.permissionMode,
        model: this.#model ?? app.config.model,
      },
      flags: { ...app.flags, ...(agents === undefined ? {} : { agentsJson: agents }) },
    };
  }

  /** The turn flags with the initialize's system prompt, schema and hooks, and the SDK's approvals. */
  async flagsFor(turn: TurnFlags): Promise<TurnFlags> {
    const o = this.#init;
    const append = [turn.prompts.appendSystemPrompt, o.appendSystemPrompt].filter((x) => x !== undefined);
    // The SDK's canUseTool: it passes --permission-prompt-tool stdio and answers can_use_tool
    // (`--permission-prompts none`: nobody is asked).
    const asks = this.#d.values["permission-prompt-tool"] === "stdio" &&
      this.#d.values["permission-prompts"] !== "none";
    return {
      ...turn,
      prompts: {
        ...turn.prompts,
        ...(o.systemPrompt === undefined ? {} : { systemPrompt: o.systemPrompt }),
        ...(append.length === 0 ? {} : { appendSystemPrompt: append.join("\n\n") }),
      },
      jsonSchema: turn.jsonSchema ?? await this.#schema(),
      ...(asks ? { approve: this.#approve } : {}),
      ...(o.hooks === undefined ? {} : { beforeToolCall: this.#preToolUse() }),
    };
  }

  /** The SDK's hook callbacks as the HookCallbacks port (protocol/hook_callbacks.ts). */
  readonly hooks: HookCallbacks = {
    events: () => [...this.#init.hooks?.keys() ?? []],
    matchers: (event): readonly HookCallbackMatcher[] => this.#init.hooks?.get(event) ?? [],
    call: async (callbackId, input, options) => {
      const answer = await this.#request(
        {
          subtype: "hook_callback",
          callback_id: callbackId,
          input,
          ...(options.toolUseId === undefined ? {} : { tool_use_id: options.toolUseId }),
        },
        options.signal,
      );
      if (answer.subtype !== "success") {
        throw new Error(String(answer.error ?? "the SDK's hook callback failed"));
      }
      const body = answer.response;
      return typeof body === "object" && body !== null && !Array.isArray(body)
        ? body as Record<string, unknown>
        : {};
    },
  };

  /** The SDK's PreToolUse callbacks before each call of the top-level session (cli/sdk_hooks.ts). */
  #preToolUse(): BeforeToolCall {
    const { app, io } = this.#d;
    return preToolUseHooks(this.hooks, {
      sessionId: () => this.#sessionId ?? "",
      transcriptPath: () =>
        this.#sessionId === undefined ? "" : app.layout.transcriptPath(app.workspace, this.#sessionId),
      cwd: app.workspace,
      permissionMode: () => claudeModeName(this.#mode ?? app.config.permissionMode),
      warn: (line) => io.err(`blade: warning: ${terminalSafe(line)}\n`),
    });
  }

  /**
   * Sends one of Blade's control requests and resolves with the SDK's response (`{subtype, response}`
   * or `{subtype: "error", error}`); an aborted `signal` withdraws it (control_cancel_request).
   */
  #request(request: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.#ended) return Promise.resolve({ subtype: "error", error: "standard input ended" });
    const id = `blade_${String(request.subtype)}_${++this.#askedCount}`;
    const answer = new Promise<Record<string, unknown>>((resolve) => {
      this.#asked.set(id, resolve);
      signal?.addEventListener("abort", () => {
        if (!this.#asked.delete(id)) return;
        this.#write({ type: "control_cancel_request", request_id: id });
        resolve({ subtype: "error", error: "cancelled" });
      }, { once: true });
    });
    this.#write({ type: "control_request", request_id: id, request });
    return answer;
  }

  /** Asks the SDK (can_use_tool) about a call the gate would refuse; a cancelled or unanswered ask denies. */
  readonly #approve: Approver = async (request, signal) => {
    if (signal.aborted || this.#ended) return "deny";
    const asked = canUseToolRequest("", request).request as Record<string, unknown>;
    const verdict = toolVerdict(await this.#request(asked, signal), request.input ?? {});
    if (verdict.interrupt) this.#interrupt();
    return verdict.verdict;
  };

  #interrupt(): void {
    const running = this.#running;
    if (running !== undefined && !running.stop.signal.aborted) {
      running.interrupted = true;
      running.stop.abort(new Error("interrupted by the SDK"));
    }
  }

  #checkedSchema: Promise<Record<string, unknown> | undefined> | undefined;

  /** The initialize's jsonSchema, checked once as `--json-schema` is (a bad one fails initialize). */
  #schema(): Promise<Record<string, unknown> | undefined> {
    const schema = this.#init.jsonSchema;
    if (schema === undefined) return Promise.resolve(undefined);
    return this.#checkedSchema ??= jsonSchemaOf({ "json-schema": JSON.stringify(schema) }, this.#d.ports);
  }

  #agentsJson(app: App): string | undefined {
    const given = this.#init.agents;
    if (given === undefined) return undefined;
    let flag: Record<string, unknown> = {};
    try {
      flag = app.flags.agentsJson === undefined ? {} : JSON.parse(app.flags.agentsJson);
    } catch {
      return app.flags.agentsJson; // its own error is reported when the registry loads it
    }
    return JSON.stringify({ ...flag, ...given });
  }

  #state(): ControlState {
    const { app } = this.#d;
    return {
      initialized: this.#initialized,
      mode: this.#mode ?? app.config.permissionMode,
      ceiling: this.#ceiling.mode,
      ceilingSource: this.#ceiling.source,
      defaultModel: app.config.model,
      aliases: app.config.aliases,
      queued: this.#queue.flatMap((t) => (t.uuid === undefined ? [] : [t.uuid])),
      mcpServers: [],
    };
  }

  async #handle(line: StreamJsonInput): Promise<void> {
    switch (line.type) {
      case "user":
        this.#seenUser = true;
        this.#queue.push({
          text: line.text,
          ...(line.uuid === undefined ? {} : { uuid: line.uuid }),
          stop: new AbortController(),
          interrupted: false,
        });
        this.#wake?.();
        return;
      case "control_request": {
        this.#seenControl = true;
        if (line.request.subtype === "mcp_status") {
          // Starting the servers may need the SDK's answers (its in-process servers): never wait for
          // them here, where its answers are read.
          void this.#mcpStatus().then((mcpServers) => {
            const { response } = decideControl(line.requestId, line.request, { ...this.#state(), mcpServers });
            this.#write({ type: "control_response", response });
          });
          return;
        }
        const { response, action } = decideControl(line.requestId, line.request, this.#state());
        const answered = await this.#apply(action, response);
        this.#write({ type: "control_response", response: answered });
        if (action.kind === "set_mode" && answered.subtype === "success") this.#status();
        return;
      }
      case "control_response": {
        const resolve = this.#asked.get(line.requestId);
        this.#asked.delete(line.requestId);
        resolve?.(line.response); // one for no request of ours is ignored, as Claude Code does
        return;
      }
      // Every request of the SDK is answered before the next line is read: nothing is left to cancel.
      case "control_cancel_request":
      case "keep_alive":
        return;
    }
  }

  async #mcpStatus(): Promise<ControlState["mcpServers"]> {
    const hub = this.#initialized || this.#seenUser ? await this.mcp() : undefined;
    return (hub?.status() ?? []).map((s) => ({
      name: s.name,
      status: s.status,
      ...(s.error === undefined ? {} : { error: s.error }),
      tools: s.tools.map((t) => t.name),
    }));
  }

  /** Applies a decision; returns the response to send (initialize fills in its payload here). */
  async #apply(action: ControlAction, response: ControlResponse): Promise<ControlResponse> {
    switch (action.kind) {
      case "none":
        return response;
      case "interrupt":
        if (action.cancelQueued) this.#queue.splice(0);
        this.#interrupt();
        return response;
      case "set_mode":
        this.#mode = action.mode;
        return response;
      case "set_model":
        this.#model = action.model;
        return response;
      case "drop_queued": {
        const i = this.#queue.findIndex((t) => t.uuid === action.uuid);
        if (i >= 0) this.#queue.splice(i, 1);
        return response;
      }
      case "mcp_deliver":
        this.#transports.get(action.server)?.deliver(action.message);
        return response;
      case "end":
        // The host is closing: nothing more is read; the turns already queued still run.
        this.#ended = true;
        this.#wake?.();
        return response;
      case "fail":
        this.#failure = new BladeError("sdk_option_unsupported", action.message, {
          hint: "docs/guides/agent-sdk.md lists what Blade honours of the Agent SDK's options.",
        });
        return response;
      case "initialize":
        return await this.#initialize(action.options, response);
    }
  }

  async #initialize(options: InitializeOptions, response: ControlResponse): Promise<ControlResponse> {
    this.#initialized = true;
    this.#init = options;
    try {
      const app = this.appFor(this.#d.app);
      const registry = await app.registry();
      if (this.#d.turn.jsonSchema === undefined) await this.#schema();
      const unfired = unfiredEvents(this.hooks);
      if (unfired.length > 0) {
        this.#d.io.err(
          `blade: warning: the Agent SDK's hooks for ${
            terminalSafe(unfired.join(", "))
          } do not run yet: Blade fires PreToolUse only.\n`,
        );
      }
      return {
        subtype: "success",
        request_id: response.request_id,
        response: {
          ...initializePayload({
            agents: registry.list().map((a) => ({
              name: a.name,
              description: a.description,
              ...(a.model === "inherit" ? {} : { model: a.model }),
            })),
            model: app.config.model,
            aliases: app.config.aliases,
            mode: app.config.permissionMode,
            apiKeySource: app.config.provider === "anthropic"
              ? app.config.anthropic.apiKeySource ?? "none"
              : "none",
          }),
          ...(options.hooks === undefined ? {} : { hooks_applied: true }),
          ...(options.mcpServers === undefined ? {} : { mcp_servers_applied: true }),
          ...(options.plugins === true ? { plugins_applied: false } : {}),
          pid: this.#d.ports.process.pid(),
        },
        pending_permission_requests: [],
        pending_user_dialog_requests: [],
      };
    } catch (e) {
      const message = `initialize: ${e instanceof Error ? e.message : String(e)}`;
      this.#failure = e instanceof BladeError ? e : new BladeError("sdk_option_unsupported", message);
      return {
        subtype: "error",
        request_id: response.request_id,
        error: message,
        error_code: "invalid_request",
      };
    } finally {
      this.#initializedSignal.resolve();
    }
  }

  /** Claude Code's `system/status` line after a mode change. */
  #status(): void {
    this.#write({
      type: "system",
      subtype: "status",
      status: null,
      permissionMode: claudeModeName(this.#mode ?? this.#d.app.config.permissionMode),
      uuid: crypto.randomUUID(),
      session_id: this.#sessionId ?? "",
    });
  }
}
