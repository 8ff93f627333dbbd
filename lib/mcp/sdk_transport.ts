// Owns the MCP transport to an Agent SDK's in-process server (`createSdkMcpServer`): each JSON-RPC
// message Blade's MCP client sends becomes an `mcp_message` control request to the SDK, whose answer
// carries the server's reply (`mcp_response`); what the server sends on its own (a list_changed
// notification) arrives as the SDK's `mcp_message` request and is handed in with `deliver`. The
// control channel itself is the SDK session's (cli/sdk_session.ts): this file sees one function.

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Sends `{subtype: "mcp_message", server_name, message}`; resolves with the response's payload. */
export type McpMessageRequest = (server: string, message: unknown) => Promise<Record<string, unknown>>;

export class SdkMcpTransport implements Transport {
  readonly #server: string;
  readonly #request: McpMessageRequest;
  #closed = false;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(server: string, request: McpMessageRequest) {
    this.#server = server;
    this.#request = request;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error(`the Agent SDK's MCP server "${this.#server}" is closed`);
    const isRequest = "method" in message && "id" in message;
    let answer: Record<string, unknown>;
    try {
      answer = await this.#request(this.#server, message);
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      this.onerror?.(error);
      if (!isRequest) return;
      // The client waits for an answer to its request: it gets the failure as one.
      this.onmessage?.({
        jsonrpc: "2.0",
        id: (message as { id: string | number }).id,
        error: { code: -32603, message: error.message },
      });
      return;
    }
    // A notification's answer is the SDK's acknowledgement (`{result: {}, id: 0}`), not a reply.
    if (!isRequest) return;
    const reply = answer["mcp_response"];
    if (typeof reply !== "object" || reply === null) {
      this.onmessage?.({
        jsonrpc: "2.0",
        id: (message as { id: string | number }).id,
        error: { code: -32603, message: "the Agent SDK answered mcp_message without mcp_response" },
      });
      return;
    }
    this.onmessage?.(reply as JSONRPCMessage);
  }

  /** A message the server sent on its own (the SDK's `mcp_message` request to Blade). */
  deliver(message: unknown): void {
    if (!this.#closed && typeof message === "object" && message !== null) {
      this.onmessage?.(message as JSONRPCMessage);
    }
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.onclose?.();
    }
    return Promise.resolve();
  }
}
