// End-to-end: Claude Code's hooks from settings (docs/guides/hooks.md) with real hook scripts (bash
// and node) against the fake Anthropic server: a PreToolUse block by exit 2 and by JSON (in
// permission_denials, with Claude Code's texts: tests/fixtures/claude/hooks_events), additionalContext
// from SessionStart and PostToolUse, a Stop hook that forces one more step, an untrusted folder's
// hooks not run, a hook that tries to allow what a deny rule refuses, and a hook that hangs.

import assert from "node:assert/strict";
import {
  fakeTurn,
  type RecordedRequest,
  startFakeAnthropicServer,
} from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import { type BladeSandbox, bladeSandbox } from "./support/blade.ts";

/** A hook script in the sandbox that logs its stdin (one JSON line each) and then runs `body`. */
async function hookScript(box: BladeSandbox, name: string, body: string): Promise<string> {
  const path = `${box.root}/${name}.sh`;
  await Deno.writeTextFile(
    path,
    `#!/bin/bash\ninput=$(cat)\nprintf '%s\\n' "$input" >> '${box.root}/${name}.log'\n${body}\n`,
  );
  await Deno.chmod(path, 0o755);
  return `bash ${path}`;
}

async function logged(box: BladeSandbox, name: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(`${box.root}/${name}.log`).catch(() => "");
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

async function settings(box: BladeSandbox, where: "user" | "project", json: unknown): Promise<void> {
  const dir = where === "user" ? `${box.home}/.claude` : `${box.workspace}/.claude`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/settings.json`, JSON.stringify(json));
}

const ENV = (url: string) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-fake" });

const hook = (command: string, timeout?: number) => ({
  type: "command",
  command,
  ...(timeout ? { timeout } : {}),
});

function resultLine(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split("\n").map((l) => JSON.parse(l));
  return lines.find((l) => l.type === "result");
}

/** Every text the model was sent in the last request (tool results and text blocks). */
function sentTexts(requests: readonly RecordedRequest<AnthropicRequestBody>[]): string[] {
  const last = requests.filter((r) => r.path === "/v1/messages").at(-1)!;
  const out: string[] = [];
  for (const m of (last.body.messages ?? []) as Array<{ content: unknown }>) {
    if (typeof m.content === "string") out.push(m.content);
    else {
      for (const b of m.content as Array<{ type: string; text?: string; content?: unknown }>) {
        if (b.type === "text" && b.text !== undefined) out.push(b.text);
        if (b.type === "tool_result") {
          out.push(typeof b.content === "string" ? b.content : JSON.stringify(b.content));
        }
      }
    }
  }
  return out;
}

Deno.test("hooks: a PreToolUse hook blocks by exit 2 and by JSON; the model sees Claude Code's texts", async () => {
  await using box = await bladeSandbox();
  const pre = await hookScript(
    box,
    "pre",
    `if grep -q forbidden <<<"$input"; then echo "No forbidden commands" >&2; exit 2; fi
if grep -q jsondeny <<<"$input"; then echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json says no"}}'; fi`,
  );
  await settings(box, "project", { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook(pre)] }] } });
  await using server = startFakeAnthropicServer([
    fakeTurn({
      toolCalls: [{ name: "Bash", input: { command: "echo forbidden > made.txt", description: "x" } }],
    }),
    fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo jsondeny", description: "y" } }] }),
    fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "echo fine", description: "z" } }] }),
    fakeTurn({ text: "done" }),
  ]);
  const run = await box.run(
    [
      "-p",
      "go",
      "--output-format",
      "stream-json",
      "--verbose",
      "--allowedTools",
      "Bash",
      "--trust-workspace",
    ],
    { env: ENV(server.url) },
  );
  assert.equal(run.code, 0, run.stderr + run.stdout);
  const texts = sentTexts(server.requests);
  assert.ok(
    texts.includes(`PreToolUse:Bash hook error: [${pre}]: No forbidden commands\n`),
    texts.join("\n---\n"),
  );
  assert.ok(texts.includes("PreToolUse:Bash hook error: json says no"));
  assert.ok(texts.some((t) => t.includes("fine")));
  await assert.rejects(Deno.stat(`${box.workspace}/made.txt`));
  const result = resultLine(run.stdout);
  const denials = result.permission_denials as Array<{ tool_input: { command: string } }>;
  assert.deepEqual(denials.map((d) => d.tool_input.command), ["echo forbidden > made.txt", "echo jsondeny"]);
  // Claude Code's input fields.
  const inputs = await logged(box, "pre");
  assert.equal(inputs.length, 3);
  assert.equal(inputs[0]!.hook_event_name, "PreToolUse");
  assert.equal(inputs[0]!.tool_name, "Bash");
  assert.deepEqual(inputs[0]!.tool_input, { command: "echo forbidden > made.txt", description: "x" });
  assert.equal(inputs[0]!.cwd, box.workspace);
  assert.equal(inputs[0]!.permission_mode, "default");
  for (const key of ["session_id", "transcript_path", "tool_use_id"]) {
    assert.equal(typeof inputs[0]![key], "string");
  }
});

