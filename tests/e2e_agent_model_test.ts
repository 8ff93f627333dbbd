// End-to-end: the delegation tool is `Agent` (Claude Code's name) and `Task` still works; Agent's
// `model` chooses the child's model (an alias through the run's aliases), which the child's requests
// use and its sidecar's config snapshot keeps; a model outside `availableModels` is refused.

import assert from "node:assert/strict";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { bladeSandbox, readSidecars } from "./support/blade.ts";
import { lastToolResults } from "./support/claude_conversations.ts";

Deno.test("agent model e2e: Agent with model haiku runs the child on haiku; Task is the same tool", async () => {
  await using sandbox = await bladeSandbox();
  const call = (name: string, model: string) => ({
    name,
    input: {
      subagent_type: "general-purpose",
      description: `on ${model}`,
      prompt: `CHILD TASK on ${model}: answer.`,
      model,
    },
  });
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      const first = JSON.stringify(req.body.messages[0]?.content ?? "");
      if (first.includes("CHILD TASK")) return fakeTurn({ text: "child answer" });
      const answered = req.body.messages.filter((m) => m.role === "assistant").length;
      const steps = [[call("Agent", "haiku")], [call("Task", "claude-custom-7")], [call("Agent", "opus")]];
      const step = steps[answered];
      return step === undefined ? fakeTurn({ text: "done" }) : fakeTurn({ toolCalls: step });
    },
  });
  await sandbox.write(
    ".blade/settings.json",
    JSON.stringify({ availableModels: ["haiku", "claude-custom-7"] }),
  );
  const run = await sandbox.run(["-p", "Delegate.", "--output-format", "json", "--trust-workspace"], {
    env: {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "sk-ant-fake",
      ANTHROPIC_DEFAULT_HAIKU_MODEL: "haiku-test-1",
    },
  });
  assert.equal(run.code, 0, run.stderr);
  const tools = (server.requests[0]!.body.tools ?? []).map((t) => (t as { name: string }).name);
  assert.ok(tools.includes("Agent") && !tools.includes("Task"), tools.join(","));
  const childModels = server.requests.filter((r) =>
    JSON.stringify(r.body.messages[0]?.content ?? "").includes("CHILD TASK")
  )
    .map((r) => r.body.model);
  assert.deepEqual(childModels, ["haiku-test-1", "claude-custom-7"]);
  const records = await readSidecars(sandbox.storage);
  assert.deepEqual(records.map((r) => [r.description, r.configSnapshot.model]), [
    ["on claude-custom-7", "claude-custom-7"],
    ["on haiku", "haiku-test-1"],
  ]);
  assert.match(
    lastToolResults(server.requests.at(-1)!),
    /not in the availableModels setting \(haiku, claude-custom-7\)/,
  );
});
