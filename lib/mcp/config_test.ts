import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expandVars, type McpLayer, parseServer, resolveServers, secretsOfServers } from "./config.ts";

const env: Record<string, string> = { TOKEN: "tok-123456789", EMPTY: "", HOST: "127.0.0.1" };
const lookup = (name: string) => env[name];
const where = { source: "project" as const, origin: "/p/.mcp.json" };

describe("MCP configuration", () => {
  it("expands ${VAR} and ${VAR:-default}; reports unset variables without a default", () => {
    assert.deepEqual(expandVars("Bearer ${TOKEN}", lookup), {
      value: "Bearer tok-123456789",
      missing: [],
      secrets: ["tok-123456789"],
    });
    assert.deepEqual(expandVars("http://${HOST}:${PORT:-8080}/mcp", lookup), {
      value: "http://127.0.0.1:8080/mcp",
      missing: [],
      secrets: [],
    });
    assert.deepEqual(expandVars("${EMPTY:-fallback}", lookup), {
      value: "fallback",
      missing: [],
      secrets: [],
    });
    assert.deepEqual(expandVars("${NOPE}/x", lookup), { value: "/x", missing: ["NOPE"], secrets: [] });
    assert.deepEqual(expandVars("$TOKEN and ${} stay", lookup), {
      value: "$TOKEN and ${} stay",
      missing: [],
      secrets: [],
    });
  });

  it("reads stdio, http and sse definitions in Claude Code's format", () => {
    assert.deepEqual(
      parseServer(
        "docs",
        { command: "docs-mcp", args: ["--token", "${TOKEN}"], env: { K: "${HOST}" } },
        where,
        lookup,
      )
        .entry,
      {
        name: "docs",
        ...where,
        transport: {
          type: "stdio",
          command: "docs-mcp",
          args: ["--token", "tok-123456789"],
          env: { K: "127.0.0.1" },
        },
        secrets: ["tok-123456789"],
      },
    );
    assert.deepEqual(
      parseServer(
        "gh",
        { type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        where,
        lookup,
      )
        .entry.transport,
      { type: "http", url: "https://127.0.0.1/mcp", headers: { Authorization: "Bearer tok-123456789" } },
    );
    assert.deepEqual(parseServer("s", { type: "sse", url: "http://x/sse" }, where, lookup).entry.transport, {
      type: "sse",
      url: "http://x/sse",
      headers: {},
    });
  });

  it("a bad entry is an error for that server only, with the field and the fix", () => {
    const cases: [string, unknown, RegExp][] = [
      ["a", { args: ["x"] }, /field "command"/],
      ["b", { type: "http" }, /field "url"/],
      ["c", { type: "http", url: "ftp://x" }, /not an http\(s\) URL/],
      [
        "d",
        { command: "x", env: { A: "${NOT_SET}" } },
        /missing environment variable NOT_SET .*\$\{VAR:-default\}/,
      ],
      ["e", "npx server", /must be an object/],
      ["bad name!", { command: "x" }, /server name is 1-64/],
      // `mcp__a__b__c` would be tool `b__c` of `a` and tool `c` of `a__b`: a rule for one covers both.
      ["a__b", { command: "x" }, /must not contain "__" .*mcp__a__b__<tool> would also read as server "a"/],
      ["a..b", { command: "x" }, /must not contain "__"/],
      ["a_", { command: "x" }, /must not .*end with "_"/],
    ];
    for (const [name, raw, message] of cases) {
      const r = parseServer(name, raw, where, lookup);
      assert.equal(r.entry.transport, undefined, name);
      assert.match(r.entry.error ?? "", message, name);
      assert.equal(r.diagnostics[0]?.level, "error");
    }
    const extra = parseServer("f", { command: "x", oauth: {} }, where, lookup);
    assert.ok(extra.entry.transport !== undefined);
    assert.match(extra.diagnostics[0]?.message ?? "", /field "oauth" is not supported/);
  });

  it("later layers win by name; same tool prefix from different names is reported", () => {
    const layers: McpLayer[] = [
      { source: "user", origin: "u", servers: { docs: { command: "user-docs" }, other: { command: "o" } } },
      {
        source: "project",
        origin: "p",
        servers: { docs: { command: "project-docs" }, "my.srv": { command: "m" } },
      },
      { source: "flag", origin: "f", servers: { my_srv: { command: "flag" } } },
    ];
    const r = resolveServers(layers, lookup);
    assert.deepEqual(
      r.servers.map((s) => [s.name, s.source, s.transport?.type === "stdio" ? s.transport.command : ""]),
      [
        ["other", "user", "o"],
        ["docs", "project", "project-docs"],
        ["my_srv", "flag", "flag"],
      ],
    );
    assert.match(
      r.diagnostics.map((d) => d.message).join("\n"),
      /"my.srv" and "my_srv" give the same tool names/,
    );
  });

  it("secrets: values of secret-named env vars and headers, and bearer tokens alone", () => {
    const { servers } = resolveServers([{
      source: "flag",
      origin: "f",
      servers: {
        a: { command: "x", env: { GITHUB_TOKEN: "ghp_abcdefgh", LOG_LEVEL: "information" } },
        b: {
          type: "http",
          url: "http://h",
          headers: { Authorization: "Bearer ${TOKEN}", Accept: "application/json" },
        },
      },
    }], lookup);
    assert.deepEqual(secretsOfServers(servers).sort(), [
      "Bearer tok-123456789",
      "ghp_abcdefgh",
      "tok-123456789",
    ]);
  });

  it("secrets: a secret-named variable expanded into args or a URL is a secret there too", () => {
    const vars: Record<string, string> = { API_KEY: "key-0123456789", HOST: "127.0.0.1" };
    const { servers } = resolveServers([{
      source: "flag",
      origin: "f",
      servers: {
        a: { command: "x", args: ["--api-key=${API_KEY}", "--host=${HOST}"] },
        b: { type: "http", url: "http://${HOST}/mcp?key=${API_KEY}" },
      },
    }], (name) => vars[name]);
    assert.deepEqual(secretsOfServers(servers), ["key-0123456789"]);
  });
});
