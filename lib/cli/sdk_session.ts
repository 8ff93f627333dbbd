// Owns a print-mode run driven by the Agent SDK over `--input-format stream-json`
// (docs/guides/agent-sdk.md): stdin is read as lines arrive, also while a turn runs; user messages
// queue up and run in order as turns of one session; control requests are answered at once, in order,
// with control_response lines on stdout (decisions: cli/sdk_control.ts). Loaded only with
// `--input-format stream-json`, so plain `-p` never pays for it.

import type { App } from "../app.ts";
import type { Ports } from "../sys/mod.ts";
import type { McpHub } from "../mcp/hub.ts";
import { BladeError, usageError } from "../errors.ts";
import { stdinLines } from "../sys/signals.ts";
import { claudeModeName, type PermissionMode } from "../protocol/permission_mode.ts";
import { type Io, redactedIo } from "./io.ts";
import { jsonTerminalSafe } from "./sanitize.ts";
import { jsonSchemaOf, type StreamJsonInput, streamJsonInput } from "./print_inputs.ts";
import { runTurn, type SessionChoice, type TurnFlags } from "./print_turn.ts";
import type { Values } from "./print_flags.ts";
import type { Approver } from "../protocol/approval.ts";
import { canUseToolRequest, toolVerdict } from "./sdk_control_tool.ts";
import {
  type ControlAction,
  type ControlResponse,
  type ControlState,
  decideControl,
  type InitializeOptions,
  initializePayload,
} from "./sdk_control.ts";

export interface SdkSessionDeps {
  app: App;
  io: Io;
  ports: Ports;
  values: Values;
  turn: TurnFlags;
  open: SessionChoice;
  mcp: McpHub | undefined;
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
  for await (const turn of session.turns()) {
    const app = session.appFor(d.app);
    const flags = await session.flagsFor(d.turn);
    const done = await runTurn(app, d.io, turn.text, open, flags, d.mcp, turn.stop.signal);
    session.turnEnded(done.sessionId);
    open = { resume: done.sessionId };
    // A turn the SDK interrupted ends cancelled and the session goes on, as in Claude Code.
    if (turn.interrupted) {
      code = 0;
      continue;
    }
    code = done.code;
    if (code !== 0) break;
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
  #init: InitializeOptions = {};
  #mode: PermissionMode | undefined;
  #model: string | undefined;
  #sessionId: string | undefined;
  /** Our can_use_tool requests waiting for the SDK's control_response, by request id. */
  readonly #asked = new Map<string, (response: Record<string, unknown>) => void>();
  #askedCount = 0;
  /** The launch's mode and how far a request may widen it. */
  readonly #ceiling: { mode: PermissionMode; source: string };

  constructor(d: SdkSessionDeps, write: (line: unknown) => void) {
    this.#d = d;
    this.#write = write;
    const launched = d.app.config.permissionMode;
    this.#ceiling = d.values["allow-dangerously-skip-permissions"] === true
      ? { mode: "yolo", source: "--allow-dangerously-skip-permissions" }
      : { mode: launched, source: `permission mode ${claudeModeName(launched)}` };
  }

  /** Reads every line in the background; a bad line stops reading and fails the next turn. */
  read(lines: AsyncIterable<string>): void {
    (async () => {
      let n = 0;
      for await (const raw of lines) {
        const line = streamJsonInput(raw, ++n);
        if (line !== undefined) await this.#handle(line);
        if (this.#failure !== undefined) break;
      }
      if (!this.#seenUser && !this.#seenControl && this.#failure === undefined) {
        this.#failure = usageError("--input-format stream-json: no user message on standard input.");
      }
    })().catch((e) => {
      this.#failure = e instanceof Error ? e : new Error(String(e));
    }).finally(() => {
      this.#ended = true;
      // Nobody is left to answer our can_use_tool requests: they are denied.
      for (const resolve of this.#asked.values()) {
        resolve({ subtype: "error", error: "standard input ended" });
      }
      this.#asked.clear();
      this.#wake?.();
    });
  }

  /** The user turns in order, as they arrive; throws the failure that ended the input, if any. */
  async *turns(): AsyncGenerator<Turn> {
    while (true) {
      const next = this.#queue.shift();
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

  /** The turn flags with the initialize's system prompt and schema. */
  async flagsFor(turn: TurnFlags): Promise<TurnFlags> {
    const o = this.#init;
    const append = [turn.prompts.appendSystemPrompt, o.appendSystemPrompt].filter((x) => x !== undefined);
    return {
      ...turn,
      prompts: {
        ...turn.prompts,
        ...(o.systemPrompt === undefined ? {} : { systemPrompt: o.systemPrompt }),
        ...(append.length === 0 ? {} : { appendSystemPrompt: append.join("\n\n") }),
      },
      jsonSchema: turn.jsonSchema ?? await this.#schema(),
      // The SDK's canUseTool: it passes --permission-prompt-tool stdio and answers can_use_tool.
      ...(this.#d.values["permission-prompt-tool"] === "stdio" ? { approve: this.#approve } : {}),
    };
  }

  /** Asks the SDK (can_use_tool) about a call the gate would refuse; a cancelled or unanswered ask denies. */
  readonly #approve: Approver = async (request, signal) => {
    if (signal.aborted || this.#ended) return "deny";
    const id = `blade_can_use_tool_${++this.#askedCount}`;
    const answer = new Promise<Record<string, unknown>>((resolve) => {
      this.#asked.set(id, resolve);
      signal.addEventListener("abort", () => {
        if (!this.#asked.delete(id)) return;
        this.#write({ type: "control_cancel_request", request_id: id });
        resolve({ subtype: "error", error: "cancelled" });
      }, { once: true });
    });
    this.#write(canUseToolRequest(id, request));
    const verdict = toolVerdict(await answer, request.input ?? {});
    if (verdict.interrupt) this.#interrupt();
    return verdict.answer;
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
    const { app, mcp } = this.#d;
    return {
      initialized: this.#initialized,
      mode: this.#mode ?? app.config.permissionMode,
      ceiling: this.#ceiling.mode,
      ceilingSource: this.#ceiling.source,
      defaultModel: app.config.model,
      aliases: app.config.aliases,
      queued: this.#queue.flatMap((t) => (t.uuid === undefined ? [] : [t.uuid])),
      mcpServers: (mcp?.status() ?? []).map((s) => ({
        name: s.name,
        status: s.status,
        ...(s.error === undefined ? {} : { error: s.error }),
        tools: s.tools.map((t) => t.name),
      })),
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
      return {
        subtype: "success",
        request_id: response.request_id,
        response: initializePayload({
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
    }
  }

  /** Claude Code's `system/status` line after a mode change. */
  #status(): void {
    this.#write({
      type: "system",
      subtype: "status",
      status: null,
      permissionMode: claudeModeName(this.#mode ?? this.#d.app.config.permissionMode),
      uuid: this.#d.app.ports.ids.uuid(),
      session_id: this.#sessionId ?? "",
    });
  }
}
