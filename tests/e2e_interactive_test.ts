// End-to-end tests of the interactive session: the real CLI in a real pseudo-terminal (tmux) against
// the fake Anthropic server (children's answers are held until the test has seen their status line)
// and the scripted provider. Screens are compared with snapshots after ids and timings are replaced.

import assert from "node:assert/strict";
import { bladeSandbox, parseJsonResult, readSidecars, runBlade, transcriptPath } from "./support/blade.ts";
import { BladeTerminal, stableScreen } from "./support/terminal.ts";
import {
  fakeHang,
  fakeTurn,
  type RecordedRequest,
  startFakeAnthropicServer,
} from "../lib/testing/fake_anthropic_server.ts";
import { type AnthropicRequestBody, wireBlocks } from "../lib/provider/anthropic_wire.ts";
import { parseTranscript } from "../lib/session/transcript.ts";
import { stdioTestServer } from "../lib/testing/mcp_test_server.ts";
import type { TranscriptEvent } from "../lib/protocol/events.ts";

function textsOf(body: AnthropicRequestBody, role: "user" | "assistant"): string[] {
  return body.messages.filter((m) => m.role === role).flatMap((m) =>
    wireBlocks(m).flatMap((b) => (b.type === "text" ? [b.text] : []))
  );
}

function firstUserText(request: RecordedRequest<AnthropicRequestBody>): string {
  return textsOf(request.body, "user")[0] ?? "";
}

function answers(request: RecordedRequest<AnthropicRequestBody>): number {
  return request.body.messages.filter((m) => m.role === "assistant").length;
}

/** A promise the test resolves when it wants a held model answer to go out. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

async function events(path: string): Promise<TranscriptEvent[]> {
  return parseTranscript(await Deno.readTextFile(path)).events;
}

function sessionIdOn(screen: string): string {
  const m = /blade --resume (session-[A-Za-z0-9_-]{21})/.exec(screen);
  assert.ok(m !== null, `no resume hint on the screen:\n${screen}`);
  return m[1]!;
}

/** The editor's lines: what sits between the last two horizontal rules of the screen. */
function editorLines(screen: string): string[] {
  const lines = screen.split("\n");
  const rules = lines.flatMap((l, i) => (/^─+$/.test(l) ? [i] : []));
  if (rules.length < 2) return [];
  return lines.slice(rules.at(-2)! + 1, rules.at(-1)!).map((l) => l.trim()).filter((l) => l !== "");
}

/** Blade in a terminal against the fake Anthropic server, in the sandbox's workspace, colour off. */
function anthropicTerminal(
  sandbox: { workspace: string; env: Record<string, string> },
  server: { url: string },
  args: string[] = [],
  size: { columns?: number } = {},
): Promise<BladeTerminal> {
  return BladeTerminal.start(args, {
    ...size,
    cwd: sandbox.workspace,
    env: { ...sandbox.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" },
  });
}

/** A Task tool call as the model sends it. */
function task(subagentType: string, description: string, prompt: string, background = false) {
  return {
    name: "Task",
    input: {
      subagent_type: subagentType,
      description,
      prompt,
      ...(background ? { run_in_background: true } : {}),
    },
  };
}

const snapshot = (t: Deno.TestContext, text: string) => t.assertSnapshot(text, { serializer: (s) => s });

Deno.test("interactive: not on a terminal and no -p is a usage error that points to -p", async () => {
  await using sandbox = await bladeSandbox();
  const r = await sandbox.run([]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Not on a terminal.*Use print mode \(-p\)/);
  const withPrompt = await runBlade(["explain this repository"], {
    cwd: sandbox.workspace,
    env: sandbox.env,
  });
  assert.equal(withPrompt.code, 2);
});

Deno.test("interactive: a delegating prompt shows the child's live status line, then its outcome; /tasks, /tasks output, /exit", async (t) => {
  await using sandbox = await bladeSandbox();
  const child = gate();
  await using server = startFakeAnthropicServer({
    handler: async (request) => {
      const first = firstUserText(request);
      if (first.startsWith("Find where the config is loaded")) {
        await child.wait;
        return fakeTurn({ text: "The config is loaded in lib/config/config.ts." });
      }
      if (answers(request) === 0) {
        return fakeTurn({
          text: "I'll ask the Explore agent.",
          toolCalls: [task("Explore", "find the config loader", "Find where the config is loaded.")],
        });
      }
      return fakeTurn({ text: "The **config** is loaded in `lib/config/config.ts`." });
    },
  });
  await using term = await anthropicTerminal(sandbox, server, ["--model", "claude-test"]);
  await term.waitFor("/help for commands");
  await term.type("Where is the config loaded?");
  await term.press("Enter");
  const live = await term.waitFor(/Explore · find the config loader · \d+s · thinking/);
  assert.match(live, /Working…/);
  child.open();
  const done = await term.waitFor("The config is loaded in lib/config/config.ts.");
  assert.doesNotMatch(
    await term.screen(),
    /Explore · find the config loader · \d+s/,
    "the status line is gone",
  );
  assert.match(done, /↳ Explore completed: find the config loader/);
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  const [record] = await readSidecars(sandbox.storage);
  assert.ok(record !== undefined);

  await term.type("/tasks");
  await term.press("Enter");
  await term.waitFor("1 run: 1 completed");
  await term.type(`/tasks output ${record.id}`);
  await term.press("Enter");
  await term.waitFor(/OK agent-\S+ \(Explore\): find the config loader/);
  await term.type("/exit");
  await term.press("Enter");
  assert.equal(await term.exitCode(), 0);
  const final = await term.history();
  const id = sessionIdOn(final);
  await snapshot(t, stableScreen(final, { [sandbox.workspace]: "<workspace>" }));
  const types = (await events(transcriptPath(sandbox, id))).map((e) => e.type);
  assert.equal(types.filter((x) => x === "turn_completed").length, 1);
});

Deno.test("interactive: a finished child's tool calls show with Ctrl-O, and /tasks transcript reads what it did", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("src/greet.ts", 'console.log("hello");\n');
  const script = await sandbox.write(
    "script.yaml",
    [
      "agents:",
      "  main:",
      "    - turns:",
      "        - tool_calls:",
      "            - name: Task",
      "              input: { subagent_type: Explore, description: find the greeting, prompt: Find where the greeting is printed. }",
      "        - text: It is in src/greet.ts.",
      "  Explore:",
      "    - turns:",
      '        - tool_calls: [{ name: Glob, input: { pattern: "src/*.ts" } }]',
      "        - text: src/greet.ts prints it.",
      "",
    ].join("\n"),
  );
  await using term = await BladeTerminal.start(["--provider", "scripted", "--script", script], {
    cwd: sandbox.workspace,
    env: { ...sandbox.env, NO_COLOR: "1" },
  });
  await term.waitFor("/help for commands");
  await term.type("where is the greeting?");
  await term.press("Enter");
  await term.waitFor("It is in src/greet.ts.");
  await term.waitFor(/↳ Explore completed: find the greeting .*· 1 tool call \(Ctrl-O\)/);
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  await term.press("C-o");
  await term.waitFor(
    /↳ Explore completed: find the greeting .*· 1 tool call · .*\n +Glob\(src\/\*\.ts\) ✓ · 1 line/,
  );
  const [record] = await readSidecars(sandbox.storage);
  await term.type(`/tasks transcript ${record!.id}`);
  await term.press("Enter");
  const shown = await term.waitFor((s) => s.replace(/\n/g, "").includes(`${record!.id}.jsonl`));
  assert.match(
    shown,
    /OK agent-\S+ \(Explore\): find the greeting\n.*\n› Find where the greeting is printed\.\n✓ Glob\(src\/\*\.ts\) · 1 line\nsrc\/greet\.ts prints it\.\n +\(turn 1 completed: 1 tool calls\)/,
  );
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
});

