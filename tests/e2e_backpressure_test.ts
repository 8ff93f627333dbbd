// Back-pressure instead of drops (issue 31 item 6; docs/reference/background.md, "The durable inbox"): a
// session launches many background children at once and is slow to take their notices (each of its
// requests takes a while). The inbox holds at most 100 pending completions; the children beyond that wait,
// their records committed, until the parent has taken notices, so the run succeeds with every notice
// delivered exactly once. BLADE_BACKPRESSURE_CHILDREN sets the count (default 500, the figure;
// 150 dropped 50 notices before).

import assert from "node:assert/strict";
import { bladeSandbox, readSidecars, transcriptEvents, transcriptPath } from "./support/blade.ts";
import { scriptedArgs, taskCall, writeScript } from "./support/crash.ts";

const CHILDREN = Number(Deno.env.get("BLADE_BACKPRESSURE_CHILDREN") ?? "500");

Deno.test(`backpressure: ${CHILDREN} background children and a slow parent — every notice delivered once`, async () => {
  await using sandbox = await bladeSandbox();
  const calls = Array.from(
    { length: CHILDREN },
    (_, i) => taskCall(`Child ${i}: answer.`, true),
  );
  const script = await writeScript(sandbox, "script", {
    agents: {
      main: [{
        repeat_last: true,
        // The parent's every request is slow: its notices pile up past the inbox's 100 meanwhile.
        turns: [{ tool_calls: calls }, { text: "parent waits", delay_ms: 1_500 }, {
          text: "noted",
          delay_ms: 300,
        }],
      }],
      "general-purpose": [{ repeat_last: true, turns: [{ text: "child answer" }] }],
    },
  });
  const run = await sandbox.run(
    scriptedArgs(script, "Launch them all.", ["--session-id", "session-backpressure000001"]),
    {
      env: { BLADE_CHILD_SANDBOX: "none", BLADE_MAX_CONCURRENT_SUBAGENTS: "50" },
    },
  );
  assert.equal(run.code, 0, run.stderr.slice(-3_000));
  assert.doesNotMatch(run.stderr, /notice_dropped|could not be written to its parent's inbox/);
  const records = await readSidecars(sandbox.storage);
  assert.equal(records.length, CHILDREN);
  assert.ok(records.every((r) => r.status === "completed"));
  // Each child's notice is in the parent's transcript exactly once.
  const events = await transcriptEvents(transcriptPath(sandbox, "session-backpressure000001"));
  const delivered = events.flatMap((e) =>
    e.type === "message_created" && e.data.inboxId !== undefined ? [e.data.inboxId] : []
  );
  assert.equal(delivered.length, CHILDREN);
  assert.equal(new Set(delivered).size, CHILDREN);
});
