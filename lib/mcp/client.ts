// Owns one connection to one MCP server on the official SDK (`@modelcontextprotocol/sdk`): starting a
// stdio server (this must be the main thread: Workers never spawn servers) or opening a Streamable
// HTTP / SSE session, initialising, listing tools (all pages), calling a tool with a timeout, following
// `notifications/tools/list_changed`, and noticing when the server goes away. Never throws for a
// server's failure: connect() ends in a status, call() in a result or a clear error text.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerEntry, McpTransport } from "./config.ts";
import { importNpm } from "../npm_module.ts";
import { VERSION } from "../version.ts";

export interface McpToolInfo {
  /** The tool's own name on its server. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server's `readOnlyHint` annotation (a hint: plan mode allows only these). */
  readOnly: boolean;
}

export type McpStatus = "pending" | "connected" | "failed";

/** One content item of a tool result, as the SDK returns it. */
export type McpContent = Record<string, unknown> & { type: string };

export interface McpCallResult {
  content: McpContent[];
  isError: boolean;
  structuredContent?: unknown;
}

export interface McpConnectionOptions {
  /** The project folder: a stdio server's working folder. */
  cwd: string;
  /** Called (after the list is read again) when the server says its tools changed. */
  onToolsChanged?: () => void;
  /** Lines for `--debug` (the server's stderr, transport errors). */
  debug?: (line: string) => void;
  /** The transport to an Agent SDK's in-process server (type `sdk`), by its name. */
  sdkTransport?: (server: string) => Transport;
}

const STDERR_TAIL = 2000;
const MAX_PAGES = 50;

export class McpConnection {
  readonly entry: McpServerEntry;
  #o: McpConnectionOptions;
  #client: Client | undefined;
  #status: McpStatus = "pending";
  #error: string | undefined;
  #tools: McpToolInfo[] = [];
  #relisting: Promise<void> | undefined;
  #stderr = "";
  #closing = false;

  constructor(entry: McpServerEntry, options: McpConnectionOptions) {
    this.entry = entry;
    this.#o = options;
    if (entry.error !== undefined) this.#fail(entry.error);
  }

  get status(): McpStatus {
    return this.#status;
  }

  /** Why the server is not usable (status failed). */
  get error(): string | undefined {
    return this.#error;
  }

  get tools(): readonly McpToolInfo[] {
    return this.#tools;
  }

