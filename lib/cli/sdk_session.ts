// Owns a print-mode run driven by the Agent SDK over `--input-format stream-json`
// (docs/guides/agent-sdk.md): stdin is read as lines arrive, also while a turn runs; user messages queue
// up and run in order as turns of one session; the SDK's control requests are answered at once, in
// order (cli/sdk_control.ts), Blade's own go out through cli/sdk_outbox.ts. MCP servers start once the
// initialize (with the SDK's servers) is in. Loaded only with `--input-format stream-json`.

import type { App } from "../app.ts";
import type { Ports } from "../sys/mod.ts";
import type { McpHub } from "../mcp/hub.ts";
import { BladeError, usageError } from "../errors.ts";
import { stdinLines } from "../sys/signals.ts";
import { claudeModeName, type PermissionMode } from "../protocol/permission_mode.ts";
import type { Approver } from "../protocol/approval.ts";
import type { HookCallbacks } from "../protocol/hook_callbacks.ts";
import { hookCallbacks, type McpStarter, SdkOutbox, SdkServers } from "./sdk_outbox.ts";
import { type Io, redactedIo } from "./io.ts";
import { jsonTerminalSafe, terminalSafe } from "./sanitize.ts";
import { jsonSchemaOf, type StreamJsonInput, streamJsonInput } from "./print_inputs.ts";
import { runTurn, type SessionChoice, type TurnFlags } from "./print_turn.ts";
import { promptToolApprover } from "./permission_prompt_tool.ts";

