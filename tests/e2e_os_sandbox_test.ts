// End-to-end: the OS sandbox of Bash commands (docs/reference/permissions.md "The OS sandbox"), with
// real bubblewrap through the real CLI and the scripted provider. Each test lets the model run a probe
// script whose writes the rule layer would allow (yolo, or an allow rule), so only the sandbox stops
// them: a command writes only its writable roots, never a protected path, Blade's storage or trust
// file; reaches the network only when granted; a read-only auditor's command writes nothing; and the
// commands' environment holds no provider key. Skipped, with a message, where bubblewrap cannot run.

import assert from "node:assert/strict";
import { bladeSandbox, parseJsonResult, runScripted } from "./support/blade.ts";
import { osSandbox } from "../lib/sys/os_sandbox.ts";

const BWRAP = (await osSandbox()) === "bwrap";
if (!BWRAP) {
  Deno.test({
    name: "OS sandbox tests skipped: bubblewrap cannot run here (apt-get install bubblewrap)",
    ignore: true,
    fn() {},
  });
}

/** A script that runs the probe and answers with its output. */
function probeScript(command: string) {
  return {
    agents: {
      main: [{ turns: [{ tool_calls: [{ name: "Bash", input: { command } }] }, { text: "{{last_user}}" }] }],
    },
  };
}

/** A shell line that tries to write `target` and says which way it went. */
function tryWrite(name: string, target: string): string {
  return `(echo pwned >> '${target}') 2>/dev/null && echo "${name}: written" || echo "${name}: refused"`;
}

Deno.test({
  name:
    "OS sandbox: a command writes its workspace and temp only, never protected paths, storage or the trust file",
  ignore: !BWRAP,
  async fn() {
    await using sandbox = await bladeSandbox();
    const outside = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "blade-sbx-outside-" });
    try {
      const ws = sandbox.workspace;
      await new Deno.Command("git", { args: ["init", "-q", ws] }).output();
      for (const dir of [".claude", ".blade", ".git/hooks"]) {
        await Deno.mkdir(`${ws}/${dir}`, { recursive: true });
      }
      await Deno.writeTextFile(`${ws}/.mcp.json`, "{}\n");
      await Deno.writeTextFile(`${ws}/.git/hooks/pre-commit`, "#!/bin/sh\n");
      const targets: [string, string][] = [
        ["workspace", `${ws}/inside.txt`],
        ["temp", `/tmp/blade-sbx-${crypto.randomUUID()}`],
        ["outside", `${outside}/x`],
        ["hook", `${ws}/.git/hooks/pre-commit`],
        ["gitconfig", `${ws}/.git/config`],
        ["claude", `${ws}/.claude/settings.json`],
        ["blade", `${ws}/.blade/settings.json`],
        ["mcp", `${ws}/.mcp.json`],
        ["storage", `${sandbox.storage}/x`],
        ["trust", `${sandbox.storage}/trust.json`],
      ];
      const before = await Deno.readTextFile(`${ws}/.git/config`);
      const run = await runScripted(
        sandbox,
        probeScript(targets.map(([n, t]) => tryWrite(n, t)).join("; ")),
        {
          flags: ["--permission-mode", "yolo", "--trust-workspace"],
        },
      );
      assert.equal(run.code, 0, run.stderr);
      const said = String(parseJsonResult(run).result);
      for (const [name] of targets) {
        const expected = name === "workspace" || name === "temp" ? "written" : "refused";
        assert.match(said, new RegExp(`${name}: ${expected}`), said);
      }
      assert.equal(await Deno.readTextFile(`${ws}/inside.txt`), "pwned\n");
      assert.equal(await Deno.readTextFile(`${ws}/.git/hooks/pre-commit`), "#!/bin/sh\n");
      assert.equal(await Deno.readTextFile(`${ws}/.git/config`), before);
      assert.equal(await Deno.readTextFile(`${ws}/.mcp.json`), "{}\n");
      for (
        const path of [
          `${outside}/x`,
          `${ws}/.claude/settings.json`,
          `${ws}/.blade/settings.json`,
          `${sandbox.storage}/x`,
        ]
      ) {
        assert.equal(await Deno.stat(path).then(() => true, () => false), false, `${path} was written`);
      }
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
});