Deno.test("hooks: an untrusted folder's project hooks do not run; the user's do", async () => {
  await using box = await bladeSandbox();
  const project = await hookScript(box, "project", "exit 2");
  const user = await hookScript(box, "user", "exit 0");
  await settings(box, "project", { hooks: { PreToolUse: [{ hooks: [hook(project)] }] } });
  await settings(box, "user", { hooks: { PreToolUse: [{ matcher: "Read", hooks: [hook(user)] }] } });
  await box.write("a.txt", "hello\n");
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: "a.txt" } }] }),
    fakeTurn({ text: "done" }),
  ]);
  const run = await box.run(["-p", "go", "--output-format", "json"], { env: ENV(server.url) });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.deepEqual(await logged(box, "project"), []);
  assert.equal((await logged(box, "user")).length, 1);
  assert.ok(sentTexts(server.requests).some((t) => t.includes("hello")));
});

Deno.test("hooks: a hook's allow never grants what a deny rule refuses; without one it skips the question", async () => {
  await using box = await bladeSandbox();
  const allow = await hookScript(
    box,
    "allow",
    `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"hook says yes"}}'`,
  );
  await settings(box, "project", {
    permissions: { deny: ["Bash(rm:*)"] },
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook(allow)] }] },
  });
  await box.write("keep.txt", "x\n");
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "rm keep.txt", description: "rm" } }] }),
    fakeTurn({
      toolCalls: [{ name: "Bash", input: { command: "echo asked > made.txt", description: "w" } }],
    }),
    fakeTurn({ text: "done" }),
  ]);
  const run = await box.run(["-p", "go", "--output-format", "json", "--trust-workspace"], {
    env: ENV(server.url),
  });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  await Deno.stat(`${box.workspace}/keep.txt`);
  // Print mode has no one to ask: the hook's allow stands in for the approval.
  assert.equal(await Deno.readTextFile(`${box.workspace}/made.txt`), "asked\n");
  const result = JSON.parse(run.stdout);
  assert.deepEqual(
    (result.permission_denials as Array<{ tool_input: { command: string } }>).map((d) =>
      d.tool_input.command
    ),
    ["rm keep.txt"],
  );
});

Deno.test("hooks: a hook that hangs hits its timeout and one that crashes is reported; the call goes on", async () => {
  await using box = await bladeSandbox();
  const hang = await hookScript(box, "hang", "sleep 30");
  const crash = await hookScript(box, "crash", "echo broken >&2; exit 3");
  await settings(box, "project", {
    hooks: { PreToolUse: [{ matcher: "Read", hooks: [hook(hang, 1), hook(crash)] }] },
  });
  await box.write("a.txt", "hello\n");
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: "a.txt" } }] }),
    fakeTurn({ text: "done" }),
  ]);
  const run = await box.run(["-p", "go", "--output-format", "json", "--trust-workspace"], {
    env: ENV(server.url),
  });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.match(run.stderr, /PreToolUse hook error: .*hang\.sh timed out/);
  assert.match(run.stderr, /crash\.sh exited with code 3: broken/);
  assert.ok(sentTexts(server.requests).some((t) => t.includes("hello")));
});

const hasNode = new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" }).output()
  .then((o) => o.success, () => false);

Deno.test({
  name:
    "hooks: SessionStart and PostToolUse context reach the model; a Stop hook (node) forces one more step",
  ignore: !(await hasNode),
}, async () => {
  await using box = await bladeSandbox();
  const start = await hookScript(
    box,
    "start",
    `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"session start context"}}'`,
  );
  const post = await hookScript(
    box,
    "post",
    `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"post context here"}}'`,
  );
  // A node hook (skipped without node): blocks the first stop only.
  const stopJs = `${box.root}/stop.mjs`;
  await Deno.writeTextFile(
    stopJs,
    `import fs from "node:fs";
let s = "";
process.stdin.on("data", (d) => s += d).on("end", () => {
  fs.appendFileSync(${JSON.stringify(`${box.root}/stop.log`)}, s + "\\n");
  if (!JSON.parse(s).stop_hook_active) { process.stderr.write("Please say DONE\\n"); process.exit(2); }
});
`,
  );
  const node = "node";
  await settings(box, "project", {
    hooks: {
      SessionStart: [{ hooks: [hook(start)] }],
      PostToolUse: [{ matcher: "Read", hooks: [hook(post)] }],
      Stop: [{ hooks: [hook(`${node} ${stopJs}`)] }],
    },
  });
  await box.write("a.txt", "hello\n");
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: "a.txt" } }] }),
    fakeTurn({ text: "First final." }),
    fakeTurn({ text: "DONE" }),
  ]);
  const run = await box.run(["-p", "go", "--output-format", "json", "--trust-workspace"], {
    env: ENV(server.url),
  });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.equal(JSON.parse(run.stdout).result, "DONE");
  const texts = sentTexts(server.requests);
  assert.ok(texts.some((t) => t.includes("SessionStart hook additional context: session start context")));
  assert.ok(texts.some((t) => t.includes("PostToolUse:Read hook additional context: post context here")));
  assert.ok(texts.some((t) => t.includes(`Stop hook feedback:\n[${node} ${stopJs}]: Please say DONE`)));
  const stops = await logged(box, "stop");
  assert.deepEqual(stops.map((s) => [s.stop_hook_active, s.last_assistant_message]), [
    [false, "First final."],
    [true, "DONE"],
  ]);
});
