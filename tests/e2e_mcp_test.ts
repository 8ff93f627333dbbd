// End-to-end: MCP servers in `blade -p` and `blade mcp list` as real subprocesses, with the stdio test
// server (lib/testing/mcp_test_server.ts) started by Blade's main thread: tools for the session and
// for a Worker child, the permission gate and the ceiling, a crashing server, list_changed, and which
// sources count (--mcp-config, --strict-mcp-config, .mcp.json only in trusted folders).

import assert from "node:assert/strict";
import { serveMcpHttp, stdioTestServer } from "../lib/testing/mcp_test_server.ts";
import type { TranscriptEvent } from "../lib/protocol/events.ts";
import type { ToolResultBlock } from "../lib/protocol/messages.ts";
import {
  type BladeResult,
  type BladeSandbox,
  bladeSandbox,
  parseJsonResult,
  readSidecars,
  runScripted,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

/** An mcpServers entry for the test server; DENO_DIR comes through `${VAR}` expansion. */
function server(label: string, args: string[] = []) {
  return { ...stdioTestServer([`--label=${label}`, ...args]), env: { DENO_DIR: "${DENO_DIR}" } };
}

function mcpConfig(servers: Record<string, unknown>): string {
  return JSON.stringify({ mcpServers: servers });
}

function toolResults(events: TranscriptEvent[]): ToolResultBlock[] {
  return events.flatMap((e) =>
    e.type === "part_created" && e.data.part.type === "tool_result" ? [e.data.part] : []
  );
}

async function mainResults(sandbox: BladeSandbox, run: BladeResult): Promise<ToolResultBlock[]> {
  const sessionId = String(parseJsonResult(run).session_id);
  return toolResults(await transcriptEvents(transcriptPath(sandbox, sessionId)));
}

const call = (name: string, input: Record<string, unknown> = {}) => ({ name, input });

Deno.test("mcp: the session calls a stdio server's tools; the gate needs a rule; list_changed; a crash is a tool error", async () => {
  await using sandbox = await bladeSandbox();
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          {
            tool_calls: [call("mcp__docs__echo", { text: "hello" }), call("mcp__docs__note", { text: "x" })],
          },
          { tool_calls: [call("mcp__docs__add_tool")] },
          { tool_calls: [call("mcp__docs__late")] },
          { tool_calls: [call("mcp__docs__crash"), call("mcp__docs__echo", { text: "after" })] },
          { text: "done" },
        ],
      }],
    },
  }, {
    prompt: "Use the tools",
    flags: [
      "--mcp-config",
      mcpConfig({ docs: server("docs") }),
      "--allowed-tools",
      "mcp__docs__echo,mcp__docs__add_tool,mcp__docs__late,mcp__docs__crash",
    ],
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(parseJsonResult(run).result, "done");
  const results = await mainResults(sandbox, run);
  const texts = results.map((
    r,
  ) => [r.isError === true, typeof r.content === "string" ? r.content : JSON.stringify(r.content)]);
  assert.deepEqual(texts[0], [false, "docs echo: hello"]);
  assert.equal(texts[1]?.[0], true);
  assert.match(String(texts[1]?.[1]), /^Permission denied: mcp__docs__note \(an MCP tool\) needs approval/);
  assert.deepEqual(texts[2], [false, "added"]);
  // The tool the server added after notifications/tools/list_changed is callable in the same session.
  assert.deepEqual(texts[3], [false, "late tool ran"]);
  assert.equal(texts[4]?.[0], true);
  assert.equal(texts[5]?.[0], true);
  assert.match(String(texts[5]?.[1]), /MCP server "docs" is not available: the server closed the connection/);
});

