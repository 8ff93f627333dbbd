// A child's very large answer (issue 31 items 4 and 5; docs/reference/sidecars.md, "Large results"): a
// foreground child in its Worker answers 34 MB of text. Its parent's Task result is capped as a
// background notice is, with a pointer to TaskOutput; its record stays far below the 64 MiB read cap
// (the answer is spilled beside it in the same commit) and `blade tasks output` prints the whole answer.

import assert from "node:assert/strict";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { MAX_SIDECAR_BYTES } from "../lib/store/file_store.ts";
import { RESULT_CAP } from "../lib/run/notice.ts";
import { bladeSandbox, readSidecars, sidecarPath } from "./support/blade.ts";
import { lastToolResults } from "./support/claude_conversations.ts";

const MB = 1024 * 1024;
const CHILD = "Write out the whole log.";

Deno.test("large result: a 34 MB answer reaches the parent capped, its record readable, tasks output whole", async () => {
  await using sandbox = await bladeSandbox();
  const answer = "L".repeat(34 * MB - 4) + "END.";
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      const first = JSON.stringify(req.body.messages[0]);
      if (first.includes(CHILD)) return fakeTurn({ text: answer, chunks: 34 });
      if (req.body.messages.length === 1) {
        return fakeTurn({
          toolCalls: [{
            name: "Task",
            input: { subagent_type: "general-purpose", description: "Write the log", prompt: CHILD },
          }],
        });
      }
      return fakeTurn({ text: "Got the log." });
    },
  });
  const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key" };
  const run = await sandbox.run(["-p", "Get the log.", "--output-format", "json"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).result, "Got the log.");
  // The parent's Task result: the answer's head, capped like a notice, and where the rest is.
  const result = lastToolResults(server.requests.at(-1)!);
  assert.ok(result.length < RESULT_CAP + 1_000, `${result.length} characters`);
  assert.match(
    result,
    /The answer has 35651584 characters; call TaskOutput with task_id "agent-[^"]+" and offset \d+/,
  );
  const [record] = await readSidecars(sandbox.storage);
  assert.equal(record!.status, "completed");
  const size = (await Deno.stat(sidecarPath(sandbox.storage, record!.id))).size;
  assert.ok(size < MAX_SIDECAR_BYTES / 8, `the record is ${size} bytes`);
  const output = await sandbox.run(["tasks", "output", record!.id], {});
  assert.equal(output.code, 0, output.stderr);
  assert.ok(output.stdout.includes(`${"L".repeat(100)}END.\n`), "the whole answer, to its end");
  assert.ok(output.stdout.length > answer.length);
});