import { nameSession, type Values } from "./print_flags.ts";
import { canUseToolRequest, toolVerdict } from "./sdk_control_tool.ts";
import {
  type ControlAction,
  type ControlResponse,
  type ControlState,
  decideControl,
  type InitializeOptions,
} from "./sdk_control.ts";
import { initializeAnswer, sessionApp } from "./sdk_initialize.ts";
import { sdkModeCeiling } from "./sdk_ceiling.ts";
import { stopSessionTask } from "./sdk_task_stop.ts";
import type { Runtime } from "../runtime/runtime.ts";

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
      if (open.resume === undefined) await nameSession(app, { values: d.values, sessionId: done.sessionId });
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
    // The session ends with the input (Claude Code's reason `other`), then its servers stop.
    await d.turn.hookLife?.end("other");
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
  /** The running turn's runtime (stopTask reaches its background tasks through it). */
  #runtime: Runtime | undefined;
  /** setMaxThinkingTokens: the budget and display of the next turns (unset: the launch's). */
  #thinking: { budget?: number; display?: string } = {};
  #sessionId: string | undefined;
  /** Blade's own requests to the SDK (can_use_tool, hook_callback, mcp_message). */
  readonly #outbox: SdkOutbox;
  /** The widest mode a set_permission_mode may set, and why (cli/sdk_ceiling.ts). */
  readonly #ceiling: { mode: PermissionMode; source: string };
  readonly #servers: SdkServers;
  /** The SDK reads `session_state_changed` (it says so with CLAUDE_CODE_SDK_READS_SESSION_STATE=1). */
  readonly #statesWanted: boolean;

  constructor(d: SdkSessionDeps, write: (line: unknown) => void) {
    this.#d = d;
    this.#write = write;
    this.#outbox = new SdkOutbox(write);
    this.#servers = new SdkServers(this.#outbox, d.startMcp);
    this.hooks = hookCallbacks(this.#outbox, () => this.#init.hooks);
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
      this.#outbox.end();
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
    if (this.#statesWanted) {
      this.#write(systemLine("session_state_changed", { state, sdk_host_only: true }, this.#lineIds()));
    }
  }

  /** The run's MCP servers, started once (with the initialize's servers when it came first). */
  mcp(): Promise<McpHub | undefined> {
    return this.#servers.hub(this.#init);
  }

  async close(): Promise<void> {
    await this.#servers.close();
  }

  /** The App of the next turn: the mode and model the SDK set, the agents its initialize gave. */
  appFor(app: App): App {
    return sessionApp(app, { mode: this.#mode, model: this.#model, agents: this.#init.agents });
  }

  /** The turn flags with the initialize's system prompt, schema and hooks, and the SDK's approvals. */
  async flagsFor(turn: TurnFlags): Promise<TurnFlags> {
    const o = this.#init;
    const append = [turn.prompts.appendSystemPrompt, o.appendSystemPrompt].filter((x) => x !== undefined);
    // The SDK's canUseTool: it passes --permission-prompt-tool stdio and answers can_use_tool
    // (`--permission-prompts none`: nobody is asked).
    const asks = this.#d.values["permission-prompt-tool"] === "stdio" &&
      this.#d.values["permission-prompts"] !== "none";
    const approve = asks ? this.#approve : promptToolApprover(this.#d.values, await this.mcp());
    return {
      ...turn,
      prompts: {
        ...turn.prompts,
        ...(o.systemPrompt === undefined ? {} : { systemPrompt: o.systemPrompt }),
        ...(append.length === 0 ? {} : { appendSystemPrompt: append.join("\n\n") }),
      },
      jsonSchema: turn.jsonSchema ?? await this.#schema(),
      ...(approve === undefined ? {} : { approve }),
      ...(o.hooks === undefined ? {} : {
        sdkHooks: this.hooks,
        hookMode: () => claudeModeName(this.#mode ?? this.#d.app.config.permissionMode),
      }),
      ...(this.#thinking.budget === undefined ? {} : { thinkingBudget: this.#thinking.budget }),
      ...(this.#thinking.display === undefined ? {} : { thinkingDisplay: this.#thinking.display }),
      onRuntime: (runtime) => (this.#runtime = runtime),
    };
  }

  /** The SDK's hook callbacks as the HookCallbacks port (protocol/hook_callbacks.ts). */
  readonly hooks: HookCallbacks;

  /** Asks the SDK (can_use_tool) about a call the gate would refuse; a cancelled or unanswered ask denies. */
  readonly #approve: Approver = async (request, signal) => {
    if (signal.aborted || this.#ended) return "deny";
    const asked = canUseToolRequest("", request).request as Record<string, unknown>;
    const verdict = toolVerdict(await this.#outbox.request(asked, signal), request.input ?? {});
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
          void this.#servers.status(this.#initialized || this.#seenUser ? this.#init : undefined).then(
            (mcpServers) => {
              const { response } = decideControl(line.requestId, line.request, {
                ...this.#state(),
                mcpServers,
              });
              this.#write({ type: "control_response", response });
            },
          );
          return;
        }
        const { response, action } = decideControl(line.requestId, line.request, this.#state());
        const answered = await this.#apply(action, response);
        this.#write({ type: "control_response", response: answered });
        if (action.kind === "set_mode" && answered.subtype === "success") this.#status();
        return;
      }
      case "control_response":
        this.#outbox.answered(line.requestId, line.response);
        return;
      // Every request of the SDK is answered before the next line is read: nothing is left to cancel.
      case "control_cancel_request":
      case "keep_alive":
        return;
    }
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
      case "set_thinking": {
        const display = action.display === "keep" ? this.#thinking.display : action.display;
        this.#thinking = {
          ...(action.budget === undefined ? {} : { budget: action.budget }),
          ...(display === undefined || display === "default" ? {} : { display }),
        };
        return response;
      }
      case "drop_queued": {
        const i = this.#queue.findIndex((t) => t.uuid === action.uuid);
        if (i >= 0) this.#queue.splice(i, 1);
        return response;
      }
      case "mcp_deliver":
        this.#servers.deliver(action.server, action.message);
        return response;
      case "stop_task": {
        const { app } = this.#d;
        const what = await stopSessionTask(app, action.taskId, {
          runtime: this.#runtime,
          mode: this.#mode ?? app.config.permissionMode,
        });
        if (app.config.debug) this.#d.io.err(`blade: debug: ${terminalSafe(what)}\n`);
        return response;
      }
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
      if (this.#d.turn.jsonSchema === undefined) await this.#schema();
      return {
        subtype: "success",
        request_id: response.request_id,
        response: await initializeAnswer(this.appFor(this.#d.app), {
          options,
          pid: this.#d.ports.process.pid(),
        }),
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

  /** What a system line of this session carries besides its fields. */
  #lineIds(): { sessionId: string | undefined; uuid: string } {
    return { sessionId: this.#sessionId, uuid: this.#d.app.ports.ids.uuid() };
  }

  /** Claude Code's `system/status` line after a mode change. */
  #status(): void {
    const permissionMode = claudeModeName(this.#mode ?? this.#d.app.config.permissionMode);
    this.#write(systemLine("status", { status: null, permissionMode }, this.#lineIds()));
  }
}

/** A `system` line of the session (Claude Code's shape: subtype, fields, uuid, session_id). */
function systemLine(
  subtype: string,
  fields: Record<string, unknown>,
  o: { sessionId: string | undefined; uuid: string },
) {
  return { type: "system", subtype, ...fields, uuid: o.uuid, session_id: o.sessionId ?? "" };
}