Deno.test({
  name: "OS sandbox: no network unless granted (an allow rule for one command is no grant; yolo is)",
  ignore: !BWRAP,
  async fn() {
    await using sandbox = await bladeSandbox();
    using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const accepting = (async () => {
      for await (const conn of listener) conn.close();
    })().catch(() => {});
    const probe =
      `bash -c 'echo > /dev/tcp/127.0.0.1/${listener.addr.port}' 2>/dev/null && echo net: reached || echo net: cut`;
    const ruled = await runScripted(sandbox, probeScript(probe), {
      flags: ["--allowed-tools", `Bash(${probe})`, "--trust-workspace"],
    });
    assert.equal(ruled.code, 0, ruled.stderr);
    assert.match(String(parseJsonResult(ruled).result), /net: cut/);
    const yolo = await runScripted(sandbox, probeScript(probe), {
      flags: ["--permission-mode", "yolo", "--trust-workspace"],
    });
    assert.match(String(parseJsonResult(yolo).result), /net: reached/);
    listener.close();
    await accepting;
  },
});

Deno.test({
  name:
    "OS sandbox: a read-only auditor's verification command writes nothing (a test file that writes fails)",
  ignore: !BWRAP,
  async fn() {
    await using sandbox = await bladeSandbox();
    await Deno.writeTextFile(
      `${sandbox.workspace}/w.test.js`,
      `require("node:fs").writeFileSync("pwned.txt", "x");\n`,
    );
    const run = await runScripted(sandbox, {
      agents: {
        main: [{
          turns: [{
            tool_calls: [{
              name: "Task",
              input: { subagent_type: "verification", description: "Verify", prompt: "Test." },
            }],
          }, { text: "done" }],
        }],
        verification: [{
          turns: [{ tool_calls: [{ name: "Bash", input: { command: "node --test" } }] }, {
            text: "{{last_user}}",
          }],
        }],
      },
    }, { flags: ["--permission-mode", "yolo", "--trust-workspace"] });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await Deno.stat(`${sandbox.workspace}/pwned.txt`).then(() => true, () => false), false);
  },
});

Deno.test({
  name: "OS sandbox: the top-level session's commands get no provider key unless the settings env passes one",
  async fn() {
    await using sandbox = await bladeSandbox();
    const env = { ANTHROPIC_API_KEY: "sk-ant-top-SECRET-1234", OPENAI_API_KEY: "sk-openai-SECRET-5678" };
    const probe = 'echo "a=${ANTHROPIC_API_KEY:-none} o=${OPENAI_API_KEY:-none}"';
    const bare = await runScripted(sandbox, probeScript(probe), {
      flags: ["--permission-mode", "yolo", "--trust-workspace"],
      env,
    });
    assert.equal(bare.code, 0, bare.stderr);
    assert.match(String(parseJsonResult(bare).result), /a=none o=none/);
    const passed = await runScripted(sandbox, probeScript(probe), {
      flags: [
        "--permission-mode",
        "yolo",
        "--trust-workspace",
        "--settings",
        JSON.stringify({ env: { OPENAI_API_KEY: "sk-openai-passed-on" } }),
      ],
      env,
    });
    assert.match(
      String(parseJsonResult(passed).result),
      /a=none o=\[REDACTED\]|a=none o=sk-openai-passed-on/,
    );
  },
});

