// An MCP server in the SDK's mcpServers option, delivered the SDK's default way: in its initialize request.
import { base, collect, query, report } from "./common.mjs";

const server = JSON.parse(process.env.MCP_SERVER);
const lines = await collect(query({
  prompt: "Echo hi with the test server.",
  options: { ...base, mcpServers: { test: server }, allowedTools: ["mcp__test__echo"] },
}));
report({ lines });