Deno.test("interactive: a background child's notice arrives while the prompt is idle and starts a turn", async () => {
  await using sandbox = await bladeSandbox();
  const child = gate();
  await using server = startFakeAnthropicServer({
    handler: async (request) => {
      const first = firstUserText(request);
      if (first.startsWith("Audit the API module")) {
        // A background child cannot ask: its Bash call is refused without a question.
        if (answers(request) === 0) {
          return fakeTurn({
            toolCalls: [{ name: "Bash", input: { command: "echo from-bg", description: "x" } }],
          });
        }
        await child.wait;
        return fakeTurn({ text: "AUDIT-RESULT: the API is fine." });
      }
      if (answers(request) === 0) {
        return fakeTurn({
          text: "Starting the audit in the background.",
          toolCalls: [task("general-purpose", "audit the API", "Audit the API module.", true)],
        });
      }
      const notices = textsOf(request.body, "user").join("\n");
      return fakeTurn({
        text: notices.includes("AUDIT-RESULT")
          ? "The background audit says the API is fine."
          : "Audit is running.",
      });
    },
  });
  await using term = await anthropicTerminal(sandbox, server, ["--trust-workspace"]);
  await term.waitFor("/help for commands");
  await term.type("Audit the API in the background");
  await term.press("Enter");
  await term.waitFor("Audit is running.");
  await term.waitFor(/general-purpose \[bg\] · audit the API · \d+s/);
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  child.open();
  const after = await term.waitFor("The background audit says the API is fine.");
  assert.match(after, /↳ general-purpose \[bg\] completed: audit the API/);
  assert.match(after, /◆ Background task finished — general-purpose agent-\S+ completed: audit the API/);
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
  const id = sessionIdOn(await term.history());
  const log = await events(transcriptPath(sandbox, id));
  const delivered = log.filter((e) => e.type === "message_created" && e.data.inboxId !== undefined);
  const acked = log.flatMap((e) => (e.type === "inbox_acknowledged" ? e.data.inboxIds : []));
  assert.equal(delivered.length, 1, "the notice is written once");
  assert.equal(acked.length, 1, "and acknowledged once");
  assert.doesNotMatch(await term.history(), /Allow Bash/, "a background child is never asked for");
  const refused = server.requests.find((r) =>
    firstUserText(r).startsWith("Audit the API module") && answers(r) === 1
  );
  assert.match(
    JSON.stringify(refused?.body.messages.at(-1)),
    /"is_error":true.*needs approval|needs approval.*"is_error":true/,
  );
});

