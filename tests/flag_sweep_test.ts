// The flag sweep (docs/guides/migrating-from-claude-code.md): every option of `claude --help` 2.1.332
// (tests/fixtures/claude/flags/help.txt) has a case in tests/support/flag_cases.ts, and every case
// Claude Code accepts (its recorded exit code, sweep.json) Blade accepts too: run in this process
// (runCli with real files and processes) against the loopback fake server in a git checkout, it never
// exits 2 (a usage error) and prints its result. What Claude Code itself refuses Blade may refuse.
// `--bare` belongs to the memory layer: until it lands it is reported, not failed.

import assert from "node:assert/strict";
import { runCli } from "../lib/cli/main.ts";
import { captureIo } from "../lib/cli/io.ts";
import { fakeEnv } from "../lib/testing/fakes.ts";
import { realPorts } from "../lib/sys/mod.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { FLAG_CASES, FLAG_FILES, helpOptions } from "./support/flag_cases.ts";

const FIXTURES = decodeURIComponent(new URL("./fixtures/claude/flags/", import.meta.url).pathname);
const help = await Deno.readTextFile(`${FIXTURES}help.txt`);
const sweep = JSON.parse(await Deno.readTextFile(`${FIXTURES}sweep.json`)) as {
  args: string[];
  claudeExit: number;
}[];

Deno.test("flag sweep: every option of claude --help 2.1.332 has a case, recorded against Claude Code", () => {
  const options = helpOptions(help);
  assert.equal(options.length, 77, "the options claude --help 2.1.332 lists (help.txt)");
  const covered = new Set(FLAG_CASES.map((c) => c.args[0]!.replace(/=.*$/, "")));
  assert.deepEqual(options.filter((o) => !covered.has(o)), [], "options of claude --help without a case");
  assert.deepEqual(
    sweep.map((s) => s.args),
    FLAG_CASES.map((c) => c.args),
    "sweep.json is recorded for these cases",
  );
});

async function git(dir: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    stdout: "null",
    stderr: "null",
  }).output();
  assert.ok(out.success, `git ${args.join(" ")}`);
}

/** One case through Blade, as `blade -p "Say hi" --output-format json <case>` in a fresh git checkout. */
async function runCase(
  args: string[],
  url: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-flags-" }));
  const ws = `${root}/ws`;
  try {
    await Deno.mkdir(ws);
    await Deno.mkdir(`${root}/home`);
    for (const [f, text] of Object.entries(FLAG_FILES)) await Deno.writeTextFile(`${ws}/${f}`, text);
    await git(ws, "init", "-q");
    await git(ws, "add", ".");
    await git(ws, "commit", "-qm", "start");
    const vars = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: `${root}/home`,
      BLADE_STORAGE_ROOT: `${root}/storage`,
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: "sk-ant-fake-key",
      NO_COLOR: "1",
      // Children run in this thread: the sweep is about flags, not Workers.
      BLADE_CHILD_SANDBOX: "none",
    };
    const ports = { ...realPorts(), env: fakeEnv(vars, { cwd: ws, home: `${root}/home` }) };
    const io = captureIo();
    const code = await runCli(["-p", "Say hi", "--output-format", "json", ...args], ports, io);
    return { code, stdout: io.stdout(), stderr: io.stderr() };
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

Deno.test("flag sweep: nothing Claude Code accepts exits 2 in Blade", async (t) => {
  await using server = startFakeAnthropicServer({
    handler: (req) =>
      req.path === "/v1/messages" ? fakeTurn({ text: "Hi." }) : new Response("{}", { status: 404 }),
  });
  const usage: string[] = [];
  for (const { args, claudeExit } of sweep) {
    if (claudeExit !== 0) continue;
    const r = await runCase(args, server.url);
    const shown = `${args.join(" ")} → exit ${r.code}: ${r.stderr.slice(0, 300)}${r.stdout.slice(0, 300)}`;
    if (r.code === 2 && args[0] === "--bare" && /Unknown option '--bare'/.test(r.stdout + r.stderr)) {
      await t.step({
        name: "--bare: not in this build yet (the memory layer adds it)",
        ignore: true,
        fn() {},
      });
      continue;
    }
    if (r.code === 2) usage.push(shown);
    assert.doesNotMatch(r.stdout + r.stderr, /\n\s+at .+:\d+:\d+/, `no stack trace: ${shown}`);
    // -h/-v print help or the version; everything else prints a result (json, or an array with --verbose).
    if (!["-h", "--help", "-v", "--version"].includes(args[0]!)) {
      assert.match(r.stdout, /"type":\s*"result"/, shown);
    }
  }
  assert.deepEqual(usage, [], "flags Claude Code accepts that Blade refuses as usage errors");
});
