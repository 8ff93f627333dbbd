// Owns Blade's own control requests to the Agent SDK on a stream-json session (docs/guides/agent-sdk.md):
// `can_use_tool`, `hook_callback` and `mcp_message` go out as control_request lines with Blade's ids
// (`blade_<subtype>_<n>`) and come back as the SDK's control_response lines; a request withdrawn by its
// signal is cancelled with control_cancel_request; when the input ends every open request is answered
// with an error. Also the two ports built on it: the SDK's hook callbacks (protocol/hook_callbacks.ts)
// and the transport of its in-process MCP servers (mcp/sdk_transport.ts).

import type { HookCallbackMatcher, HookCallbacks } from "../protocol/hook_callbacks.ts";
import { SdkMcpTransport } from "../mcp/sdk_transport.ts";
import type { McpHub } from "../mcp/hub.ts";
import type { McpLayer } from "../mcp/config.ts";

/** What starts the run's MCP servers, with the SDK's own servers of its initialize request. */
export type McpStarter = (extra: {
  extraLayers?: McpLayer[];
  sdkServers?: { names: readonly string[]; transport: (server: string) => SdkMcpTransport };
}) => Promise<McpHub | undefined>;

export type ControlAnswer = Record<string, unknown>;

export class SdkOutbox {
  readonly #write: (line: unknown) => void;
  readonly #open = new Map<string, (response: ControlAnswer) => void>();
  #count = 0;
  #ended = false;

  constructor(write: (line: unknown) => void) {
    this.#write = write;
  }

  /** Sends one request; resolves with the SDK's response (`{subtype: "success"|"error", …}`). */
  request(request: Record<string, unknown>, signal?: AbortSignal): Promise<ControlAnswer> {
    if (this.#ended) return Promise.resolve({ subtype: "error", error: "standard input ended" });
    const id = `blade_${String(request.subtype)}_${++this.#count}`;
    const answer = new Promise<ControlAnswer>((resolve) => {
      this.#open.set(id, resolve);
      signal?.addEventListener("abort", () => {
        if (!this.#open.delete(id)) return;
        this.#write({ type: "control_cancel_request", request_id: id });
        resolve({ subtype: "error", error: "cancelled" });
      }, { once: true });
    });
    this.#write({ type: "control_request", request_id: id, request });
    return answer;
  }

  /** The SDK's control_response to one of these requests (one for no request of ours is ignored). */
  answered(id: string, response: ControlAnswer): void {
    const resolve = this.#open.get(id);
    this.#open.delete(id);
    resolve?.(response);
  }

  /** No one is left to answer: a can_use_tool is then denied, a hook or MCP call fails. */
  end(): void {
    this.#ended = true;
    for (const resolve of this.#open.values()) resolve({ subtype: "error", error: "standard input ended" });
    this.#open.clear();
  }
}

/** The SDK's hook callbacks (the initialize's `hooks`, as `matchers()` returns them) as the port. */
export function hookCallbacks(
  outbox: SdkOutbox,
  matchers: () => ReadonlyMap<string, readonly HookCallbackMatcher[]> | undefined,
): HookCallbacks {
  return {
    events: () => [...matchers()?.keys() ?? []],
    matchers: (event) => matchers()?.get(event) ?? [],
    call: async (callbackId, input, options) => {
      const answer = await outbox.request(
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
      return typeof body === "object" && body !== null && !Array.isArray(body) ? body as ControlAnswer : {};
    },
  };
}

/** The transport of the SDK's in-process MCP server `server` (its messages as mcp_message requests). */
export function sdkMcpTransport(outbox: SdkOutbox, server: string): SdkMcpTransport {
  return new SdkMcpTransport(server, async (name, message) => {
    const answer = await outbox.request({ subtype: "mcp_message", server_name: name, message });
    if (answer.subtype !== "success") {
      throw new Error(String(answer.error ?? "the SDK refused the MCP message"));
    }
    return (answer.response ?? {}) as ControlAnswer;
  });
}

/** The run's MCP servers on an SDK session: started once, with the initialize's servers and the SDK's own. */
export class SdkServers {
  readonly #outbox: SdkOutbox;
  readonly #start: McpStarter;
  readonly #transports = new Map<string, SdkMcpTransport>();
  #hub: Promise<McpHub | undefined> | undefined;

  constructor(outbox: SdkOutbox, start: McpStarter) {
    this.#outbox = outbox;
    this.#start = start;
  }

  /** Starts them on the first call (`mcpServers` and `sdkMcpServers` of the initialize, when it came). */
  hub(
    init: { mcpServers?: Record<string, unknown>; sdkMcpServers?: readonly string[] },
  ): Promise<McpHub | undefined> {
    return this.#hub ??= this.#start({
      ...(init.mcpServers === undefined ? {} : {
        extraLayers: [{
          source: "flag",
          origin: "the Agent SDK's mcpServers (initialize)",
          servers: init.mcpServers,
        }],
      }),
      ...(init.sdkMcpServers === undefined ? {} : {
        sdkServers: {
          names: init.sdkMcpServers,
          transport: (name) => {
            const made = sdkMcpTransport(this.#outbox, name);
            this.#transports.set(name, made);
            return made;
          },
        },
      }),
    });
  }

  /** `mcp_status`: the servers (started for it once the session has its initialize or a message). */
  async status(init: Parameters<SdkServers["hub"]>[0] | undefined) {
    const hub = init === undefined ? undefined : await this.hub(init);
    return (hub?.status() ?? []).map((s) => ({
      name: s.name,
      status: s.status,
      ...(s.error === undefined ? {} : { error: s.error }),
      tools: s.tools.map((t) => t.name),
    }));
  }

  /** A message an in-process server sent on its own (the SDK's mcp_message request). */
  deliver(server: string, message: unknown): void {
    this.#transports.get(server)?.deliver(message);
  }

  async close(): Promise<void> {
    await (await this.#hub?.catch(() => undefined))?.close();
  }
}