Deno.test("interactive: Ctrl-C mid-turn cancels it (turn_aborted cancelled, [Request interrupted by user]) and its prompt comes back with the queued one", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({
    // The first request never answers (until the server closes); the next one does.
    handler: (_request, index) => (index === 0 ? fakeHang() : fakeTurn({ text: "Still here." })),
  });
  await using term = await anthropicTerminal(sandbox, server);
  await term.waitFor("/help for commands");
  await term.type("hang please");
  await term.press("Enter");
  await term.waitFor("Working…");
  // Cancel only once the hanging request reached the server: a Ctrl-C before it was sent would make the
  // next prompt's request the server's first, the one that hangs (a race on a loaded machine).
  for (let i = 0; i < 600 && server.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(server.requests.length, 1, "the first request reached the server");
  // A prompt typed during the turn queues (below the turn, not in the log); interrupting the turn
  // puts the interrupted prompt and the queued one back in the editor, unsent.
  await term.type("a queued prompt");
  await term.press("Enter");
  await term.waitFor("(queued) a queued prompt");
  await term.press("C-c");
  await term.waitFor("Interrupted: the turn was cancelled.");
  const back = await term.waitFor(
    (s) => !s.includes("Working…") && editorLines(s).join("|") === "hang please|a queued prompt",
    { visibleOnly: true },
  );
  assert.doesNotMatch(back, /\(queued\)/, "the queued line went with the queue");
  await term.press("C-c"); // clears it
  await term.waitFor((s) => editorLines(s).length === 0, { visibleOnly: true });
  await term.type("are you there? (my key is test-key)");
  await term.press("Enter");
  await term.waitFor("Still here.");
  // The model sees the first prompt as interrupted, not as part of the next one.
  assert.deepEqual(textsOf(server.requests[1]!.body, "user"), [
    "hang please",
    "[Request interrupted by user]",
    "are you there? (my key is test-key)",
  ]);
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  await term.press("C-c");
  await term.waitFor("Press Ctrl-C again to exit");
  await term.press("C-c");
  assert.equal(await term.exitCode(), 0);
  const id = sessionIdOn(await term.history());
  const log = await events(transcriptPath(sandbox, id));
  const aborted = log.filter((e) => e.type === "turn_aborted");
  assert.deepEqual(aborted.map((e) => e.type === "turn_aborted" && e.data.cause), ["cancelled"]);
  assert.equal(log.filter((e) => e.type === "turn_completed").length, 1);
  // The provider key typed into a prompt is redacted in the prompt history as in the transcript.
  const [project] = [...Deno.readDirSync(`${sandbox.storage}/projects`)].filter((e) => e.isDirectory);
  const history = await Deno.readTextFile(`${sandbox.storage}/projects/${project!.name}/prompt-history.json`);
  assert.match(history, /are you there\? \(my key is \[REDACTED\]\)/);
});

Deno.test("interactive: a prompt typed while an answer streams waits below it and never splits the answer", async () => {
  await using sandbox = await bladeSandbox();
  const rest = gate();
  await using server = startFakeAnthropicServer({
    handler: (_request, index) =>
      index === 0
        ? fakeTurn({
          text: "First half of the answer. Second half of the answer.",
          chunks: 2,
          // message_start, ping, content_block_start, the first delta: then a pause until the test opens it.
          stallAfterEvents: 4,
          resumeWhen: rest.wait,
        })
        : fakeTurn({ text: "The next answer." }),
  });
  await using term = await anthropicTerminal(sandbox, server);
  await term.waitFor("/help for commands");
  await term.type("first question");
  await term.press("Enter");
  await term.waitFor("First half of the");
  await term.type("next question");
  await term.press("Enter");
  await term.waitFor("(queued) next question");
  rest.open();
  await term.waitFor("The next answer.");
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  const log = await term.history();
  assert.match(
    log,
    /First half of the answer\. Second half of the answer\.\n\n› next question\n\nThe next answer\./,
  );
  assert.doesNotMatch(log, /\(queued\)/, "the queued line is gone once its turn started");
  assert.deepEqual(server.requests.map((r) => textsOf(r.body, "user").at(-1)), [
    "first question",
    "next question",
  ]);
});