  /** Starts or opens the server, initialises and lists its tools within `timeoutMs` (MCP_TIMEOUT). */
  async connect(timeoutMs: number): Promise<void> {
    const t = this.entry.transport;
    if (t === undefined || this.#status !== "pending") return;
    const client = new Client({ name: "blade", version: VERSION }, {
      capabilities: {},
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 0,
          onChanged: () => void this.refresh(),
        },
      },
    });
    this.#client = client;
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      const transport = await this.#transport(t);
      await client.connect(transport, { timeout: timeoutMs, signal: deadline });
      client.onclose = () => this.#closed();
      this.#tools = await this.#listAll(timeoutMs, deadline);
      this.#status = "connected";
    } catch (e) {
      const timedOut = deadline.aborted || isTimeout(e);
      this.#fail(
        timedOut
          ? `did not answer within ${timeoutMs} ms (MCP_TIMEOUT)${this.#stderrNote()}`
          : `could not connect: ${messageOf(e)}${this.#stderrNote()}`,
      );
      await this.close();
    }
  }

  /** Calls one tool. A failure of the server or the transport is a result with isError, never a throw. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<McpCallResult> {
    const client = this.#client;
    if (this.#status !== "connected" || client === undefined) {
      return errorResult(
        `MCP server "${this.entry.name}" is not available: ${this.#error ?? "not connected"}`,
      );
    }
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: options.timeoutMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      const content = Array.isArray(result.content) ? result.content as McpContent[] : [];
      return {
        content,
        isError: result.isError === true,
        ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
      };
    } catch (e) {
      if (options.signal?.aborted === true) return errorResult("Interrupted: the MCP call was cancelled.");
      if (isTimeout(e)) {
        return errorResult(
          `MCP tool "${tool}" of server "${this.entry.name}" did not answer within ${options.timeoutMs} ms ` +
            "(MCP_TOOL_TIMEOUT); the call was cancelled.",
        );
      }
      if (this.status === "failed") {
        return errorResult(`MCP server "${this.entry.name}" is not available: ${this.#error}`);
      }
      return errorResult(`MCP tool "${tool}" of server "${this.entry.name}" failed: ${messageOf(e)}`);
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) await client.close().catch(() => {});
  }

  async #transport(t: McpTransport): Promise<Transport> {
    switch (t.type) {
      case "stdio": {
        const { StdioClientTransport } = await importNpm(
          "@modelcontextprotocol/sdk/client/stdio.js",
          () => import("@modelcontextprotocol/sdk/client/stdio.js"),
          { exports: ["StdioClientTransport"] },
        );
        const transport = new StdioClientTransport({
          command: t.command,
          args: t.args,
          env: t.env,
          cwd: this.#o.cwd,
          stderr: "pipe",
        });
        transport.stderr?.on("data", (chunk: Uint8Array | string) => {
          const text = typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
          this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL);
          for (const line of text.split("\n")) {
            if (line.trim() !== "") this.#o.debug?.(`mcp ${this.entry.name} stderr: ${line}`);
          }
        });
        return transport;
      }
      case "http": {
        const { StreamableHTTPClientTransport } = await importNpm(
          "@modelcontextprotocol/sdk/client/streamableHttp.js",
          () => import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
          { exports: ["StreamableHTTPClientTransport"] },
        );
        return new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: t.headers } });
      }
      case "sse": {
        const { SSEClientTransport } = await importNpm(
          "@modelcontextprotocol/sdk/client/sse.js",
          () => import("@modelcontextprotocol/sdk/client/sse.js"),
          { exports: ["SSEClientTransport"] },
        );
        return new SSEClientTransport(new URL(t.url), { requestInit: { headers: t.headers } });
      }
      case "sdk": {
        const transport = this.#o.sdkTransport?.(this.entry.name);
        if (transport === undefined) throw new Error("no Agent SDK session carries it");
        return transport;
      }
      default: {
        const never: never = t;
        return never;
      }
    }
  }

  async #listAll(timeoutMs: number, signal?: AbortSignal): Promise<McpToolInfo[]> {
    const client = this.#client;
    if (client === undefined) return [];
    if (client.getServerCapabilities()?.tools === undefined) return [];
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const r = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: timeoutMs,
        ...(signal === undefined ? {} : { signal }),
      });
      for (const t of r.tools) {
        tools.push({
          name: t.name,
          description: t.description ?? t.title ?? "",
          inputSchema: t.inputSchema as Record<string, unknown>,
          readOnly: t.annotations?.readOnlyHint === true,
        });
      }
      cursor = r.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /**
   * Lists the tools again, sharing a listing already under way (a list_changed notification starts
   * one): a call of a tool the server has just added waits for it instead of racing it.
   */
  refresh(): Promise<void> {
    this.#relisting ??= this.#relist().finally(() => (this.#relisting = undefined));
    return this.#relisting;
  }

  /**
   * The listing under way (a list_changed notification started one), else resolved at once: a call
   * waits for it, so a tool the server has just removed is not called from the old list. The server
   * sends its notification before the answer that changed the list, so by the next call it has begun.
   */
  listed(): Promise<void> {
    return this.#relisting ?? Promise.resolve();
  }

  async #relist(): Promise<void> {
    if (this.#status !== "connected") return;
    try {
      this.#tools = await this.#listAll(30_000);
      this.#o.debug?.(`mcp ${this.entry.name}: tool list changed (${this.#tools.length} tools)`);
    } catch (e) {
      this.#o.debug?.(`mcp ${this.entry.name}: cannot list tools again: ${messageOf(e)}`);
    }
    this.#o.onToolsChanged?.();
  }

  #closed(): void {
    if (this.#closing) return;
    this.#fail(`the server closed the connection (it exited or crashed)${this.#stderrNote()}`);
    this.#o.onToolsChanged?.();
  }

  #fail(error: string): void {
    this.#status = "failed";
    this.#error = error;
  }

  #stderrNote(): string {
    const tail = this.#stderr.trim().split("\n").slice(-3).join(" | ").slice(-400);
    return tail === "" ? "" : `; its stderr ended with: ${tail}`;
  }
}

function errorResult(text: string): McpCallResult {
  return { content: [{ type: "text", text }], isError: true };
}

function isTimeout(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: unknown }).code === -32001;
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message.replace(/^MCP error -?\d+: /, "");
  return String(e);
}
