// End-to-end: /compact in the interactive session (docs/reference/limits.md "Compaction"), the real CLI
// in a real pseudo-terminal (tmux) against the fake Anthropic server: after two turns, `/compact keep
// the numbers` fires the project's PreCompact hook (trigger `manual`, the instructions as
// `custom_instructions`; its stdout joins them), sends one summary request carrying both, says on the
// screen that the conversation was compacted, and the next turn's request opens with the summary. A
// second /compact that the hook blocks (exit 2) says Claude Code's words and sends nothing.

import assert from "node:assert/strict";
import { bladeSandbox } from "./support/blade.ts";
import { BladeTerminal } from "./support/terminal.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { textsOf } from "./support/claude_hook_cases.ts";

Deno.test("interactive /compact: after two turns the summary request carries the instructions, the screen says so, the next turn opens with the summary; a PreCompact block stops it", async () => {
  await using box = await bladeSandbox();
  const log = `${box.root}/precompact.log`;
  const hook = await box.write(
    "precompact.sh",
    `input=$(cat)\nprintf '%s\\n' "$input" >> '${log}'\n` +
      `if grep -q refuse <<<"$input"; then echo "Not now" >&2; exit 2; fi\necho 'also keep the names'\n`,
  );
  await box.write(
    ".claude/settings.json",
    JSON.stringify({
      hooks: { PreCompact: [{ matcher: "manual", hooks: [{ type: "command", command: `bash ${hook}` }] }] },
    }),
  );
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: "Noted forty-two." }),
    fakeTurn({ text: "Noted seven." }),
    fakeTurn({
      text: "<analysis>two numbers</analysis>\n<summary>The user gave the numbers 42 and 7.</summary>",
    }),
    fakeTurn({ text: "Their sum is 49." }),
  ]);
  const messages = () => server.requests.filter((r) => r.path === "/v1/messages");
  const texts = (i: number) => textsOf(messages()[i]!.body.messages ?? []).map((b) => b.text ?? "");
  await using term = await BladeTerminal.start(["--trust-workspace"], {
    cwd: box.workspace,
    env: { ...box.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" },
  });
  await term.waitFor("/help for commands");
  await term.type("Remember 42.");
  await term.press("Enter");
  await term.waitFor("Noted forty-two.");
  await term.type("Remember 7.");
  await term.press("Enter");
  await term.waitFor("Noted seven.");
  assert.equal(messages().length, 2);

  await term.type("/compact keep the numbers");
  await term.press("Enter");
  await term.waitFor("(compacted the conversation from ~");
  // The passing hook's stdout, shown after the compaction as Claude Code shows it.
  await term.waitFor("Compacted PreCompact [bash ");
  await term.waitFor("successfully: also keep the names");
  assert.equal(messages().length, 3, "one summary request");
  const summaryRequest = texts(2);
  assert.ok(
    summaryRequest.at(-1)!.includes("Additional Instructions:\nkeep the numbers\n\nalso keep the names"),
    summaryRequest.at(-1),
  );
  assert.ok(summaryRequest.includes("Remember 42.") && summaryRequest.includes("Remember 7."));

  await term.type("What is their sum?");
  await term.press("Enter");
  await term.waitFor("Their sum is 49.");
  const next = texts(3);
  assert.ok(next[0]!.includes("The user gave the numbers 42 and 7."), next[0]);
  assert.ok(!next.includes("Remember 42."), "the summarised turns are not sent again");
  assert.equal(next.at(-1), "What is their sum?");

  // A block: Claude Code's words, no request, the conversation as it was.
  await term.type("/compact refuse this one");
  await term.press("Enter");
  await term.waitFor("Compaction blocked by PreCompact hook: [bash ");
  await term.waitFor("Not now");
  assert.equal(messages().length, 4, "a blocked compaction sends nothing");

  await term.type("/exit");
  await term.press("Enter");
  assert.equal(await term.exitCode(), 0);
  const inputs = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(inputs.map((i) => [i.hook_event_name, i.trigger, i.custom_instructions]), [
    ["PreCompact", "manual", "keep the numbers"],
    ["PreCompact", "manual", "refuse this one"],
  ]);
});