Deno.test("interactive: an untrusted folder refuses writes without asking and says how to trust; /trust trusts it and the session goes on with it", async () => {
  await using sandbox = await bladeSandbox();
  const write = { name: "Write", input: { file_path: "note.txt", content: "written" } };
  await using server = startFakeAnthropicServer({
    handler: (request) =>
      wireBlocks(request.body.messages.at(-1)!).some((b) => b.type === "tool_result")
        ? fakeTurn({ text: "Done trying." })
        : fakeTurn({ toolCalls: [write] }),
  });
  await using term = await anthropicTerminal(sandbox, server, [], { columns: 60 });
  const header = await term.waitFor("/help for commands");
  assert.match(
    header.replace(/\n/g, " "),
    /not trusted — Bash and writes are refused; \/trust trusts this folder/,
  );
  await term.type("write a note");
  await term.press("Enter");
  await term.waitFor("Done trying.");
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  const refused = await term.history();
  assert.doesNotMatch(refused, /Allow Write/, "a call the workspace refuses is never asked");
  // The whole refusal, wrapped at 60 columns: what was refused, why, and the ways to trust.
  const flat = refused.replace(/\n\s*/g, " ");
  assert.match(
    flat,
    /Write is refused: this workspace is not trusted\. Run `blade trust` in it \(\/trust in the interactive session, or pass --trust-workspace\) first\./,
  );
  await assert.rejects(Deno.stat(`${sandbox.workspace}/note.txt`));

  await term.type("/trust");
  await term.press("Enter");
  await term.waitFor(/Trusted /);
  await term.waitFor((s) => (s.match(/\(trusted\)/g) ?? []).length === 1);
  await term.type("write it now");
  await term.press("Enter");
  await term.waitFor("Allow Write to write");
  await term.press("Enter");
  await term.waitFor("✓ Write(note.txt)");
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/note.txt`), "written");
  const trust = JSON.parse(await Deno.readTextFile(`${sandbox.storage}/trust.json`));
  assert.match(JSON.stringify(trust), new RegExp(sandbox.workspace.replaceAll("/", "\\/")));
});

Deno.test("interactive: /agents, history that survives a restart (0600), and a multi-line prompt (trailing \\, Shift+Enter)", async (t) => {
  await using sandbox = await bladeSandbox();
  const script = await sandbox.write(
    "script.yaml",
    `agents:\n  main:\n    - repeat_last: true\n      turns:\n        - text: "Noted."\n`,
  );
  const start = () =>
    BladeTerminal.start(["--provider", "scripted", "--script", script], {
      cwd: sandbox.workspace,
      env: { ...sandbox.env, NO_COLOR: "1" },
      columns: 60,
      extendedKeys: true,
      record: true,
    });
  {
    await using term = await start();
    await term.waitFor("/help for commands");
    await term.type("/agents");
    await term.press("Enter");
    await term.waitFor("Built-in agents");
    await term.type("first line \\");
    await term.press("Enter");
    await term.type("second line");
    await term.waitForModifiedKeys();
    await term.press("S-Enter");
    await term.type("third line");
    await term.press("Enter");
    await term.waitFor("Noted.");
    // The turn's spinner goes after the answer is shown: snapshot the idle screen, not the last frame.
    await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
    await snapshot(t, stableScreen(await term.history(), { [sandbox.workspace]: "<workspace>" }));
    await term.press("C-d");
    assert.equal(await term.exitCode(), 0);
  }
  const files = [...Deno.readDirSync(`${sandbox.storage}/projects`)].filter((e) => e.isDirectory);
  const historyFile = `${sandbox.storage}/projects/${files[0]!.name}/prompt-history.json`;
  assert.equal(Deno.statSync(historyFile).mode! & 0o777, 0o600);
  await using again = await start();
  await again.waitFor("/help for commands");
  await again.press("Up");
  assert.deepEqual(editorLines(await again.waitFor("third line", { visibleOnly: true })), [
    "first line",
    "second line",
    "third line",
  ]);
  // Up moves through the lines of a multi-line entry first, then to the older entry (and stays there).
  await again.press("Up", "Up", "Up", "Up");
  await again.waitFor((s) => editorLines(s).join("\n") === "/agents", { visibleOnly: true });
  // Ctrl-C first clears the typed text; twice more at the empty prompt leaves.
  await again.press("C-c");
  await again.waitFor((s) => editorLines(s).length === 0, { visibleOnly: true });
  await again.press("C-c", "C-c");
  assert.equal(await again.exitCode(), 0);
});

Deno.test("interactive: approvals — deny, then allow always (asked once), and a foreground child's call asked through its Worker", async (t) => {
  await using sandbox = await bladeSandbox();
  const bash = (command: string) => ({ name: "Bash", input: { command, description: "say hello" } });
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      const first = firstUserText(request);
      if (first.startsWith("Child: run the date")) {
        return answers(request) === 0
          ? fakeTurn({ toolCalls: [bash("echo from-child")] })
          : fakeTurn({ text: "The child ran it." });
      }
      switch (answers(request)) {
        case 0:
        case 1:
        case 2:
          return fakeTurn({ toolCalls: [bash("echo hello")] });
        case 3:
          return fakeTurn({
            toolCalls: [task("general-purpose", "run it", "Child: run the date.")],
          });
        default:
          return fakeTurn({ text: "All done." });
      }
    },
  });
  await using term = await anthropicTerminal(sandbox, server, ["--trust-workspace"]);
  await term.waitFor("/help for commands");
  await term.type("say hello");
  await term.press("Enter");
  await term.waitFor("Allow Bash to run:");
  await term.press("Escape");
  await term.waitFor("→ denied");
  await term.waitFor((s) => (s.match(/Allow Bash to run:/g) ?? []).length === 2);
  await term.press("Down", "Enter");
  await term.waitFor("→ allowed for this session");
  await term.waitFor("(allowed for this session)");
  await term.waitFor(/Allow Bash to run \(subagent general-purpose agent-\S+\):/);
  await term.press("Enter");
  await term.waitFor("All done.");
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  const screen = await term.history();
  assert.equal(
    (screen.match(/Allow Bash to run/g) ?? []).length,
    3,
    "the remembered command is not asked again",
  );
  await snapshot(t, stableScreen(screen, { [sandbox.workspace]: "<workspace>" }));
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
  const id = sessionIdOn(await term.history());
  const decided = (await events(transcriptPath(sandbox, id))).flatMap((e) =>
    e.type === "approval_decided" ? [[e.data.tool, e.data.subject, e.data.answer]] : []
  );
  assert.deepEqual(decided, [
    ["Bash", "echo hello", "deny"],
    ["Bash", "echo hello", "allow_always"],
    ["Bash", "echo hello", "allow_always"],
  ]);
  const [child] = await readSidecars(sandbox.storage);
  const childDecided = (await events(transcriptPath(sandbox, child!.id))).flatMap((e) =>
    e.type === "approval_decided" ? [[e.data.subject, e.data.answer]] : []
  );
  assert.deepEqual(childDecided, [["echo from-child", "allow_once"]]);
  const results = server.requests.filter((r) => firstUserText(r) === "say hello").map((r) =>
    JSON.stringify(r.body.messages.at(-1))
  );
  assert.match(results[1]!, /the user refused Bash/);
  assert.match(results[2]!, /hello/);
});

Deno.test("interactive: an Edit's approval shows its diff; 'save the rule for this project' writes .claude/settings.local.json, which a later run honours", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("notes.txt", "one\ntwo\nthree\n");
  const edit = { name: "Edit", input: { file_path: "notes.txt", old_string: "two", new_string: "TWO" } };
  await using server = startFakeAnthropicServer({
    handler: (request) =>
      wireBlocks(request.body.messages.at(-1)!).some((b) => b.type === "tool_result")
        ? fakeTurn({ text: "Edited." })
        : fakeTurn({ toolCalls: [edit] }),
  });
  await using term = await anthropicTerminal(sandbox, server, ["--trust-workspace"]);
  await term.waitFor("/help for commands");
  await term.type("edit the notes");
  await term.press("Enter");
  const asked = await term.waitFor("No (tell the agent it was refused)");
  assert.match(
    asked,
    /Allow Edit to write:\n.*notes\.txt\n +@@ -1,3 \+1,3 @@\n +one\n +- two\n +\+ TWO\n +three\n/,
  );
  const rule = `Edit(/${await Deno.realPath(`${sandbox.workspace}/notes.txt`)})`;
  assert.match(
    asked,
    new RegExp(`Yes, and save the rule ${rule.replace(/[().]/g, "\\$&")} for this project`),
  );
  await term.press("Down", "Down", "Enter");
  await term.waitFor("Edited.");
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/notes.txt`), "one\nTWO\nthree\n");
  const settings = JSON.parse(await Deno.readTextFile(`${sandbox.workspace}/.claude/settings.local.json`));
  assert.deepEqual(settings, { permissions: { allow: [rule] } });
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
  // A later print-mode run in this (trusted) folder may edit that file without a question.
  const again = await sandbox.run(["-p", "edit it again", "--trust-workspace", "--output-format", "json"], {
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" },
  });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(parseJsonResult(again)["permission_denials"], []);
});

