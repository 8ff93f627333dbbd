// Large tool results end to end (docs/reference/limits.md, "Large tool results"), against the fake
// server of tests/support/large_result_cases.ts: a Bash call printing 200,000 characters, in the session
// and in a Worker child, gives the model what Claude Code 2.1.332 gives it (tests/fixtures/claude/
// large_result/, re-record with scripts/record_claude_large_result.ts): the `<persisted-output>` block
// with the size, the saved file's path and a 2 KB preview; the file holds the whole output, the model
// reads it back with Read, and the transcript keeps the block, so a continued session sends the same.

import assert from "node:assert/strict";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import {
  bigText,
  fromLargeResultChild,
  largeResultHandler,
  largeResultRecord,
  savedPath,
  toolResults,
} from "./support/large_result_cases.ts";
import { bladeSandbox, transcriptEvents, transcriptPath } from "./support/blade.ts";

const FIXTURES = decodeURIComponent(new URL("./fixtures/claude/large_result/", import.meta.url).pathname);

for (const name of ["main", "child"] as const) {
  Deno.test(`large tool result golden ${name}: saved whole, the model gets Claude Code's block and reads the file back`, async () => {
    await using sandbox = await bladeSandbox();
    await sandbox.write("big.txt", bigText());
    await using server = startFakeAnthropicServer({
      handler: largeResultHandler({ workspace: sandbox.workspace, child: name === "child" }),
    });
    const run = await sandbox.run(
      ["-p", "Print big.txt.", "--output-format", "json", "--dangerously-skip-permissions"],
      { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-fake-key" } },
    );
    assert.equal(run.code, 0, run.stderr);
    const all = server.requests.filter((r) => r.path === "/v1/messages").map((r) => r.body);
    const bodies = name === "child" ? all.filter(fromLargeResultChild) : all;
    const theirs = JSON.parse(await Deno.readTextFile(`${FIXTURES}${name}.json`)) as ReturnType<
      typeof largeResultRecord
    >;
    const ours = largeResultRecord(bodies, (t) => t);
    // The same block, word for word: size, wording, the preview cut at the 40th line end, the `...`.
    assert.equal(ours.content, theirs.content);
    assert.equal(ours.readBack, theirs.readBack, "the saved file read back with Read");
    // Saved whole in the session's own folder beside its transcript: `<id>/tool-results/<call id>.txt`.
    const printed = toolResults(bodies.at(-1)!)[0]!;
    const path = savedPath(printed)!;
    assert.match(path, /\/projects\/[^/]+\/(session|agent)-[^/]+\/tool-results\/[^/]+\.txt$/);
    assert.equal(await Deno.readTextFile(path), bigText());
    const session = path.split("/").at(-3)!;
    // The transcript keeps what the model got (the pointer), so every later request sends the same prefix.
    const events = await transcriptEvents(transcriptPath(sandbox, session));
    const kept = JSON.stringify(events);
    assert.ok(kept.includes("<persisted-output>"), "the transcript keeps the block");
    assert.ok(!kept.includes("line 003000"), "and not the whole output");
    if (name === "child") assert.match(JSON.parse(run.stdout).result, /The subagent reported\./);
    else assert.equal(JSON.parse(run.stdout).result, "Last part read.");
  });
}
