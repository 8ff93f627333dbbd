// Owns every MCP connection of one Blade process (the main thread): starting all configured servers
// in parallel, the current tool list across servers (by Blade name, `mcp__<server>__<tool>`), calls
// by that name, status for `blade mcp list`, and closing everything at the end of the run. Worker
// children reach these connections through the main thread (lib/child/), never by their own.

import type { McpServerEntry } from "./config.ts";
import { type McpCallResult, McpConnection, type McpStatus, type McpToolInfo } from "./client.ts";
import { mcpToolName } from "../protocol/mcp_names.ts";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** Default MCP_TIMEOUT: how long a server may take to start and list its tools. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Default MCP_TOOL_TIMEOUT: how long one tool call may take (as long as a Bash command may). */
export const DEFAULT_TOOL_TIMEOUT_MS = 600_000;

export interface McpTimeouts {
  connectMs: number;
  toolMs: number;
}

/** MCP_TIMEOUT and MCP_TOOL_TIMEOUT (milliseconds, Claude Code's variables); bad values are reported. */
export function timeoutsFrom(
  get: (name: string) => string | undefined,
): { timeouts: McpTimeouts; warnings: string[] } {
  const warnings: string[] = [];
  const read = (name: string, fallback: number) => {
    const raw = get(name);
    if (raw === undefined || raw.trim() === "") return fallback;
    const n = Number(raw);
    if (Number.isInteger(n) && n > 0) return n;
    warnings.push(`${name} must be a positive whole number of milliseconds, got "${raw}"; using ${fallback}`);
    return fallback;
  };
  return {
    timeouts: {
      connectMs: read("MCP_TIMEOUT", DEFAULT_CONNECT_TIMEOUT_MS),
      toolMs: read("MCP_TOOL_TIMEOUT", DEFAULT_TOOL_TIMEOUT_MS),
    },
    warnings,
  };
}

/** The longest tool name the providers accept (Anthropic and OpenAI): one longer fails every request. */
export const MAX_TOOL_NAME_CHARS = 64;

/** A tool a server lists that Blade does not offer, and why. */
export interface McpLeftOut {
  /** The tool's own name on its server. */
  tool: string;
  reason: string;
}

/** The default cap of one result: Claude Code's MAX_MCP_OUTPUT_TOKENS default, 25,000 tokens. */
export const DEFAULT_RESULT_CHARS = 25_000 * 4;

/** MAX_MCP_OUTPUT_TOKENS (Claude Code's variable) as a cap in characters, at 4 characters a token. */
export function resultCharsFrom(
  get: (name: string) => string | undefined,
): { maxResultChars: number; warnings: string[] } {
  const raw = get("MAX_MCP_OUTPUT_TOKENS");
  if (raw === undefined || raw.trim() === "") return { maxResultChars: DEFAULT_RESULT_CHARS, warnings: [] };
  const n = Number(raw);
  if (Number.isInteger(n) && n > 0) return { maxResultChars: n * 4, warnings: [] };
  return {
    maxResultChars: DEFAULT_RESULT_CHARS,
    warnings: [
      `MAX_MCP_OUTPUT_TOKENS must be a positive whole number of tokens, got "${raw}"; using ${
        DEFAULT_RESULT_CHARS / 4
      }`,
    ],
  };
}

/** One tool as Blade offers it. */
export interface McpToolDescriptor extends McpToolInfo {
  /** `mcp__<server>__<tool>`. */
  bladeName: string;
  server: string;
  /** The cap of one result's text (MAX_MCP_OUTPUT_TOKENS): plain data, it crosses into Worker children. */
  maxResultChars: number;
}

export interface McpServerStatus {
  name: string;
  source: McpServerEntry["source"];
  origin: string;
  type: "stdio" | "http" | "sse" | "sdk" | "invalid";
  /** The command line or URL (no env, no headers: they may hold secrets). */
  target: string;
  status: McpStatus;
  error?: string;
  tools: { name: string; readOnly: boolean }[];
  /** Listed tools that are not offered (a name no provider accepts, a name already taken). */
  leftOut?: McpLeftOut[];
}

export interface McpHubOptions {
  cwd: string;
  timeouts: McpTimeouts;
  /** The cap of one result's text (resultCharsFrom); DEFAULT_RESULT_CHARS when unset. */
  maxResultChars?: number;
  debug?: (line: string) => void;
  /** The transports of the Agent SDK's in-process servers (entries of type `sdk`). */
  sdkTransport?: (server: string) => Transport;
}

export class McpHub {
  #connections: McpConnection[];
  #timeouts: McpTimeouts;
  #maxResultChars: number;
  #listeners = new Set<() => void>();
  #version = 0;