Deno.test("interactive: an MCP tool without an allow rule is asked (allow once, then deny), also a Worker child's call", async (t) => {
  await using sandbox = await bladeSandbox();
  const note = (text: string) => ({ name: "mcp__docs__note", input: { text } });
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      if (firstUserText(request).startsWith("Child: echo it")) {
        return answers(request) === 0
          ? fakeTurn({ toolCalls: [{ name: "mcp__docs__echo", input: { text: "from-child" } }] })
          : fakeTurn({ text: "The child echoed it." });
      }
      switch (answers(request)) {
        case 0:
          return fakeTurn({ toolCalls: [note("first")] });
        case 1:
          return fakeTurn({ toolCalls: [note("second")] });
        case 2:
          return fakeTurn({ toolCalls: [task("general-purpose", "echo it", "Child: echo it.")] });
        default:
          return fakeTurn({ text: "MCP done." });
      }
    },
  });
  // DENO_DIR through `${VAR}` expansion: the server runs with the sandbox's Deno cache.
  const docs = { ...stdioTestServer(["--label=docs"]), env: { DENO_DIR: "${DENO_DIR}" } };
  const config = JSON.stringify({ mcpServers: { docs } });
  await using term = await anthropicTerminal(sandbox, server, ["--trust-workspace", "--mcp-config", config]);
  await term.waitFor("/help for commands");
  await term.type("take notes");
  await term.press("Enter");
  await term.waitFor('"text": "first"');
  await term.press("Enter");
  await term.waitFor("→ allowed once");
  await term.waitFor((s) => (s.match(/Allow mcp__docs__note to use:/g) ?? []).length === 2);
  await term.press("Escape");
  await term.waitFor("→ denied");
  await term.waitFor(/Allow mcp__docs__echo to use \(subagent general-purpose agent-\S+\):/);
  await term.press("Enter");
  await term.waitFor("MCP done.");
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  await snapshot(t, stableScreen(await term.history(), { [sandbox.workspace]: "<workspace>" }));
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
  const id = sessionIdOn(await term.history());
  const decided = (await events(transcriptPath(sandbox, id))).flatMap((e) =>
    e.type === "approval_decided" ? [[e.data.tool, e.data.answer]] : []
  );
  assert.deepEqual(decided, [["mcp__docs__note", "allow_once"], ["mcp__docs__note", "deny"]]);
  const [child] = await readSidecars(sandbox.storage);
  const childDecided = (await events(transcriptPath(sandbox, child!.id))).flatMap((e) =>
    e.type === "approval_decided" ? [[e.data.tool, e.data.answer]] : []
  );
  assert.deepEqual(childDecided, [["mcp__docs__echo", "allow_once"]]);
  const last = server.requests.filter((r) => firstUserText(r) === "take notes").map((r) =>
    JSON.stringify(r.body.messages.at(-1))
  );
  assert.match(last[1]!, /docs noted: first/, "the allowed call ran on the server");
  assert.match(last[2]!, /the user refused mcp__docs__note/);
  assert.doesNotMatch(last[2]!, /docs noted: second/);
  const childLast = server.requests.filter((r) => firstUserText(r).startsWith("Child: echo it")).at(-1)!;
  assert.match(JSON.stringify(childLast.body.messages.at(-1)), /docs echo: from-child/);
});

Deno.test("interactive: /status, /permissions, /clear keeps the old session, /resume picks it again", async () => {
  await using sandbox = await bladeSandbox();
  const script = await sandbox.write(
    "script.yaml",
    `agents:\n  main:\n    - repeat_last: true\n      turns:\n        - text: "Noted."\n`,
  );
  await using term = await BladeTerminal.start(["--provider", "scripted", "--script", script], {
    cwd: sandbox.workspace,
    env: { ...sandbox.env, NO_COLOR: "1" },
  });
  const first = /Session (session-\S+) · \/help/.exec(await term.waitFor("/help for commands"))![1]!;
  await term.type("remember the first session");
  await term.press("Enter");
  await term.waitFor("Noted.");
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  await term.type("/permissions autoEdit");
  await term.press("Enter");
  await term.waitFor("Permission mode is now autoEdit for this session.");
  await term.type("/status");
  await term.press("Enter");
  await term.waitFor(/Mode\s+autoEdit/);
  await term.type("/clear");
  await term.press("Enter");
  await term.waitFor(`Left ${first}; resume it with blade --resume ${first}`);
  await term.type("/resume");
  await term.press("Enter");
  await term.waitFor("Continue which session?");
  await term.press("Enter");
  const after = await term.waitFor(/Session session-\S+ \(continued\)/);
  assert.match(after, new RegExp(`Session ${first} \\(continued\\)`));
  await term.type("/exit");
  await term.press("Enter");
  assert.equal(await term.exitCode(), 0);
  assert.equal(sessionIdOn(await term.history()), first);
});