Deno.test("mcp: a Worker child calls the parent's server through the main thread; rules and the ceiling apply", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write(
    ".claude/agents/other-only.md",
    "---\nname: other-only\ndescription: Has only the other server\nmcpServers:\n  - other\n---\nUse your tools.\n",
  );
  await sandbox.write(
    ".claude/agents/inline.md",
    `---\nname: inline\ndescription: Brings its own server\nmcpServers:\n  - own: ${
      JSON.stringify(server("own"))
    }\n---\nUse it.\n`,
  );
  const task = (type: string, description: string) => ({
    name: "Task",
    input: { subagent_type: type, description, prompt: `Run as ${type} and report.` },
  });
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          { tool_calls: [task("general-purpose", "inherits docs"), task("other-only", "only other")] },
          { tool_calls: [task("inline", "inline server")] },
          { text: "parent done" },
        ],
      }],
      "general-purpose": [{
        turns: [
          {
            tool_calls: [
              call("mcp__docs__echo", { text: "from child" }),
              call("mcp__docs__note", { text: "n" }),
            ],
          },
          { text: "child: {{last_user}}" },
        ],
      }],
      "other-only": [{
        turns: [
          {
            tool_calls: [
              call("mcp__docs__echo", { text: "nope" }),
              call("mcp__other__echo", { text: "yes" }),
            ],
          },
          { text: "other: {{last_user}}" },
        ],
      }],
      inline: [{
        turns: [{ tool_calls: [call("mcp__own__echo", { text: "mine" })] }, {
          text: "inline: {{last_user}}",
        }],
      }],
    },
  }, {
    prompt: "Use the tools",
    flags: [
      "--trust-workspace",
      "--mcp-config",
      mcpConfig({ docs: server("docs"), other: server("other") }),
      "--allowed-tools",
      "mcp__docs__*,mcp__other__echo,mcp__own",
      // The ceiling: the run removes `note`, so no child has it, whatever its agent file says.
      "--disallowed-tools",
      "mcp__docs__note",
    ],
  });
  assert.equal(run.code, 0, run.stderr);
  const sidecars = await readSidecars(sandbox.storage);
  const childResults = async (description: string) => {
    const record = sidecars.find((s) => s.description === description);
    assert.ok(record !== undefined, description);
    const events = await transcriptEvents(transcriptPath(sandbox, record.id));
    return toolResults(events).map((r) => [r.isError === true, String(r.content)]);
  };
  const inherits = await childResults("inherits docs");
  assert.deepEqual(inherits[0], [false, "docs echo: from child"]);
  assert.equal(inherits[1]?.[0], true);
  assert.match(String(inherits[1]?.[1]), /^Unknown tool "mcp__docs__note"/);
  const other = await childResults("only other");
  assert.equal(other[0]?.[0], true);
  assert.match(String(other[0]?.[1]), /^Unknown tool "mcp__docs__echo". Available tools: .*mcp__other__echo/);
  assert.doesNotMatch(String(other[0]?.[1]).split("Available tools:")[1] ?? "", /mcp__docs__/);
  assert.deepEqual(other[1], [false, "other echo: yes"]);
  assert.deepEqual((await childResults("inline server"))[0], [false, "own echo: mine"]);
});

Deno.test("mcp list: .mcp.json only in trusted folders; --strict-mcp-config uses only --mcp-config", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write(".mcp.json", mcpConfig({ project: server("project") }));
  const list = async (flags: string[]) => {
    const r = await sandbox.run(["mcp", "list", "--json", ...flags]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      servers: { name: string; source: string; status: string; tools: { name: string }[] }[];
    };
    return out.servers.map((s) => [s.name, s.source, s.status, s.tools.length]);
  };
  assert.deepEqual(await list([]), []);
  assert.deepEqual(await list(["--trust-workspace"]), [["project", "project", "connected", 9]]);
  assert.deepEqual(
    await list([
      "--trust-workspace",
      "--strict-mcp-config",
      "--mcp-config",
      mcpConfig({ flag: server("flag") }),
    ]),
    [["flag", "flag", "connected", 9]],
  );
  // A server the user turned off in Claude Code stays off (a program they chose not to run).
  await sandbox.write(".claude/settings.local.json", JSON.stringify({ disabledMcpjsonServers: ["project"] }));
  assert.deepEqual(await list(["--trust-workspace"]), []);
  const off = await sandbox.run(["mcp", "list", "--trust-workspace"]);
  assert.match(
    off.stdout,
    /\nproject \(.*\.mcp\.json\) - disabled \(disabledMcpjsonServers\), not started\n/,
  );
  // Several --mcp-config files after one flag, named as Claude Code users do (relative, no folder).
  await sandbox.write("a.json", mcpConfig({ a: server("a") }));
  await sandbox.write("b.json", mcpConfig({ b: server("b"), a: server("a2") }));
  assert.deepEqual(await list(["--strict-mcp-config", "--mcp-config", "a.json", "b.json"]), [
    ["b", "flag", "connected", 9],
    ["a", "flag", "connected", 9],
  ]);
  const text = await sandbox.run(["mcp", "list"]);
  assert.match(
    text.stdout,
    /No MCP servers configured\.\n\(This folder is not trusted: its \.mcp\.json is not read/,
  );
});