  constructor(servers: readonly McpServerEntry[], options: McpHubOptions) {
    this.#timeouts = options.timeouts;
    this.#maxResultChars = options.maxResultChars ?? DEFAULT_RESULT_CHARS;
    this.#connections = servers.map((entry) =>
      new McpConnection(entry, {
        cwd: options.cwd,
        onToolsChanged: () => this.#changed(),
        ...(options.debug === undefined ? {} : { debug: options.debug }),
        ...(options.sdkTransport === undefined ? {} : { sdkTransport: options.sdkTransport }),
      })
    );
  }

  get timeouts(): McpTimeouts {
    return this.#timeouts;
  }

  get maxResultChars(): number {
    return this.#maxResultChars;
  }

  /** Bumped whenever a server's tool list changes or a server goes away. */
  get version(): number {
    return this.#version;
  }

  /** Connects every server at once; resolves when each is connected or failed. */
  async start(): Promise<void> {
    await Promise.all(this.#connections.map((c) => c.connect(this.#timeouts.connectMs)));
  }

  /** The tools of the connected servers, in configuration order (only names a provider accepts). */
  tools(): McpToolDescriptor[] {
    return this.#offer().tools;
  }

  /**
   * What is offered: every listed tool of a connected server, except one whose Blade name is over
   * MAX_TOOL_NAME_CHARS or already taken (`a.b` and `a_b` both give `…__a_b`; the first listed keeps
   * it). Either would make the provider refuse every request of the session, not just that tool.
   */
  #offer(): { tools: McpToolDescriptor[]; leftOut: Map<McpConnection, McpLeftOut[]> } {
    const tools: McpToolDescriptor[] = [];
    const leftOut = new Map<McpConnection, McpLeftOut[]>();
    const taken = new Map<string, string>();
    for (const c of this.#connections) {
      if (c.status !== "connected") continue;
      for (const t of c.tools) {
        const bladeName = mcpToolName(c.entry.name, t.name);
        const earlier = taken.get(bladeName);
        const reason = t.name === ""
          ? "it has no name"
          : bladeName.length > MAX_TOOL_NAME_CHARS
          ? `its Blade name ${bladeName} is ${bladeName.length} characters, longer than the ` +
            `${MAX_TOOL_NAME_CHARS} characters providers accept (a shorter server name helps)`
          : earlier !== undefined
          ? `its Blade name ${bladeName} is already the name of ${earlier}`
          : undefined;
        if (reason !== undefined) {
          leftOut.set(c, [...(leftOut.get(c) ?? []), { tool: t.name, reason }]);
          continue;
        }
        taken.set(bladeName, `"${t.name}" of server "${c.entry.name}"`);
        tools.push({ ...t, bladeName, server: c.entry.name, maxResultChars: this.#maxResultChars });
      }
    }
    return { tools, leftOut };
  }

  /** Servers whose tools a caller gets (by configured name); unknown names are ignored. */
  filtered(servers: readonly string[]): McpToolDescriptor[] {
    const wanted = new Set(servers);
    return this.tools().filter((t) => wanted.has(t.server));
  }

  /**
   * Calls a tool by its Blade name, after any new list of its server under way (a tool removed just
   * now is not called). A name its connected server does not list (yet) has that server's list asked
   * again first (a tool added just now); still unknown, it is an error result.
   */
  async call(bladeName: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallResult> {
    const owner = this.#connections.find((c) => c.entry.name === this.serverOf(bladeName));
    // A new list under way (list_changed): the call goes by it, not by the list it replaces.
    await owner?.listed();
    let found = this.#find(bladeName);
    if (found === undefined && owner?.status === "connected") {
      await owner.refresh();
      found = this.#find(bladeName);
    }
    if (found !== undefined) {
      return found.connection.call(found.tool, args, {
        timeoutMs: this.#timeouts.toolMs,
        ...(signal === undefined ? {} : { signal }),
      });
    }
    const text = owner?.status === "failed"
      ? `MCP server "${owner.entry.name}" is not available: ${owner.error}`
      : `MCP tool "${bladeName}" cannot run: no connected MCP server offers it (any more)`;
    return { content: [{ type: "text", text }], isError: true };
  }

  /** The offered tool of that name (never a left-out one) and its connection. */
  #find(bladeName: string): { connection: McpConnection; tool: string } | undefined {
    const tool = this.tools().find((t) => t.bladeName === bladeName);
    const connection = this.#connections.find((c) => c.entry.name === tool?.server);
    return tool === undefined || connection === undefined ? undefined : { connection, tool: tool.name };
  }

  /** The configured server whose tool names `bladeName` has (`mcp__<server>__…`), connected or not. */
  serverOf(bladeName: string): string | undefined {
    return this.#connections.find((c) => bladeName.startsWith(mcpToolName(c.entry.name, "")))?.entry.name;
  }

  status(): McpServerStatus[] {
    const offer = this.#offer();
    return this.#connections.map((c) => {
      const t = c.entry.transport;
      const leftOut = offer.leftOut.get(c);
      const offered = new Set(offer.tools.filter((x) => x.server === c.entry.name).map((x) => x.name));
      return {
        name: c.entry.name,
        source: c.entry.source,
        origin: c.entry.origin,
        type: t === undefined ? "invalid" : t.type,
        target: t === undefined
          ? ""
          : t.type === "stdio"
          ? [t.command, ...t.args].join(" ")
          : t.type === "sdk"
          ? "in-process (Agent SDK)"
          : t.url,
        status: c.status,
        ...(c.error === undefined ? {} : { error: c.error }),
        tools: c.tools.filter((tool) => offered.has(tool.name)).map((tool) => ({
          name: mcpToolName(c.entry.name, tool.name),
          readOnly: tool.readOnly,
        })),
        ...(leftOut === undefined ? {} : { leftOut }),
      };
    });
  }

  /** Calls `fn` whenever the tool list changes; returns the unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  async close(): Promise<void> {
    await Promise.all(this.#connections.map((c) => c.close()));
  }

  #changed(): void {
    this.#version++;
    for (const fn of this.#listeners) fn();
  }
}