Deno.test("interactive: guided /agents create writes the file and reloads; Tab completes its name for /agents show", async () => {
  await using sandbox = await bladeSandbox();
  const script = await sandbox.write(
    "script.yaml",
    `agents:\n  main:\n    - turns:\n        - text: "Noted."\n`,
  );
  await using term = await BladeTerminal.start(["--provider", "scripted", "--script", script], {
    cwd: sandbox.workspace,
    env: { ...sandbox.env, NO_COLOR: "1" },
  });
  await term.waitFor("/help for commands");
  await term.type("/agents create");
  await term.press("Enter");
  const answers = ["code-reviewer", "Reviews diffs for bugs", "Read,Grep,Glob", "You review diffs.", "user"];
  const questions = ["Name", "When should the parent use it", "Tools", "Its system prompt", "Where"];
  for (const [i, answer] of answers.entries()) {
    await term.waitFor(`? ${questions[i]}`);
    await term.type(answer);
    await term.press("Enter");
  }
  await term.waitFor(/Reloaded: 7 agents/);
  const file = await Deno.readTextFile(`${sandbox.storage}/agents/code-reviewer.md`);
  assert.match(file, /name: code-reviewer/);
  assert.match(file, /You review diffs\./);
  await term.type("/agents show code-r");
  await term.press("Tab");
  await term.waitFor((s) => editorLines(s).join("") === "/agents show code-reviewer", { visibleOnly: true });
  await term.press("Enter");
  await term.waitFor("Reviews diffs for bugs");
  // Empty answers take the defaults: every tool, a generic prompt, the user folder.
  await term.type("/agents create");
  await term.press("Enter");
  const second = (question: string) => (s: string) =>
    s.split("\n").filter((l) => l.startsWith(`? ${question}`)).length === 2;
  for (
    const [question, answer] of [["Name", "helper"], ["When should the parent use it", "Helps with chores"]]
  ) {
    await term.waitFor(second(question!));
    await term.type(answer!);
    await term.press("Enter");
  }
  for (const question of ["Tools", "Its system prompt", "Where"]) {
    await term.waitFor(second(question));
    await term.press("Enter");
  }
  await term.waitFor(/Reloaded: 8 agents/);
  const defaults = await Deno.readTextFile(`${sandbox.storage}/agents/helper.md`);
  assert.match(defaults, /name: helper/);
  assert.doesNotMatch(defaults, /^tools:/m, "every tool: no tools line");
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
});

Deno.test("interactive: colour unless NO_COLOR; a 30-column terminal wraps, never crashes; a long paste is sent whole", async () => {
  await using sandbox = await bladeSandbox();
  const script = await sandbox.write(
    "script.yaml",
    `agents:\n  main:\n    - repeat_last: true\n      turns:\n        - text: "# Heading\\n\\nA **long** answer that has to wrap on a narrow terminal."\n`,
  );
  const start = (env: Record<string, string>) =>
    BladeTerminal.start(["--provider", "scripted", "--script", script], {
      cwd: sandbox.workspace,
      env: { ...sandbox.env, ...env },
      columns: 30,
    });
  // Colour, bold or dim in any SGR sequence (the editor's reverse-video cursor is not colour).
  const colour = {
    test: (screen: string) =>
      [...screen.matchAll(new RegExp(String.raw`\x1b\[([0-9;]*)m`, "g"))].some((m) =>
        m[1]!.split(";").some((p) => ["1", "2", "38"].includes(p) || /^(3[0-7]|9[0-7])$/.test(p))
      ),
  };
  {
    await using term = await start({});
    await term.waitFor("/help for commands");
    assert.ok(colour.test(await term.styledScreen()), "styled without NO_COLOR");
    await term.press("C-d");
    assert.equal(await term.exitCode(), 0);
  }
  await using term = await start({ NO_COLOR: "1" });
  await term.waitFor("/help for commands");
  assert.ok(!colour.test(await term.styledScreen()), "plain with NO_COLOR");
  const pasted = Array.from({ length: 14 }, (_, i) => `pasted line ${i + 1}`).join("\n");
  await term.paste(pasted);
  await term.press("Enter");
  const screen = await term.waitFor("narrow terminal.");
  assert.ok(screen.split("\n").every((l) => l.length <= 30), `a line is wider than 30 columns:\n${screen}`);
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
  const id = sessionIdOn(await term.history());
  const log = await events(transcriptPath(sandbox, id));
  const sent = log.flatMap((e) =>
    e.type === "part_created" && e.data.part.type === "text" && e.data.part.text.startsWith("pasted line 1")
      ? [e.data.part.text]
      : []
  );
  assert.deepEqual(sent, [pasted]);
});

Deno.test("interactive: /tasks resume continues a finished run (blade tasks resume), and says how without a prompt", async () => {
  await using sandbox = await bladeSandbox();
  const script = await sandbox.write(
    "script.yaml",
    [
      "agents:",
      "  main:",
      "    - repeat_last: true",
      "      turns:",
      "        - tool_calls:",
      "            - name: Task",
      "              input: { subagent_type: Explore, description: look around, prompt: Look around. }",
      "        - text: Delegated.",
      "  Explore:",
      "    - turns:",
      "        - text: FIRST-ANSWER",
      "        - text: SECOND-ANSWER",
      "",
    ].join("\n"),
  );
  await using term = await BladeTerminal.start(["--provider", "scripted", "--script", script], {
    cwd: sandbox.workspace,
    env: { ...sandbox.env, NO_COLOR: "1" },
  });
  await term.waitFor("/help for commands");
  await term.type("delegate once");
  await term.press("Enter");
  await term.waitFor("Delegated.");
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  const [source] = await readSidecars(sandbox.storage);
  await term.type(`/tasks resume ${source!.id}`);
  await term.press("Enter");
  await term.waitFor("Usage: /tasks resume <agentId> <prompt>");
  await term.type(`/tasks resume ${source!.id} and now the rest`);
  await term.press("Enter");
  await term.waitFor("SECOND-ANSWER");
  const runs = await readSidecars(sandbox.storage);
  const resumed = runs.find((r) => r.resumedFrom === source!.id);
  assert.ok(resumed !== undefined, "a new run resumed from the source");
  assert.equal(resumed.status, "completed");
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
});

