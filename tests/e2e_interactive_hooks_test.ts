// End-to-end: hooks in the interactive session (docs/guides/hooks.md), the real CLI in a real
// pseudo-terminal (tmux) against the fake Anthropic server, with real bash hook scripts from the
// project's settings: SessionStart's context, a prompt a UserPromptSubmit hook blocks (never sent, its
// text in the log) and one it adds context to, a Bash call a PreToolUse hook refuses (shown as
// refused), and SessionEnd when the person leaves with /exit (reason `prompt_input_exit`).

import assert from "node:assert/strict";
import { bladeSandbox } from "./support/blade.ts";
import { BladeTerminal } from "./support/terminal.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { textsOf } from "./support/claude_hook_cases.ts";

Deno.test("interactive hooks: SessionStart, a blocked and a passed prompt, a refused call, SessionEnd on /exit", async () => {
  await using box = await bladeSandbox();
  const log = `${box.root}/hooks.log`;
  const script = async (name: string, body: string) => {
    const path = await box.write(
      `${name}.sh`,
      `input=$(cat)\nprintf '%s\\n' "$input" >> '${log}'\n${body}\n`,
    );
    return { type: "command", command: `bash ${path}` };
  };
  await box.write(
    ".claude/settings.json",
    JSON.stringify({
      permissions: { allow: ["Bash"] },
      hooks: {
        SessionStart: [{
          hooks: [
            await script(
              "start",
              `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"start ctx"}}'`,
            ),
          ],
        }],
        UserPromptSubmit: [{
          hooks: [
            await script(
              "prompt",
              `if grep -q secret <<<"$input"; then echo "No secrets here" >&2; exit 2; fi\necho 'prompt ctx plain'`,
            ),
          ],
        }],
        PreToolUse: [{
          matcher: "Bash",
          hooks: [
            await script("pre", `if grep -q forbidden <<<"$input"; then echo "Not that one" >&2; exit 2; fi`),
          ],
        }],
        SessionEnd: [{ hooks: [await script("end", "true")] }],
      },
    }),
  );
  await using server = startFakeAnthropicServer([
    fakeTurn({
      toolCalls: [{ name: "Bash", input: { command: "echo forbidden > made.txt", description: "x" } }],
    }),
    fakeTurn({ text: "Hi there." }),
  ]);
  await using term = await BladeTerminal.start(["--trust-workspace"], {
    cwd: box.workspace,
    env: { ...box.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" },
  });
  await term.waitFor("/help for commands");

  await term.type("Tell me the secret");
  await term.press("Enter");
  await term.waitFor("UserPromptSubmit operation blocked by hook:");
  await term.waitFor("Original prompt: Tell me the secret");
  assert.equal(
    server.requests.filter((r) => r.path === "/v1/messages").length,
    0,
    "the prompt was never sent",
  );

  await term.type("Hello");
  await term.press("Enter");
  await term.waitFor("Hi there.");
  await term.waitFor("PreToolUse:Bash hook error");
  await assert.rejects(Deno.stat(`${box.workspace}/made.txt`));
  const first = server.requests.find((r) => r.path === "/v1/messages")!;
  const sent = textsOf(first.body.messages ?? []).map((b) => b.text ?? "");
  // Both hooks' texts in one system turn after the prompt, as Claude Code 2.1.332 sends them.
  assert.deepEqual(first.body.messages.at(-1), {
    role: "system",
    content: [{
      type: "text",
      text:
        "SessionStart hook additional context: start ctx\n\nUserPromptSubmit hook success: prompt ctx plain",
      cache_control: { type: "ephemeral" },
    }],
  });
  assert.equal(sent.filter((t) => t.includes("hook")).length, 1);
  assert.ok(sent.indexOf("Hello") < sent.length - 1);

  await term.type("/exit");
  await term.press("Enter");
  assert.equal(await term.exitCode(), 0);
  const inputs = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(inputs.map((i) => [i.hook_event_name, i.source ?? i.reason ?? i.prompt ?? i.tool_name]), [
    ["SessionStart", "startup"],
    ["UserPromptSubmit", "Tell me the secret"],
    ["UserPromptSubmit", "Hello"],
    ["PreToolUse", "Bash"],
    ["SessionEnd", "prompt_input_exit"],
  ]);
});

Deno.test("interactive hooks: Notification when a call needs the person's approval and when the session sits idle, as Claude Code 2.1.332", async () => {
  await using box = await bladeSandbox();
  const log = `${box.root}/notifications.log`;
  const script = await box.write("notif.sh", `input=$(cat)\nprintf '%s\\n' "$input" >> '${log}'\n`);
  await box.write(
    ".claude/settings.json",
    JSON.stringify({
      hooks: { Notification: [{ hooks: [{ type: "command", command: `bash ${script}` }] }] },
    }),
  );
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "touch made.txt", description: "make" } }] }),
    fakeTurn({ text: "Done." }),
  ]);
  await using term = await BladeTerminal.start(["--trust-workspace"], {
    cwd: box.workspace,
    env: {
      ...box.env,
      NO_COLOR: "1",
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "test-key",
      // Claude Code's 6 seconds and minute (pinned in lib/cli/interactive/repl_session_test.ts), shortened.
      BLADE_PERMISSION_NOTIFICATION_MS: "300",
      BLADE_IDLE_NOTIFICATION_MS: "1500",
    },
  });
  await term.waitFor("/help for commands");
  await term.type("Make the file.");
  await term.press("Enter");
  await term.waitFor("Allow Bash to run:");
  // The question waits unanswered until the hook heard of it.
  for (
    let i = 0;
    i < 100 && !(await Deno.readTextFile(log).catch(() => "")).includes("permission_prompt");
    i++
  ) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await term.press("Enter");
  await term.waitFor("Done.");
  const read = async () =>
    (await Deno.readTextFile(log).catch(() => "")).trim().split("\n").filter((l) => l !== "");
  for (let i = 0; i < 100 && (await read()).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
  await Deno.stat(`${box.workspace}/made.txt`);
  const got = (await read()).map((l) => JSON.parse(l));
  const want = (await Deno.readTextFile(
    new URL("./fixtures/claude/hooks_notification/hook_inputs.jsonl", import.meta.url),
  ))
    .trim().split("\n").map((l) => JSON.parse(l).input);
  assert.equal(got.length, want.length);
  got.forEach((g, i) => {
    const w = want[i];
    // Claude Code's fields (its prompt_id Blade has not), its types, its messages word for word.
    assert.deepEqual(Object.keys(g).sort(), Object.keys(w).filter((k) => k !== "prompt_id").sort());
    assert.equal(g.notification_type, w.notification_type);
    assert.equal(g.message, w.message);
    assert.equal(g.cwd, box.workspace);
  });
  await term.type("/exit");
  await term.press("Enter");
  assert.equal(await term.exitCode(), 0);
});