Deno.test("mcp: stream-json init lists the servers and their tools; a server that cannot start is a warning", async () => {
  await using sandbox = await bladeSandbox();
  const path = `${sandbox.root}/script.json`;
  await Deno.writeTextFile(path, JSON.stringify({ agents: { main: [{ turns: [{ text: "ok" }] }] } }));
  const run = await sandbox.run([
    "-p",
    "hi",
    "--provider",
    "scripted",
    "--script",
    path,
    "--output-format",
    "stream-json",
    "--verbose",
    "--mcp-config",
    mcpConfig({ docs: server("docs"), broken: server("broken", ["--exit-at-start"]) }),
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /warning: MCP server "broken" is not available .*cannot start \(on purpose\)/);
  const init = JSON.parse(run.stdout.split("\n")[0]!);
  assert.equal(init.subtype, "init");
  assert.deepEqual(init.mcp_servers, [{ name: "docs", status: "connected" }, {
    name: "broken",
    status: "failed",
  }]);
  assert.ok(
    init.tools.includes("mcp__docs__echo") && !init.tools.some((t: string) => t.startsWith("mcp__broken")),
  );
});

Deno.test("mcp: an HTTP server for the parent and a Worker child; ${VAR} tokens are redacted everywhere", async () => {
  await using sandbox = await bladeSandbox();
  const token = "tok-e2e-0123456789abcdef";
  const http = await serveMcpHttp({ token });
  try {
    const run = await runScripted(sandbox, {
      agents: {
        main: [{
          turns: [
            {
              tool_calls: [
                call("mcp__web__echo", { text: "parent" }),
                call("mcp__docs__env", { name: "API_TOKEN" }),
              ],
            },
            {
              tool_calls: [{
                name: "Task",
                input: {
                  subagent_type: "general-purpose",
                  description: "child web",
                  prompt: "Call the web echo.",
                },
              }],
            },
            { text: "done" },
          ],
        }],
        "general-purpose": [{
          turns: [{ tool_calls: [call("mcp__web__echo", { text: "child" })] }, {
            text: "child: {{last_user}}",
          }],
        }],
      },
    }, {
      flags: [
        "--mcp-config",
        mcpConfig({
          web: { type: "http", url: http.url, headers: { Authorization: "Bearer ${TEST_MCP_TOKEN}" } },
          docs: { ...server("docs"), env: { DENO_DIR: "${DENO_DIR}", API_TOKEN: "${TEST_MCP_TOKEN}" } },
        }),
        "--allowed-tools",
        "mcp__web__echo,mcp__docs__env",
      ],
      env: { TEST_MCP_TOKEN: token },
    });
    assert.equal(run.code, 0, run.stderr);
    const results = (await mainResults(sandbox, run)).map((r) => String(r.content));
    assert.equal(results[0], "http echo: parent");
    // The server got the token through `${VAR}`; what it sends back is redacted before it is written.
    assert.equal(results[1], "API_TOKEN=[REDACTED]");
    const [child] = await readSidecars(sandbox.storage);
    assert.ok(child !== undefined);
    const childResults = toolResults(await transcriptEvents(transcriptPath(sandbox, child.id)));
    assert.equal(String(childResults[0]?.content), "http echo: child");
    for (
      const file of [
        transcriptPath(sandbox, String(parseJsonResult(run).session_id)),
        transcriptPath(sandbox, child.id),
      ]
    ) {
      assert.ok(!(await Deno.readTextFile(file)).includes(token), `${file} holds the token`);
    }
    assert.ok(!run.stdout.includes(token) && !run.stderr.includes(token));
  } finally {
    await http.close();
  }
});

Deno.test("mcp: blade run gives the directly run agent the configured servers' tools", async () => {
  await using sandbox = await bladeSandbox();
  const script = `${sandbox.root}/run.json`;
  await Deno.writeTextFile(
    script,
    JSON.stringify({
      agents: {
        "general-purpose": [{
          turns: [{ tool_calls: [call("mcp__docs__echo", { text: "direct" })] }, {
            text: "got: {{last_user}}",
          }],
        }],
      },
    }),
  );
  const run = await sandbox.run([
    "run",
    "general-purpose",
    "Echo something through the docs server",
    "--provider",
    "scripted",
    "--script",
    script,
    "--output-format",
    "json",
    "--mcp-config",
    mcpConfig({ docs: server("docs") }),
    "--allowed-tools",
    "mcp__docs__echo",
  ]);
  assert.equal(run.code, 0, run.stderr);
  const [child] = await readSidecars(sandbox.storage);
  assert.ok(child !== undefined);
  const results = toolResults(await transcriptEvents(transcriptPath(sandbox, child.id)));
  assert.deepEqual(results.map((r) => [r.isError === true, String(r.content)]), [[
    false,
    "docs echo: direct",
  ]]);
});

Deno.test("mcp: --debug shows a server's stderr terminal-safe, its tokens redacted from the first line", async () => {
  await using sandbox = await bladeSandbox();
  const token = "tok-debug-0123456789abcdef";
  const key = "key-args-0123456789abcdef";
  // The server writes its token to stderr before it reads its first message (before it has started).
  const docs = server("docs", ["--stderr-env=API_TOKEN", "--api-key=${TEST_MCP_KEY}"]);
  const config = mcpConfig({
    docs: { ...docs, env: { DENO_DIR: "${DENO_DIR}", API_TOKEN: "${TEST_MCP_TOKEN}" } },
  });
  const env = { TEST_MCP_TOKEN: token, TEST_MCP_KEY: key };
  const run = await runScripted(sandbox, { agents: { main: [{ turns: [{ text: "ok" }] }] } }, {
    flags: ["--debug", "--mcp-config", config],
    env,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /\[debug\] mcp docs stderr: test server: API_TOKEN=\[REDACTED\] red\n/);
  assert.ok(!run.stderr.includes(token), "the token is on stderr");
  assert.ok(!run.stderr.includes("\x1b") && !run.stderr.includes("\x07"), "raw escape sequences on stderr");
  // A secret-named variable expanded into `args` is redacted too (the command line `mcp list` shows).
  const list = await sandbox.run(["mcp", "list", "--json", "--mcp-config", config], { env });
  assert.equal(list.code, 0, list.stderr);
  assert.ok(!list.stdout.includes(key), list.stdout);
  assert.match(list.stdout, /--api-key=\[REDACTED\]/);
});

Deno.test("mcp: a hostile server's unusable tool names are left out with a warning; the session goes on", async () => {
  await using sandbox = await bladeSandbox();
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          { tool_calls: [call("mcp__h__dup_name"), call("mcp__h__ansi"), call("mcp__h__drop_echo")] },
          { tool_calls: [call("mcp__h__echo", { text: "gone" })] },
          { text: "done" },
        ],
      }],
    },
  }, {
    flags: ["--mcp-config", mcpConfig({ h: server("h", ["--hostile"]) }), "--allowed-tools", "mcp__h"],
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(parseJsonResult(run).result, "done");
  assert.match(
    run.stderr,
    /warning: MCP server "h": tool "x{60}" is left out: its Blade name mcp__h__x{60} is 68/,
  );
  assert.match(
    run.stderr,
    /warning: MCP server "h": tool "dup_name" is left out: .*already the name of "dup.name"/,
  );
  const results = (await mainResults(sandbox, run)).map((r) => [r.isError === true, String(r.content)]);
  assert.deepEqual(results[0], [false, "first dup"]);
  // The server's escape sequences are kept as data in the transcript (the model may need them) …
  assert.deepEqual(results[1], [false, "red \x1b[31mtext\x1b[0m \x1b]0;pwned\x07"]);
  assert.deepEqual(results[2], [false, "echo removed"]);
  // … and a tool the server removed (list_changed) is a clear error on the next turn.
  assert.equal(results[3]?.[0], true);
  assert.match(String(results[3]?.[1]), /mcp__h__echo/);
  const text = await sandbox.run([
    "mcp",
    "list",
    "--mcp-config",
    mcpConfig({ h: server("h", ["--hostile"]) }),
  ]);
  assert.equal(text.code, 0, text.stderr);
  assert.ok(!text.stdout.includes("\x1b") && !text.stdout.includes("\x07"), "raw escape sequences on stdout");
  assert.match(
    text.stdout,
    /\n {2}left out: dup_name \(its Blade name mcp__h__dup_name is already the name of/,
  );
});