Deno.test("interactive: /tasks lists a running background child and /tasks stop cancels it", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      if (firstUserText(request).startsWith("Watch the logs")) return fakeHang();
      if (answers(request) === 0) {
        return fakeTurn({ toolCalls: [task("general-purpose", "watch the logs", "Watch the logs.", true)] });
      }
      return fakeTurn({ text: answers(request) === 1 ? "Watching in the background." : "Noted." });
    },
  });
  await using term = await anthropicTerminal(sandbox, server);
  await term.waitFor("/help for commands");
  await term.type("watch the logs in the background");
  await term.press("Enter");
  await term.waitFor("Watching in the background.");
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  await term.type("/tasks");
  await term.press("Enter");
  await term.waitFor("1 run: 1 running");
  const [record] = await readSidecars(sandbox.storage);
  await term.type(`/tasks stop ${record!.id}`);
  await term.press("Enter");
  await term.waitFor(`Stopped general-purpose task ${record!.id} ("watch the logs"): status cancelled.`);
  const [after] = await readSidecars(sandbox.storage);
  assert.equal(after!.status, "cancelled");
  await term.waitFor((s) => !/general-purpose \[bg\] · watch the logs · \d+s/.test(s), { visibleOnly: true });
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
});

Deno.test("interactive: only Blade's renderer writes to the terminal: no raw escape sequence from the model, a file or a child, and nothing of Deno's own when a child's Worker starts", async () => {
  await using sandbox = await bladeSandbox();
  // Each of these would retitle the window, write the clipboard, clear the screen or move the cursor.
  const hostile = String.raw`\e]0;PWNED-TITLE\a\e]52;c;UFdORUQ=\a\e[2J\e[10;10H\e[31m`;
  await sandbox.write("notes.txt", "\x1b]0;FILE-TITLE\x07notes\x1b[2J\n");
  const script = await sandbox.write(
    "script.yaml",
    [
      "agents:",
      "  main:",
      "    - turns:",
      "        - tool_calls:",
      "            - name: Read",
      "              input: { file_path: notes.txt }",
      "            - name: Task",
      `              input: { subagent_type: Explore, description: "look ${hostile}around", prompt: Look around. }`,
      `        - text: "ANSWER-START ${hostile} ANSWER-END"`,
      "  Explore:",
      "    - turns:",
      `        - text: "CHILD-SAYS ${hostile} CHILD-END"`,
      "",
    ].join("\n"),
  );
  await using term = await BladeTerminal.start(["--provider", "scripted", "--script", script], {
    cwd: sandbox.workspace,
    env: { ...sandbox.env, NO_COLOR: "1" },
    record: true,
  });
  await term.waitFor("/help for commands");
  await term.type("go");
  await term.press("Enter");
  const screen = await term.waitFor("ANSWER-END");
  assert.match(screen, /↳ Explore completed: look around \(\d+s\) · CHILD-SAYS\s+CHILD-END/);
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
  const raw = new TextDecoder().decode(await term.output());
  for (
    const [what, sequence] of [
      ["a window title (OSC 0)", "\x1b]0;"],
      ["a clipboard write (OSC 52)", "\x1b]52;"],
      ["a cursor move from the model", "\x1b[10;10H"],
      ["Deno's progress-bar clear (erase below)", "\x1b[J"],
      ["a cursor move to column 0 (Deno's progress bar)", "\x1b[0G"],
    ] as const
  ) {
    assert.ok(!raw.includes(sequence), `${what} reached the terminal: ${JSON.stringify(sequence)}`);
  }
  assert.ok(
    !raw.includes("PWNED-TITLE") && !raw.includes("FILE-TITLE"),
    "a hostile payload reached the terminal",
  );
});