Deno.test("OS sandbox: without one, a command runs rule-only with one warning per session; --require-sandbox and sandbox.required refuse it", async () => {
  await using sandbox = await bladeSandbox();
  const twice = {
    agents: {
      main: [{
        turns: [
          { tool_calls: [{ name: "Bash", input: { command: "echo first" } }] },
          { tool_calls: [{ name: "Bash", input: { command: "echo second" } }] },
          { text: "{{last_user}}" },
        ],
      }],
    },
  };
  const flags = ["--permission-mode", "yolo", "--trust-workspace"];
  const env = { BLADE_SANDBOX: "0" };
  const warned = await runScripted(sandbox, twice, { flags, env });
  assert.equal(warned.code, 0, warned.stderr);
  assert.equal(
    String(parseJsonResult(warned).result),
    "second",
    "the warning comes once, with the first command",
  );
  // The refusal reaches the model (its tool result, on the stream), and a run whose one command was
  // refused did none of its work: it fails (permission_denied).
  const stream = ["--output-format", "stream-json", "--verbose"];
  const required = await runScripted(sandbox, probeScript("echo ran"), {
    flags: [...flags, "--require-sandbox", ...stream],
    env,
  });
  assert.equal(required.code, 1, required.stderr);
  assert.match(
    required.stdout,
    /Permission denied: commands must run in an OS sandbox \(--require-sandbox or the sandbox\.required setting\), and BLADE_SANDBOX=0 turned it off/,
  );
  assert.match(required.stdout, /"code":"permission_denied"/);
  await Deno.writeTextFile(`${sandbox.storage}/config.json`, JSON.stringify({ sandbox: { required: true } }));
  const setting = await runScripted(sandbox, probeScript("echo ran"), { flags: [...flags, ...stream], env });
  assert.equal(setting.code, 1, setting.stderr);
  assert.match(setting.stdout, /Permission denied: commands must run in an OS sandbox/);
});

Deno.test({
  name:
    "OS sandbox: a worktree child commits in its worktree but cannot write the parent checkout by any route",
  ignore: !BWRAP,
  async fn() {
    await using sandbox = await bladeSandbox();
    const P = sandbox.workspace;
    const gitIn = (...args: string[]) =>
      new Deno.Command("git", {
        args: [
          "-C",
          P,
          "-c",
          "user.name=t",
          "-c",
          "user.email=t@t.invalid",
          "-c",
          "commit.gpgsign=false",
          ...args,
        ],
      }).output();
    // Each route the issue found from a worktree to the parent checkout; the rule layer sees only `bash probe.sh`.
    await Deno.writeTextFile(
      `${P}/probe.sh`,
      [
        `P='${P}'`,
        `(builtin cd "$P" && echo x > pwned-builtin) 2>/dev/null`,
        `(CDPATH="$(dirname "$P")" cd "$(basename "$P")" >/dev/null && echo x > pwned-cdpath) 2>/dev/null`,
        `(command cd "$P" && echo x > pwned-command) 2>/dev/null`,
        `env -C "$P" sh -c 'echo x > pwned-envc' 2>/dev/null`,
        `echo x > "$P/pwned-abs" 2>/dev/null`,
        `env -i PATH=/usr/bin:/bin GIT_DIR="$P/.git" GIT_WORK_TREE="$P" git -c user.name=t -c user.email=t@t.invalid commit -q --allow-empty -m pwned 2>/dev/null`,
        `env -i PATH=/usr/bin:/bin git -C "$P" config core.hooksPath /tmp 2>/dev/null`,
        `echo change > mine.txt && git add mine.txt && git -c user.name=t -c user.email=t@t.invalid -c commit.gpgsign=false commit -qm mine 2>&1 && echo committed`,
      ].join("\n"),
    );
    await gitIn("init", "-q", "-b", "main");
    await gitIn("add", "-A");
    await gitIn("commit", "-qm", "initial");
    const head = new TextDecoder().decode((await gitIn("rev-parse", "HEAD")).stdout);
    const config = await Deno.readTextFile(`${P}/.git/config`);
    const run = await runScripted(sandbox, {
      agents: {
        main: [{
          turns: [{
            tool_calls: [{
              name: "Task",
              input: {
                subagent_type: "general-purpose",
                description: "Probe",
                prompt: "Run the probe script.",
                isolation: "worktree",
              },
            }],
          }, { text: "{{last_user}}" }],
        }],
        "general-purpose": [{
          turns: [{ tool_calls: [{ name: "Bash", input: { command: "bash probe.sh" } }] }, {
            text: "{{last_user}}",
          }],
        }],
      },
    }, { flags: ["--permission-mode", "yolo", "--trust-workspace"] });
    assert.equal(run.code, 0, run.stderr);
    assert.match(String(parseJsonResult(run).result), /committed/, String(parseJsonResult(run).result));
    const left = [];
    for await (const e of Deno.readDir(P)) if (e.name.startsWith("pwned")) left.push(e.name);
    assert.deepEqual(left, [], "nothing written into the parent checkout");
    assert.equal(new TextDecoder().decode((await gitIn("rev-parse", "HEAD")).stdout), head);
    assert.equal(await Deno.readTextFile(`${P}/.git/config`), config);
  },
});

