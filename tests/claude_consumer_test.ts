// A consumer of `--output-format stream-json` written the way claude-code-action reads Claude Code's
// output (its execution file): every line is JSON; the init line gives the session; assistant lines
// carry Anthropic content blocks (text, tool_use); the last `result` line gives the outcome and cost.
// It must work on Blade's output unchanged.

import assert from "node:assert/strict";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { CONVERSATIONS } from "./support/claude_conversations.ts";
import { bladeSandbox } from "./support/blade.ts";

interface ContentBlock {
  type: string;
  text?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
}
interface StreamLine {
  type: string;
  subtype?: string;
  session_id?: string;
  message?: { content: ContentBlock[] };
  parent_tool_use_id?: string | null;
  is_error?: boolean;
  result?: string;
  total_cost_usd?: number;
  num_turns?: number;
}

/** What claude-code-action takes from an execution log. */
function summarise(output: string) {
  const lines = output.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as StreamLine);
  const init = lines.find((l) => l.type === "system" && l.subtype === "init");
  const result = lines.filter((l) => l.type === "result").at(-1);
  const assistant = lines.filter((l) => l.type === "assistant" && l.parent_tool_use_id === null);
  const texts = assistant.flatMap((l) => l.message!.content).filter((b) => b.type === "text").map((b) =>
    b.text
  );
  const tools = assistant.flatMap((l) => l.message!.content).filter((b) => b.type === "tool_use").map((b) =>
    b.name
  );
  const toolResults = lines.filter((l) => l.type === "user").flatMap((l) => l.message!.content)
    .filter((b) => b.type === "tool_result").map((b) => b.tool_use_id);
  return { init, result, texts, tools, toolResults };
}

Deno.test("consumer: a claude-code-action style reader gets the session, texts, tools and result from Blade", async () => {
  await using sandbox = await bladeSandbox();
  const c = CONVERSATIONS.find((x) => x.name === "read_edit")!;
  for (const [file, text] of Object.entries(c.files)) {
    await Deno.writeTextFile(`${sandbox.workspace}/${file}`, text);
  }
  await using server = startFakeAnthropicServer({ handler: c.handler(sandbox.workspace) });
  const run = await sandbox.run(
    ["-p", c.prompt, "--verbose", "--output-format", "stream-json", "--trust-workspace", ...c.flags],
    { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key" } },
  );
  assert.equal(run.code, 0, run.stderr);
  const s = summarise(run.stdout);
  assert.ok(s.init !== undefined && typeof s.init.session_id === "string");
  assert.equal(s.result?.session_id, s.init.session_id);
  assert.deepEqual([s.result?.is_error, s.result?.result, s.result?.num_turns], [
    false,
    "Fixed the typo.",
    3,
  ]);
  assert.equal(typeof s.result?.total_cost_usd, "number");
  assert.deepEqual(s.texts, ["Reading the file.", "Fixed the typo."]);
  assert.deepEqual(s.tools, ["Read", "Edit"]);
  assert.equal(s.toolResults.length, 2);
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/notes.txt`), "Hello world\n");
});
