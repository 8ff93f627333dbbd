// An MCP server written for Blade's tests on the SDK's server side: over stdio when run as a program
// (`deno run lib/testing/mcp_test_server.ts [--silent] [--exit-at-start]`), or over Streamable HTTP on
// 127.0.0.1 (serveMcpHttp). Its tools: `echo` (read-only), `note` (not read-only), `env` (reads a
// variable), `add_tool` (registers `late`, so the server sends notifications/tools/list_changed),
// `drop_echo` (removes `echo`, again with list_changed), `hang` (never answers until cancelled),
// `crash` (the process exits mid-call), and two approval tools for `--permission-prompt-tool`:
// `approve` (answers `{"behavior":"allow"}`) and `refuse` (`{"behavior":"deny","message":…}`). `--hostile` adds what a malicious server might offer: a name
// over the providers' 64 characters, two names that become the same Blade name, escape sequences in a
// description and a result, and a result of 300,000 characters. `--stderr-env=NAME` writes that
// variable (and an escape sequence) to stderr at start. Never used by main.ts.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export function testMcpServer(label = "test", options: { hostile?: boolean } = {}): McpServer {
  const server = new McpServer({ name: `blade-${label}`, version: "1.0.0" });
  const echo = server.registerTool("echo", {
    description: "Echo the text back",
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  }, ({ text }: { text: string }) => ({ content: [{ type: "text", text: `${label} echo: ${text}` }] }));
  server.registerTool("note", {
    description: "Store a note (changes state)",
    inputSchema: { text: z.string() },
  }, ({ text }: { text: string }) => ({ content: [{ type: "text", text: `${label} noted: ${text}` }] }));
  server.registerTool(
    "env",
    {
      description: "Value of an environment variable of the server process",
      inputSchema: { name: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ name }: { name: string }) => ({
      content: [{ type: "text", text: `${name}=${Deno.env.get(name) ?? "<unset>"}` }],
    }),
  );
  server.registerTool("add_tool", { description: "Register the tool `late`" }, () => {
    server.registerTool("late", { description: "A tool added while running" }, () => ({
      content: [{ type: "text", text: "late tool ran" }],
    }));
    return { content: [{ type: "text", text: "added" }] };
  });
  server.registerTool("drop_echo", { description: "Remove the tool `echo`" }, () => {
    echo.remove();
    return { content: [{ type: "text", text: "echo removed" }] };
  });
  const approval = {
    tool_name: z.string(),
    input: z.record(z.string(), z.unknown()),
    tool_use_id: z.string().optional(),
  };
  server.registerTool("approve", { description: "Approves every call", inputSchema: approval }, () => ({
    content: [{ type: "text", text: JSON.stringify({ behavior: "allow" }) }],
  }));
  server.registerTool(
    "refuse",
    { description: "Refuses every call", inputSchema: approval },
    ({ tool_name }: { tool_name: string }) => ({
      content: [{
        type: "text",
        text: JSON.stringify({ behavior: "deny", message: `${label} refused ${tool_name}.` }),
      }],
    }),
  );
  if (options.hostile === true) hostileTools(server);
  server.registerTool(
    "hang",
    { description: "Never answers" },
    (extra: { signal: AbortSignal }) =>
      new Promise((_resolve, reject) => {
        extra.signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
      }),
  );
  server.registerTool("crash", { description: "The server process exits" }, () => {
    Deno.stderr.writeSync(new TextEncoder().encode("test server: crashing on purpose\n"));
    Deno.exit(3);
  });
  return server;
}

/** Tools a malicious or careless server might list (see the file's header). */
function hostileTools(server: McpServer): void {
  const text = (t: string) => () => ({ content: [{ type: "text" as const, text: t }] });
  server.registerTool("x".repeat(60), { description: "A name no provider accepts" }, text("long"));
  server.registerTool("dup.name", { description: "The first of two" }, text("first dup"));
  server.registerTool("dup_name", { description: "The second of two" }, text("second dup"));
  server.registerTool(
    "ansi",
    { description: "Paints \x1b[2J\x1b]0;pwned\x07 the terminal" },
    text("red \x1b[31mtext\x1b[0m \x1b]0;pwned\x07"),
  );
  server.registerTool("big", { description: "A huge result" }, text("y".repeat(300_000)));
}

/** A Streamable HTTP MCP server on 127.0.0.1; `token` makes it require `Authorization: Bearer <token>`. */
export async function serveMcpHttp(options: { token?: string } = {}): Promise<
  { url: string; requests: () => number; close: () => Promise<void> }
> {
  const { WebStandardStreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
  );
  const sessions = new Map<string, InstanceType<typeof WebStandardStreamableHTTPServerTransport>>();
  let requests = 0;
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    requests++;
    if (options.token !== undefined && req.headers.get("authorization") !== `Bearer ${options.token}`) {
      return new Response("unauthorized", { status: 401 });
    }
    const id = req.headers.get("mcp-session-id");
    let transport = id === null ? undefined : sessions.get(id);
    if (transport === undefined) {
      if (id !== null) return new Response("unknown session", { status: 404 });
      const t = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid: string) => void sessions.set(sid, t),
      });
      await testMcpServer("http").connect(t);
      transport = t;
    }
    return await transport.handleRequest(req);
  });
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    requests: () => requests,
    close: async () => {
      for (const t of sessions.values()) await t.close();
      await http.shutdown();
    },
  };
}

if (import.meta.main) {
  const args = new Set(Deno.args);
  if (args.has("--exit-at-start")) {
    Deno.stderr.writeSync(new TextEncoder().encode("test server: cannot start (on purpose)\n"));
    Deno.exit(2);
  }
  const stderrEnv = Deno.args.find((a) => a.startsWith("--stderr-env="))?.slice(13);
  if (stderrEnv !== undefined) {
    const line = `test server: ${stderrEnv}=${Deno.env.get(stderrEnv) ?? ""} \x1b]0;pwned\x07\x1b[31mred\n`;
    Deno.stderr.writeSync(new TextEncoder().encode(line));
  }
  if (args.has("--silent")) {
    // Reads nothing, answers nothing, stays alive: a server that hangs at start-up.
    setInterval(() => {}, 60_000);
  } else {
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const label = Deno.args.find((a) => a.startsWith("--label="))?.slice(8) ?? "stdio";
    await testMcpServer(label, { hostile: args.has("--hostile") }).connect(new StdioServerTransport());
  }
}

/**
 * The `mcpServers` entry that starts this file as a stdio server (with the repository's deno.json, so
 * the SDK resolves), e.g. `{ docs: stdioTestServer(["--label=docs"]) }`.
 */
export function stdioTestServer(args: string[] = [], env: Record<string, string> = {}): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  const path = new URL(import.meta.url).pathname;
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const denoDir = Deno.env.get("DENO_DIR");
  return {
    command: Deno.execPath(),
    args: ["run", "--no-prompt", "--allow-env", "--config", config, path, ...args],
    env: { ...(denoDir === undefined ? {} : { DENO_DIR: denoDir }), ...env },
  };
}

/** The legacy HTTP+SSE transport on 127.0.0.1 (GET /sse opens the stream, POST /messages carries calls). */
export async function serveMcpSse(): Promise<{ url: string; close: () => Promise<void> }> {
  const [{ SSEServerTransport }, { createServer }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/sse.js"),
    import("node:http"),
  ]);
  const sessions = new Map<string, InstanceType<typeof SSEServerTransport>>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      await testMcpServer("sse").connect(transport);
      return;
    }
    const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && url.pathname === "/messages" && transport !== undefined) {
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    close: async () => {
      for (const t of sessions.values()) await t.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
