import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { realFs } from "../sys/fs.ts";
import { BladeError } from "../errors.ts";
import { anyServers, type McpSourceOptions, readMcpSources } from "./sources.ts";

async function folders(): Promise<{ home: string; ws: string; storage: string }> {
  const root = await Deno.makeTempDir({ prefix: "blade-mcp-sources-" });
  const home = `${root}/home`;
  const ws = `${root}/ws`;
  const storage = `${home}/.blade`;
  for (const d of [home, ws, storage]) await Deno.mkdir(d, { recursive: true });
  return { home, ws, storage };
}

const write = (path: string, json: unknown) => Deno.writeTextFile(path, JSON.stringify(json));
const servers = (name: string) => ({ mcpServers: { [name]: { command: name } } });

function options(
  f: { home: string; ws: string; storage: string },
  o: Partial<McpSourceOptions> = {},
): McpSourceOptions {
  return {
    fs: realFs(),
    home: f.home,
    workspace: f.ws,
    trusted: true,
    userConfigFile: `${f.storage}/config.json`,
    mcpConfig: [],
    strict: false,
    cwd: f.ws,
    ...o,
  };
}

describe("MCP sources", () => {
  it("reads every source in Claude Code's precedence order (lowest first)", async () => {
    const f = await folders();
    await write(`${f.home}/.claude.json`, {
      mcpServers: { claudeUser: { command: "a" } },
      projects: { [f.ws]: { mcpServers: { local: { command: "l" } } }, "/elsewhere": servers("nope") },
    });
    await write(`${f.storage}/config.json`, servers("bladeUser"));
    await write(`${f.ws}/.mcp.json`, servers("project"));
    await write(`${f.ws}/flag.json`, servers("fromFile"));
    const r = await readMcpSources(
      options(f, { mcpConfig: ["flag.json", JSON.stringify(servers("inline"))] }),
    );
    assert.deepEqual(r.layers.map((l) => [l.source, Object.keys(l.servers)[0]]), [
      ["user", "claudeUser"],
      ["user", "bladeUser"],
      ["project", "project"],
      ["local", "local"],
      ["flag", "fromFile"],
      ["flag", "inline"],
    ]);
    assert.deepEqual(r.diagnostics, []);
    assert.ok(anyServers(r));
  });

  it("an untrusted folder's .mcp.json is not read; --strict-mcp-config reads only --mcp-config", async () => {
    const f = await folders();
    await write(`${f.ws}/.mcp.json`, servers("project"));
    await write(`${f.storage}/config.json`, servers("bladeUser"));
    const untrusted = await readMcpSources(options(f, { trusted: false }));
    assert.deepEqual(untrusted.layers.map((l) => l.source), ["user"]);
    const strict = await readMcpSources(
      options(f, { strict: true, mcpConfig: [JSON.stringify(servers("only"))] }),
    );
    assert.deepEqual(strict.layers.map((l) => Object.keys(l.servers)), [["only"]]);
    const none = await readMcpSources(options(f, { strict: true }));
    assert.equal(anyServers(none), false);
  });

  it("a broken file is a warning and loses nothing else; a broken --mcp-config is a usage error", async () => {
    const f = await folders();
    await Deno.writeTextFile(`${f.ws}/.mcp.json`, "{ not json");
    await write(`${f.storage}/config.json`, { mcpServers: ["x"] });
    await write(`${f.home}/.claude.json`, servers("ok"));
    const r = await readMcpSources(options(f));
    assert.deepEqual(r.layers.map((l) => Object.keys(l.servers)), [["ok"]]);
    assert.deepEqual(r.diagnostics.map((d) => [d.origin, d.level]), [
      [`${f.storage}/config.json`, "warning"],
      [`${f.ws}/.mcp.json`, "warning"],
    ]);
    for (const bad of ["missing.json", "{ nope", '{"servers": {}}']) {
      await assert.rejects(
        readMcpSources(options(f, { mcpConfig: [bad] })),
        (e) => e instanceof BladeError && e.exitCode === 2 && e.message.startsWith("--mcp-config:"),
      );
    }
  });
  it("Claude Code's disabledMcpjsonServers (settings, ~/.claude.json's project entry) keeps those .mcp.json servers off", async () => {
    const f = await folders();
    await write(`${f.ws}/.mcp.json`, {
      mcpServers: { a: { command: "a" }, b: { command: "b" }, c: { command: "c" } },
    });
    await write(`${f.home}/.claude.json`, { projects: { [f.ws]: { disabledMcpjsonServers: ["a"] } } });
    // Only .mcp.json's servers: the same name from the user's own configuration still starts.
    await write(`${f.storage}/config.json`, servers("b"));
    const r = await readMcpSources(options(f, { disabledProject: ["b"] }));
    assert.deepEqual(r.layers.map((l) => [l.source, Object.keys(l.servers)]), [["user", ["b"]], ["project", [
      "c",
    ]]]);
    assert.deepEqual(r.disabled, [
      { name: "a", origin: `${f.ws}/.mcp.json` },
      { name: "b", origin: `${f.ws}/.mcp.json` },
    ]);
  });
});
