import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_RESULT_CHARS, mcpTool, resultText } from "./tool_adapter.ts";
import { toolSpecs } from "../tools/registry.ts";

const shape = {
  bladeName: "mcp__docs__search",
  server: "docs",
  name: "search",
  description: "Search the docs",
  inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"], $schema: "x" },
  readOnly: true,
};

describe("MCP tool adapter", () => {
  it("offers the server's schema and name to the model, kind external, read-only from the hint", () => {
    const tool = mcpTool(shape, () => Promise.reject(new Error("not called")));
    assert.equal(tool.kind, "external");
    assert.equal(tool.readOnly, true);
    assert.deepEqual(toolSpecs([tool]), [{
      name: "mcp__docs__search",
      description: 'Search the docs (MCP server "docs")',
      inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    }]);
    const loose = mcpTool({ ...shape, inputSchema: {} }, () => Promise.reject(new Error("x")));
    assert.deepEqual(loose.inputSchema, { properties: {}, type: "object" });
  });

  it("runs through the invoke function and returns the text, error flag and server", async () => {
    const calls: unknown[] = [];
    const tool = mcpTool(shape, (name, input) => {
      calls.push([name, input]);
      return Promise.resolve({ content: [{ type: "text", text: "found" }], isError: false });
    });
    const ctx = { signal: new AbortController().signal } as Parameters<typeof tool.run>[1];
    const r = await tool.run({ q: "x" }, ctx);
    assert.deepEqual(r, {
      content: "found",
      isError: false,
      metadata: { mcpServer: "docs", mcpTool: "search" },
    });
    assert.deepEqual(calls, [["mcp__docs__search", { q: "x" }]]);
  });

  it("describes non-text content, uses structured content when there is no text, caps the size", () => {
    assert.equal(
      resultText({
        isError: false,
        content: [
          { type: "text", text: "a" },
          { type: "image", mimeType: "image/png", data: "AAAA" },
          { type: "resource_link", uri: "file:///x", name: "x" },
          { type: "resource", resource: { uri: "file:///y", text: "inline" } },
          { type: "resource", resource: { uri: "file:///z", blob: "AA" } },
        ],
      }),
      "a\n[image image/png, 4 base64 characters not shown]\n[resource file:///x (x)]\ninline\n" +
        "[resource file:///z, binary content not shown]",
    );
    assert.equal(resultText({ isError: false, content: [], structuredContent: { n: 1 } }), '{"n":1}');
    assert.equal(resultText({ isError: false, content: [] }), "(no output)");
    const big = resultText({
      isError: false,
      content: [{ type: "text", text: "x".repeat(MAX_RESULT_CHARS + 5) }],
    });
    // Claude Code's words: the limit in tokens (MAX_MCP_OUTPUT_TOKENS, 25,000) and what to do.
    assert.ok(
      big.includes("x\n\n[OUTPUT TRUNCATED - exceeded 25000 token limit]\n\nThe tool output was truncated."),
    );
    assert.ok(
      big.endsWith(
        "inform the user that you are working with truncated output and results may be incomplete.",
      ),
    );
  });

  it("caps a result at the shape's limit (MAX_MCP_OUTPUT_TOKENS, computed by the main thread)", async () => {
    const tool = mcpTool(
      { ...shape, maxResultChars: 10 },
      () => Promise.resolve({ content: [{ type: "text", text: "0123456789abc" }], isError: false }),
    );
    const ctx = { signal: new AbortController().signal } as Parameters<typeof tool.run>[1];
    assert.equal(
      (await tool.run({}, ctx)).content,
      "0123456789\n\n[OUTPUT TRUNCATED - exceeded 3 token limit]\n\nThe tool output was truncated. If this MCP " +
        "server provides pagination or filtering tools, use them to retrieve specific portions of the data. If " +
        "pagination is not available, inform the user that you are working with truncated output and results " +
        "may be incomplete.",
    );
  });
});