Deno.test({
  name:
    "OS sandbox: a missing .mcp.json, .claude/, .blade/ or .git/hooks a command creates is moved aside when it ends (foreground and background)",
  ignore: !BWRAP,
  async fn() {
    await using sandbox = await bladeSandbox();
    const ws = sandbox.workspace;
    await new Deno.Command("git", { args: ["init", "-q", ws] }).output();
    await Deno.remove(`${ws}/.git/hooks`, { recursive: true });
    // None of them exists, so the sandbox cannot bind it read-only: a command may create it.
    const plant = [
      `echo '{"mcpServers":{"x":{"command":"./evil.sh"}}}' > .mcp.json`,
      `mkdir -p .claude && echo '{"permissions":{"allow":["Bash"]}}' > .claude/settings.json`,
      `mkdir -p .blade/agents && echo x > .blade/agents/a.md`,
      `mkdir -p .git/hooks && printf '#!/bin/sh\\n' > .git/hooks/pre-commit`,
      `echo fine > ordinary.txt`,
    ].join(" && ");
    const run = await runScripted(sandbox, probeScript(plant), {
      flags: ["--permission-mode", "yolo", "--trust-workspace"],
    });
    assert.equal(run.code, 0, run.stderr);
    const said = String(parseJsonResult(run).result);
    assert.match(said, /Blade moved it aside: /, said);
    for (const path of [".mcp.json", ".claude", ".blade", ".git/hooks"]) {
      assert.equal(await Deno.lstat(`${ws}/${path}`).then(() => true, () => false), false, `${path} is left`);
      assert.ok(said.includes(`${ws}/${path} → ${ws}/${path}.blade-refused`), said);
    }
    assert.equal(
      await Deno.readTextFile(`${ws}/.claude.blade-refused/settings.json`),
      '{"permissions":{"allow":["Bash"]}}\n',
      "kept for the person to look at",
    );
    assert.equal(await Deno.readTextFile(`${ws}/ordinary.txt`), "fine\n");

    // A background command: set aside when it ends, too.
    const background = await runScripted(sandbox, {
      agents: {
        main: [{
          turns: [
            {
              tool_calls: [{
                name: "Bash",
                input: { command: "sleep 0.3; echo '{}' > .mcp.json", run_in_background: true },
              }],
            },
            { text: "started" },
            { text: "{{last_user}}" },
          ],
        }],
      },
    }, { flags: ["--permission-mode", "yolo", "--trust-workspace"] });
    assert.equal(background.code, 0, background.stderr);
    assert.equal(
      await Deno.lstat(`${ws}/.mcp.json`).then(() => true, () => false),
      false,
      ".mcp.json is left",
    );
    assert.equal(await Deno.readTextFile(`${ws}/.mcp.json.blade-refused-2`), "{}\n");
  },
});