Deno.test("mcp: plan mode allows only tools the server marks readOnlyHint, in the session and a Worker child", async () => {
  await using sandbox = await bladeSandbox();
  const task = {
    name: "Task",
    input: {
      subagent_type: "general-purpose",
      description: "plan child",
      prompt: "Look at the docs and report.",
    },
  };
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          { tool_calls: [call("mcp__docs__echo", { text: "ro" }), call("mcp__docs__note", { text: "rw" })] },
          { tool_calls: [task] },
          { text: "done" },
        ],
      }],
      "general-purpose": [{
        turns: [
          {
            tool_calls: [
              call("mcp__docs__echo", { text: "child ro" }),
              call("mcp__docs__note", { text: "w" }),
            ],
          },
          { text: "child: {{last_user}}" },
        ],
      }],
    },
  }, {
    flags: [
      "--permission-mode",
      "plan",
      "--mcp-config",
      mcpConfig({ docs: server("docs") }),
      // The allow rule comes from settings this time (the same grammar as --allowed-tools).
      "--settings",
      JSON.stringify({ permissions: { allow: ["mcp__docs"] } }),
    ],
  });
  assert.equal(run.code, 0, run.stderr);
  const parent = (await mainResults(sandbox, run)).map((r) => [r.isError === true, String(r.content)]);
  assert.deepEqual(parent[0], [false, "docs echo: ro"]);
  assert.equal(parent[1]?.[0], true);
  assert.match(
    String(parent[1]?.[1]),
    /not available in plan mode: its MCP server does not mark it read-only/,
  );
  const [child] = await readSidecars(sandbox.storage);
  assert.ok(child !== undefined);
  const childResults = toolResults(await transcriptEvents(transcriptPath(sandbox, child.id)))
    .map((r) => [r.isError === true, String(r.content)]);
  assert.deepEqual(childResults[0], [false, "docs echo: child ro"]);
  assert.equal(childResults[1]?.[0], true);
  assert.match(
    String(childResults[1]?.[1]),
    /^Permission denied: mcp__docs__note is not available in plan mode: its MCP server does not mark it read-only/,
  );
});

