// A continued session whose transcript ends in a torn line (a writer was killed mid-line) still
// resumes with everything before it, and Blade says what it found.

import assert from "node:assert/strict";
import { bladeSandbox, parseJsonResult, transcriptPath } from "./support/blade.ts";

Deno.test("resume: a torn last transcript line is reported as a warning and the session continues", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write(
    "s.yaml",
    `agents:\n  main:\n    - repeat_last: true\n      turns:\n        - text: "Noted."\n`,
  );
  const args = ["--provider", "scripted", "--script", "s.yaml", "--output-format", "json"];
  const first = await sandbox.run(["-p", "remember pineapple", ...args]);
  assert.equal(first.code, 0, first.stderr);
  const sessionId = String(parseJsonResult(first).session_id);
  const path = transcriptPath(sandbox, sessionId);
  await Deno.writeTextFile(path, '{"seq":99,"type":"message_cr', { append: true });

  const second = await sandbox.run(["-p", "what was the word?", "--resume", sessionId, ...args]);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(parseJsonResult(second).session_id, sessionId);
  assert.match(second.stderr, new RegExp(`warning: transcript of ${sessionId}: line \\d+ was cut short`));
  // The torn bytes stay on their own line; the new events follow on lines of their own.
  const lines = (await Deno.readTextFile(path)).split("\n");
  assert.ok(lines.includes('{"seq":99,"type":"message_cr'));
});
