import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChildMcp } from "./child_mcp.ts";
import { McpHub } from "../mcp/hub.ts";
import { openInlineServers } from "../mcp/setup.ts";
import type { ConfigSnapshot } from "../store/schema.ts";
import { stdioTestServer } from "../testing/mcp_test_server.ts";

const cwd = new URL("../..", import.meta.url).pathname;
const timeouts = { connectMs: 20_000, toolMs: 20_000 };

function snapshot(mcpServers?: ConfigSnapshot["mcpServers"]): ConfigSnapshot {
  return {
    name: "agent",
    description: "d",
    systemPrompt: "",
    tools: null,
    disallowedTools: [],
    model: "m",
    permissionMode: "default",
    maxTurns: null,
    skills: [],
    isolation: "none",
    source: "flag",
    ...(mcpServers === undefined ? {} : { mcpServers }),
  };
}

describe("ChildMcp: which MCP tools a child gets, and its calls", () => {
  it("inherits within the parent's tools and the run's deny; names pick servers; inline servers are its own", async () => {
    const hub = new McpHub([
      {
        name: "a",
        source: "flag",
        origin: "t",
        transport: { type: "stdio", ...stdioTestServer(["--label=a"]) },
      },
      {
        name: "b",
        source: "flag",
        origin: "t",
        transport: { type: "stdio", ...stdioTestServer(["--label=b"]) },
      },
    ], { cwd, timeouts });
    let inlineStarts = 0;
    const mcp = new ChildMcp({
      hub,
      visible: (name) => name !== "mcp__a__note",
      openInline: (agent, servers) => {
        inlineStarts++;
        return openInlineServers(agent, servers, { env: () => undefined, cwd, timeouts });
      },
    });
    try {
      await hub.start();
      const names = (id: string) => mcp.toolsFor(id).map((t) => t.bladeName).sort();

      await mcp.prepare("c1", snapshot(), undefined);
      assert.ok(names("c1").includes("mcp__a__echo") && names("c1").includes("mcp__b__echo"));
      assert.ok(!names("c1").includes("mcp__a__note"), "the run's deny rules apply");

      await mcp.prepare("c2", snapshot(), ["mcp__a__echo", "mcp__b__env"]);
      assert.deepEqual(names("c2"), ["mcp__a__echo", "mcp__b__env"], "capped by the parent");

      await mcp.prepare("c3", snapshot(["b"]), ["mcp__a__echo", "mcp__b__env"]);
      assert.deepEqual(names("c3"), ["mcp__b__env"], "named servers, still within the parent");

      const inline = { own: stdioTestServer(["--label=own"]) };
      await mcp.prepare("c4", snapshot([inline]), []);
      await mcp.prepare("c5", snapshot([inline]), []);
      assert.ok(names("c4").includes("mcp__own__echo"));
      assert.equal(inlineStarts, 1, "an agent's inline servers start once per run");

      const ok = await mcp.call("c4", ["mcp__own__echo"], "mcp__own__echo", { text: "x" });
      assert.deepEqual(ok.content, [{ type: "text", text: "own echo: x" }]);
      for (
        const [id, granted, name] of [
          ["c3", ["mcp__b__env"], "mcp__a__echo"], // not one of its tools
          ["c4", [], "mcp__own__echo"], // removed by its own tools filter
          ["unknown", ["mcp__a__echo"], "mcp__a__echo"], // never prepared
        ] as const
      ) {
        const refused = await mcp.call(id, granted, name, {});
        assert.equal(refused.isError, true, `${id} ${name}`);
        assert.match(String(refused.content[0]?.text), /is not one of this subagent's tools/);
      }
      mcp.release("c1");
      assert.deepEqual(mcp.toolsFor("c1"), []);
    } finally {
      await mcp.close();
      await hub.close();
    }
  });
});

describe("ChildMcp on a worker (no openInline): an agent's inline servers are never started", () => {
  it("leaves them out and says so; named servers and the configured tools stay", async () => {
    const hub = new McpHub([], { cwd, timeouts });
    const mcp = new ChildMcp({ hub, visible: () => true });
    const problems = await mcp.prepare(
      "w1",
      snapshot(["ops", { sneaky: { command: "touch", args: ["/tmp/never"] } }]),
      undefined,
    );
    assert.deepEqual(problems, [
      `agent "agent": MCP server "sneaky" is not started on a worker (an agent's own servers never are: ` +
      "only the worker's configured ones; its tools are left out)",
    ]);
    assert.deepEqual(mcp.toolsFor("w1"), []);
    await mcp.close();
  });
});
