import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RESULT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  McpHub,
  resultCharsFrom,
  timeoutsFrom,
} from "./hub.ts";
import type { McpServerEntry } from "./config.ts";
import { serveMcpHttp, serveMcpSse, stdioTestServer } from "../testing/mcp_test_server.ts";

const cwd = new URL("../..", import.meta.url).pathname;

function stdio(name: string, args: string[] = [], env: Record<string, string> = {}): McpServerEntry {
  return {
    name,
    source: "flag",
    origin: "test",
    transport: { type: "stdio", ...stdioTestServer(args, env) },
  };
}

function textOf(r: { content: { type: string; text?: unknown }[] }): string {
  return r.content.map((c) => String(c.text ?? "")).join("\n");
}

describe("McpHub over real servers", () => {
  it("lists and calls tools of a stdio server and an HTTP server, with readOnlyHint", async () => {
    const http = await serveMcpHttp({ token: "s3cret-token-value" });
    const hub = new McpHub([
      stdio("docs", ["--label=docs"], { GREETING: "hello" }),
      {
        name: "web",
        source: "flag",
        origin: "test",
        transport: { type: "http", url: http.url, headers: { Authorization: "Bearer s3cret-token-value" } },
      },
    ], { cwd, timeouts: { connectMs: 20_000, toolMs: 20_000 } });
    try {
      await hub.start();
      assert.deepEqual(hub.status().map((s) => [s.name, s.status, s.error]), [
        ["docs", "connected", undefined],
        ["web", "connected", undefined],
      ]);
      const names = hub.tools().map((t) => t.bladeName);
      assert.ok(names.includes("mcp__docs__echo") && names.includes("mcp__web__note"), names.join(","));
      assert.deepEqual(hub.tools().find((t) => t.bladeName === "mcp__docs__echo")?.readOnly, true);
      assert.deepEqual(hub.tools().find((t) => t.bladeName === "mcp__docs__note")?.readOnly, false);
      assert.deepEqual(textOf(await hub.call("mcp__docs__echo", { text: "hi" })), "docs echo: hi");
      assert.deepEqual(textOf(await hub.call("mcp__web__echo", { text: "there" })), "http echo: there");
      // The configured env reaches the server; Blade's own secrets do not (minimal environment).
      assert.deepEqual(textOf(await hub.call("mcp__docs__env", { name: "GREETING" })), "GREETING=hello");
      assert.deepEqual(
        textOf(await hub.call("mcp__docs__env", { name: "ANTHROPIC_API_KEY" })),
        "ANTHROPIC_API_KEY=<unset>",
      );
      const unknown = await hub.call("mcp__docs__nope", {});
      assert.ok(unknown.isError);
      assert.match(textOf(unknown), /no connected MCP server offers it/);
    } finally {
      await hub.close();
      await http.close();
    }
  });

  it("speaks the legacy HTTP+SSE transport too", async () => {
    const sse = await serveMcpSse();
    const hub = new McpHub([{
      name: "old",
      source: "flag",
      origin: "test",
      transport: { type: "sse", url: sse.url, headers: {} },
    }], { cwd, timeouts: { connectMs: 20_000, toolMs: 20_000 } });
    try {
      await hub.start();
      assert.deepEqual(hub.status().map((s) => [s.status, s.error]), [["connected", undefined]]);
      assert.equal(textOf(await hub.call("mcp__old__echo", { text: "sse" })), "sse echo: sse");
    } finally {
      await hub.close();
      await sse.close();
    }
  });

  it("a hung call ends at MCP_TOOL_TIMEOUT, a crash fails the server's tools, the others go on", async () => {
    const hub = new McpHub([stdio("a"), stdio("b")], { cwd, timeouts: { connectMs: 20_000, toolMs: 300 } });
    try {
      await hub.start();
      const hung = await hub.call("mcp__a__hang", {});
      assert.ok(hung.isError);
      assert.match(textOf(hung), /did not answer within 300 ms \(MCP_TOOL_TIMEOUT\)/);
      // The server is still usable after a timed-out call.
      assert.deepEqual(textOf(await hub.call("mcp__a__echo", { text: "still" })), "stdio echo: still");

      let changes = 0;
      hub.onChange(() => changes++);
      const crashed = await hub.call("mcp__a__crash", {});
      assert.ok(crashed.isError);
      const after = await hub.call("mcp__a__echo", { text: "x" });
      assert.ok(after.isError);
      assert.match(textOf(after), /MCP server "a" is not available: the server closed the connection/);
      assert.match(textOf(after), /crashing on purpose/);
      assert.ok(changes >= 1);
      assert.deepEqual(hub.status().map((s) => s.status), ["failed", "connected"]);
      assert.ok(!hub.tools().some((t) => t.server === "a"));
      assert.deepEqual(textOf(await hub.call("mcp__b__echo", { text: "ok" })), "stdio echo: ok");
    } finally {
      await hub.close();
    }
  });

  it("a server that never answers fails at MCP_TIMEOUT; one that exits at start says why", async () => {
    // Two hubs: the silent server needs a short connect timeout, while the one that exits at start must
    // get time to start its process and exit on a loaded machine (a short timeout would win the race).
    const silentHub = new McpHub([stdio("silent", ["--silent"])], {
      cwd,
      timeouts: { connectMs: 1_000, toolMs: 1_000 },
    });
    const goneHub = new McpHub([stdio("gone", ["--exit-at-start"])], {
      cwd,
      timeouts: { connectMs: 60_000, toolMs: 60_000 },
    });
    try {
      await Promise.all([silentHub.start(), goneHub.start()]);
      const [silent] = silentHub.status();
      const [gone] = goneHub.status();
      assert.deepEqual(silent?.status, "failed");
      assert.match(silent?.error ?? "", /did not answer within 1000 ms \(MCP_TIMEOUT\)/);
      assert.deepEqual(gone?.status, "failed");
      assert.match(gone?.error ?? "", /cannot start \(on purpose\)/);
      assert.deepEqual([...silentHub.tools(), ...goneHub.tools()], []);
    } finally {
      await silentHub.close();
      await goneHub.close();
    }
  });

  it("a tool the server has just added is callable at once: the call waits for the list, not racing it", async () => {
    const hub = new McpHub([stdio("dyn")], { cwd, timeouts: { connectMs: 20_000, toolMs: 20_000 } });
    try {
      await hub.start();
      await hub.call("mcp__dyn__add_tool", {});
      // No wait for the change notification: the next model turn may call the new tool at once.
      assert.deepEqual(textOf(await hub.call("mcp__dyn__late", {})), "late tool ran");
      const unknown = await hub.call("mcp__dyn__never", {});
      assert.equal(unknown.isError, true);
      assert.match(textOf(unknown), /no connected MCP server offers it/);
    } finally {
      await hub.close();
    }
  });

  it("notifications/tools/list_changed: a tool added by the server appears", async () => {
    const hub = new McpHub([stdio("dyn")], { cwd, timeouts: { connectMs: 20_000, toolMs: 20_000 } });
    try {
      await hub.start();
      assert.ok(!hub.tools().some((t) => t.name === "late"));
      const changed = new Promise<void>((resolve) => hub.onChange(resolve));
      const before = hub.version;
      await hub.call("mcp__dyn__add_tool", {});
      await changed;
      assert.ok(hub.version > before);
      assert.ok(hub.tools().some((t) => t.bladeName === "mcp__dyn__late"));
      assert.deepEqual(textOf(await hub.call("mcp__dyn__late", {})), "late tool ran");
    } finally {
      await hub.close();
    }
  });
  it("list_changed removing a tool: a call in the same turn and one after are the same clear tool error", async () => {
    const hub = new McpHub([stdio("dyn")], { cwd, timeouts: { connectMs: 20_000, toolMs: 20_000 } });
    try {
      await hub.start();
      const changed = new Promise<void>((resolve) => hub.onChange(resolve));
      assert.equal(textOf(await hub.call("mcp__dyn__drop_echo", {})), "echo removed");
      // The model asked for both in one turn: the server's notification came before its answer, so
      // the second call waits for the new list and never reaches the server with the old one.
      const sameTurn = await hub.call("mcp__dyn__echo", { text: "x" });
      assert.equal(sameTurn.isError, true);
      assert.match(
        textOf(sameTurn),
        /MCP tool "mcp__dyn__echo" cannot run: no connected MCP server offers it/,
      );
      await changed;
      assert.ok(!hub.tools().some((t) => t.bladeName === "mcp__dyn__echo"));
      const later = await hub.call("mcp__dyn__echo", { text: "y" });
      assert.equal(later.isError, true);
      assert.match(textOf(later), /MCP tool "mcp__dyn__echo" cannot run: no connected MCP server offers it/);
    } finally {
      await hub.close();
    }
  });

  it("a hostile server: names providers refuse and duplicate names are left out and said why", async () => {
    const hub = new McpHub([stdio("h", ["--hostile"])], {
      cwd,
      timeouts: { connectMs: 20_000, toolMs: 20_000 },
    });
    try {
      await hub.start();
      const names = hub.tools().map((t) => t.bladeName);
      // One name over 64 characters, or twice the same name, and every model request is refused.
      assert.deepEqual(names.filter((n) => n.length > 64), []);
      assert.equal(new Set(names).size, names.length, names.join(","));
      assert.equal(textOf(await hub.call("mcp__h__dup_name", {})), "first dup");
      const [status] = hub.status();
      assert.deepEqual(status?.leftOut?.map((l) => l.tool), ["x".repeat(60), "dup_name"]);
      assert.match(status?.leftOut?.[0]?.reason ?? "", /longer than the 64 characters providers accept/);
      assert.match(status?.leftOut?.[1]?.reason ?? "", /mcp__h__dup_name is already the name of "dup.name"/);
      const long = await hub.call(`mcp__h__${"x".repeat(60)}`, {});
      assert.equal(long.isError, true);
      assert.match(textOf(long), /cannot run/);
    } finally {
      await hub.close();
    }
  });
});

