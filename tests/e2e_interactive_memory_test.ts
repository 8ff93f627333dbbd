// End-to-end: project memory and custom commands in the interactive session, in a real terminal (tmux)
// against the fake Anthropic server (docs/guides/memory.md): /memory lists what was loaded, /help lists
// the custom commands and Tab completes them, a typed command is expanded for the model (memory first),
// and a command file named like a built-in is named in a warning and never used.

import assert from "node:assert/strict";
import { bladeSandbox } from "./support/blade.ts";
import { BladeTerminal } from "./support/terminal.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";

function editorLines(screen: string): string[] {
  const lines = screen.split("\n");
  const rules = lines.flatMap((l, i) => (/^─+$/.test(l) ? [i] : []));
  if (rules.length < 2) return [];
  return lines.slice(rules.at(-2)! + 1, rules.at(-1)!).map((l) => l.trim()).filter((l) => l !== "");
}

Deno.test("interactive: /memory, custom commands in /help and Tab, a typed command expanded, built-ins win", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write("CLAUDE.md", "PROJECT-MEMORY for the session\n");
  await sandbox.write(
    ".claude/commands/review.md",
    "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $ARGUMENTS carefully.\n",
  );
  await sandbox.write(".claude/commands/help.md", "SHADOWED\n");
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "Reviewed it." }) });
  await using term = await BladeTerminal.start(["--trust-workspace"], {
    cwd: sandbox.workspace,
    env: { ...sandbox.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" },
  });
  await term.waitFor("/help for commands");
  await term.waitFor(
    /warning: \/help is Blade's own; the custom command\s+\S*commands\/help\.md is not used/,
  );
  await term.type("/memory");
  await term.press("Enter");
  await term.waitFor(/tokens {2}project {2}\s*\S*\/CLAUDE\.md/);
  await term.waitFor("Custom commands (2):");
  await term.type("/help");
  await term.press("Enter");
  await term.waitFor(/Custom commands \(\.claude\/commands\):\s+\/review\s+<file> — Review a file/);
  await term.waitFor("Ctrl-C twice or Ctrl-D");
  await term.type("/rev");
  // The menu shows what Tab will complete (as a person sees it before pressing Tab).
  await term.waitFor(/→ \/review\s+<file>/);
  await term.press("Tab");
  await term.waitFor((s) => editorLines(s).join("") === "/review", { visibleOnly: true });
  await term.type("src/app.ts");
  await term.press("Enter");
  await term.waitFor("Reviewed it.");
  const texts = (server.requests[0]!.body.messages[0]!.content as { type: string; text?: string }[])
    .map((b) => b.text ?? "");
  assert.match(texts[0]!, /^<system-reminder>\nCodebase and user instructions[\s\S]*PROJECT-MEMORY/);
  assert.deepEqual(texts.slice(1), [
    "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src/app.ts</command-args>\n",
    "Review src/app.ts carefully.\n",
  ]);
  await term.type("/exit");
  await term.press("Enter");
  assert.equal(await term.exitCode(), 0);
});
