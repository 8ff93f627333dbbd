// End-to-end: what runs leave in the storage root. Lock files (record locks `.agent-<id>.lock`, inbox
// locks `<sid>.inbox.json.lock`, lease guards `.locks/<sha>.guard`) are removed when released, so
// they never pile up; `blade tasks clean` removes a run's sidecar together with its transcript, inbox
// and locks (docs/reference/sidecars.md), and nothing of the parent's or of newer runs.

import assert from "node:assert/strict";
import { bladeSandbox, listFiles, parseJsonResult, readSidecars, runScripted } from "./support/blade.ts";

const task = (prompt: string, background: boolean) => ({
  name: "Task",
  input: { subagent_type: "Explore", description: "Look around", prompt, run_in_background: background },
});

Deno.test("e2e: runs leave no lock files behind, and tasks clean removes each run's files with its sidecar", async () => {
  await using sandbox = await bladeSandbox();
  const script = {
    agents: {
      main: [{
        turns: [
          { tool_calls: [task("FOREGROUND: look around", false), task("BACKGROUND: look around", true)] },
          { text: "Waiting." },
          { text: "Both done." },
        ],
      }],
      Explore: [{ turns: [{ text: "looked" }] }],
    },
  };
  for (let i = 0; i < 2; i++) {
    const run = await runScripted(sandbox, script);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(parseJsonResult(run).is_error, false);
  }
  const relative = async () =>
    (await listFiles(sandbox.storage)).map((p) =>
      p.slice(sandbox.storage.length + 1).replace(/^projects\/[^/]+\//, "P/")
    );
  const locks = (await relative()).filter((p) => /\.(lock|guard)$/.test(p));
  assert.deepEqual(locks, [], "no lock or guard file left after the runs ended");

  const children = await readSidecars(sandbox.storage);
  assert.equal(children.length, 4);
  const before = await relative();
  for (const c of children) assert.ok(before.includes(`P/${c.id}.jsonl`), `${c.id}'s transcript exists`);

  const clean = await sandbox.run(["tasks", "clean", "--older-than", "0s", "--json"]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.deepEqual(JSON.parse(clean.stdout), { removed: 4 });
  const after = await relative();
  assert.deepEqual(
    after.filter((p) => children.some((c) => p.includes(c.id))),
    [],
    "every file of the runs removed",
  );
  // The parents' own transcripts stay: clean removes runs, not sessions.
  assert.equal(after.filter((p) => /^P\/session-.*\.jsonl$/.test(p)).length, 2);
});
