// An in-process MCP server (createSdkMcpServer): its tool is called through the control channel.
import { createSdkMcpServer, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import { base, collect, query, report } from "./common.mjs";

const calls = [];
const calc = createSdkMcpServer({
  name: "calc",
  version: "1.0.0",
  tools: [
    tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => {
      calls.push([a, b]);
      return { content: [{ type: "text", text: String(a + b) }] };
    }),
  ],
});
const lines = await collect(query({
  prompt: "Add 2 and 3 with the calc tool.",
  options: { ...base, mcpServers: { calc }, allowedTools: ["mcp__calc__add"] },
}));
report({ lines, calls });