Deno.test("mcp: an agent's inline server that cannot start is a warning naming the agent, the server and why", async () => {
  await using sandbox = await bladeSandbox();
  const broken = {
    ...server("own", ["--exit-at-start"]),
    env: { DENO_DIR: "${DENO_DIR}", T: "${NO_SUCH_VAR}" },
  };
  const failing = server("dies", ["--exit-at-start"]);
  await sandbox.write(
    ".claude/agents/inline.md",
    `---\nname: inline\ndescription: Brings its own servers\nmcpServers:\n  - own: ${
      JSON.stringify(broken)
    }\n  - dies: ${JSON.stringify(failing)}\n---\nUse them.\n`,
  );
  const task = { subagent_type: "inline", description: "inline", prompt: "Use your own servers." };
  const run = await runScripted(sandbox, {
    agents: {
      main: [{ turns: [{ tool_calls: [{ name: "Task", input: task }] }, { text: "done" }] }],
      inline: [{
        turns: [{ tool_calls: [call("mcp__own__echo", { text: "x" })] }, { text: "{{last_user}}" }],
      }],
    },
  }, { flags: ["--trust-workspace", "--allowed-tools", "mcp__own"] });
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /warning: agent "inline": MCP server "own" is not available \(its tools are left out\): missing environment variable NO_SUCH_VAR/,
  );
  assert.match(
    run.stderr,
    /warning: agent "inline": MCP server "dies" is not available .*cannot start \(on purpose\)/,
  );
});