describe("MCP_TIMEOUT and MCP_TOOL_TIMEOUT", () => {
  it("are whole milliseconds; a bad value is a warning naming it, and the default is used", () => {
    const read = (vars: Record<string, string>) => timeoutsFrom((name) => vars[name]);
    assert.deepEqual(read({}), {
      timeouts: { connectMs: DEFAULT_CONNECT_TIMEOUT_MS, toolMs: DEFAULT_TOOL_TIMEOUT_MS },
      warnings: [],
    });
    assert.deepEqual(read({ MCP_TIMEOUT: "5000", MCP_TOOL_TIMEOUT: " " }).timeouts, {
      connectMs: 5000,
      toolMs: DEFAULT_TOOL_TIMEOUT_MS,
    });
    for (const bad of ["0", "-1", "1.5", "10s", "abc"]) {
      const r = read({ MCP_TOOL_TIMEOUT: bad });
      assert.equal(r.timeouts.toolMs, DEFAULT_TOOL_TIMEOUT_MS, bad);
      assert.match(
        r.warnings.join(""),
        new RegExp(`^MCP_TOOL_TIMEOUT must be a positive whole number .*"${bad}"`),
      );
    }
  });
});

describe("MAX_MCP_OUTPUT_TOKENS", () => {
  it("sets the cap of one result (4 characters a token, Claude Code's default 25,000 tokens)", () => {
    const read = (v: string | undefined) =>
      resultCharsFrom((name) => name === "MAX_MCP_OUTPUT_TOKENS" ? v : undefined);
    assert.deepEqual(read(undefined), { maxResultChars: DEFAULT_RESULT_CHARS, warnings: [] });
    assert.equal(DEFAULT_RESULT_CHARS, 100_000);
    assert.deepEqual(read("50000"), { maxResultChars: 200_000, warnings: [] });
    const bad = read("lots");
    assert.equal(bad.maxResultChars, DEFAULT_RESULT_CHARS);
    assert.match(
      bad.warnings.join(""),
      /^MAX_MCP_OUTPUT_TOKENS must be a positive whole number of tokens, got "lots"/,
    );
  });

  it("travels with each tool (a Worker child caps with the run's value)", async () => {
    const hub = new McpHub([stdio("h", ["--hostile"])], {
      cwd,
      timeouts: { connectMs: 20_000, toolMs: 20_000 },
      maxResultChars: 1_000,
    });
    try {
      await hub.start();
      assert.ok(hub.tools().every((t) => t.maxResultChars === 1_000));
      assert.equal(hub.maxResultChars, 1_000);
    } finally {
      await hub.close();
    }
  });
});