Deno.test("interactive: a background command is listed by /tasks, /tasks output shows it readably, and leaving stops it and says so", async () => {
  await using sandbox = await bladeSandbox();
  const script = await sandbox.write(
    "script.yaml",
    [
      "agents:",
      "  main:",
      "    - turns:",
      "        - tool_calls:",
      "            - name: Bash",
      "              input: { command: echo SHELL-STARTED; sleep 300, description: wait, run_in_background: true }",
      "        - text: Started.",
      "",
    ].join("\n"),
  );
  await using term = await BladeTerminal.start(
    ["--provider", "scripted", "--script", script, "--trust-workspace", "--permission-mode", "yolo"],
    { cwd: sandbox.workspace, env: { ...sandbox.env, NO_COLOR: "1" } },
  );
  await term.waitFor("/help for commands");
  await term.type("start it");
  await term.press("Enter");
  const started = await term.waitFor("Started.");
  const id = /running in the background · (shell-[A-Za-z0-9_-]+)/.exec(started)?.[1];
  assert.ok(id !== undefined, `no background start line:\n${started}`);
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  await term.type("/tasks");
  await term.press("Enter");
  await term.waitFor(new RegExp(`running +${id} +echo SHELL-STARTED; sleep 300\\n1 command: 1 running`));
  // The command writes its line at once, but it is read asynchronously: ask again until it shows.
  const head = new RegExp(`RUNNING ${id} \\(Bash\\): echo SHELL-STARTED; sleep 300\\n\\n(.*)`, "g");
  for (let asked = 1;; asked++) {
    await term.type(`/tasks output ${id}`);
    await term.press("Enter");
    const screen = await term.waitFor((s) => [...s.matchAll(head)].length === asked);
    if ([...screen.matchAll(head)].at(-1)![1] === "SHELL-STARTED") break;
    assert.ok(asked < 50, `the command's output never showed:\n${screen}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
  assert.match(await term.history(), new RegExp(`Cancelled background tasks: ${id}\\n`));
});

Deno.test('interactive: blade "prompt" starts with it; --continue and --resume <id> continue that session with its conversation shown', async () => {
  await using sandbox = await bladeSandbox();
  const script = await sandbox.write(
    "script.yaml",
    `agents:\n  main:\n    - repeat_last: true\n      turns:\n        - text: "Answer: {{last_user}}"\n`,
  );
  const start = (args: string[]) =>
    BladeTerminal.start(["--provider", "scripted", "--script", script, ...args], {
      cwd: sandbox.workspace,
      env: { ...sandbox.env, NO_COLOR: "1" },
    });
  let id: string;
  {
    await using term = await start(["FIRST-PROMPT from the command line"]);
    await term.waitFor("Answer: FIRST-PROMPT from the command line");
    await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
    await term.press("C-d");
    assert.equal(await term.exitCode(), 0);
    id = sessionIdOn(await term.history());
  }
  for (const args of [["--continue"], ["--resume", id]]) {
    await using term = await start(args);
    const screen = await term.waitFor("/help for commands");
    assert.match(screen, new RegExp(`Session ${id} \\(continued\\)`), args.join(" "));
    assert.match(screen, /› FIRST-PROMPT from the command line\n\nAnswer: FIRST-PROMPT/, args.join(" "));
    await term.press("C-d");
    assert.equal(await term.exitCode(), 0);
    assert.equal(sessionIdOn(await term.history()), id);
  }
});

for (const [key, name] of [["C-c", "Ctrl-C"], ["Escape", "Esc"]] as const) {
  Deno.test(`interactive: ${name} while a foreground child runs cancels the turn and the child (its sidecar says cancelled)`, async () => {
    await using sandbox = await bladeSandbox();
    await using server = startFakeAnthropicServer({
      handler: (request) => {
        if (firstUserText(request).startsWith("Wait forever")) return fakeHang();
        return answers(request) === 0
          ? fakeTurn({ toolCalls: [task("general-purpose", "wait forever", "Wait forever, please.")] })
          : fakeTurn({ text: "Unexpected." });
      },
    });
    await using term = await anthropicTerminal(sandbox, server);
    await term.waitFor("/help for commands");
    await term.type("delegate and wait");
    await term.press("Enter");
    await term.waitFor(/general-purpose · wait forever · \d+s · thinking/);
    // Interrupt only once the child's request reached the server (its Worker is running).
    for (let i = 0; i < 600 && server.requests.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(server.requests.length, 2, "the parent's and the child's requests");
    await term.press(key);
    await term.waitFor("Interrupted: the turn was cancelled.");
    const screen = await term.waitFor(/↳ general-purpose cancelled: wait forever/);
    assert.doesNotMatch(screen, /✗ Task/, "the child's end is told once");
    await term.waitFor((s) => !/Working…|wait forever · \d+s/.test(s), { visibleOnly: true });
    const [record] = await readSidecars(sandbox.storage);
    assert.equal(record?.status, "cancelled");
    // The interrupted prompt is back in the editor; Ctrl-C clears it, then Ctrl-D leaves.
    await term.waitFor((s) => editorLines(s).join("") === "delegate and wait", { visibleOnly: true });
    await term.press("C-c");
    await term.waitFor((s) => editorLines(s).length === 0, { visibleOnly: true });
    await term.press("C-d");
    assert.equal(await term.exitCode(), 0);
    const log = await events(transcriptPath(sandbox, sessionIdOn(await term.history())));
    assert.deepEqual(log.flatMap((e) => (e.type === "turn_aborted" ? [e.data.cause] : [])), ["cancelled"]);
  });
}

Deno.test("interactive: /permissions autoEdit lets the next write run without a question; /model names the model of the next request", async () => {
  await using sandbox = await bladeSandbox();
  const lastUserText = (request: RecordedRequest<AnthropicRequestBody>) =>
    textsOf(request.body, "user").at(-1) ?? "";
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      const last = request.body.messages.at(-1);
      const afterTool = (last === undefined ? [] : wireBlocks(last)).some((b) =>
        b.type === "tool_result"
      ) === true;
      if (!afterTool && lastUserText(request) === "write the file") {
        return fakeTurn({
          toolCalls: [{ name: "Write", input: { file_path: "out.txt", content: "written" } }],
        });
      }
      return fakeTurn({ text: afterTool ? "Wrote it." : "Hello." });
    },
  });
  await using term = await anthropicTerminal(sandbox, server, ["--trust-workspace"]);
  await term.waitFor("/help for commands");
  await term.type("/permissions");
  await term.press("Enter");
  await term.waitFor("Permission mode: default.");
  await term.type("/permissions autoEdit");
  await term.press("Enter");
  await term.waitFor("Permission mode is now autoEdit for this session.");
  await term.type("/model haiku");
  await term.press("Enter");
  await term.waitFor("Model is now claude-haiku-5-5 for this session.");
  await term.type("write the file");
  await term.press("Enter");
  await term.waitFor("Wrote it.");
  await term.waitFor((s) => !s.includes("Working…"), { visibleOnly: true });
  assert.doesNotMatch(await term.history(), /Allow Write/);
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/out.txt`), "written");
  assert.deepEqual([...new Set(server.requests.map((r) => r.body.model))], ["claude-haiku-5-5"]);
  await term.type("/status");
  await term.press("Enter");
  await term.waitFor(/Model\s+claude-haiku-5-5\nMode\s+autoEdit/);
  await term.press("C-d");
  assert.equal(await term.exitCode(), 0);
});

Deno.test("interactive: SIGTERM mid-turn leaves like /exit once the turn's end is written (exit 143), the session saved", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({ handler: () => fakeHang() });
  await using term = await anthropicTerminal(sandbox, server);
  await term.waitFor("/help for commands");
  await term.type("hang please");
  await term.press("Enter");
  await term.waitFor("Working…");
  for (let i = 0; i < 600 && server.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(server.requests.length, 1, "the request reached the server");
  await term.kill("SIGTERM");
  assert.equal(await term.exitCode(), 143);
  const id = sessionIdOn(await term.history());
  const log = await events(transcriptPath(sandbox, id));
  assert.deepEqual(log.flatMap((e) => (e.type === "turn_aborted" ? [e.data.cause] : [])), ["cancelled"]);
});
