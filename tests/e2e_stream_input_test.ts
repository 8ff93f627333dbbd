// `--input-format stream-json` as SDK wrappers use it (docs/guides/migrating-from-claude-code.md): stdin
// stays open, each user message is answered as it arrives (its result line printed) before the next is
// sent, and the run ends at EOF — as Claude Code does. A real child process, not a prepared stdin.

import assert from "node:assert/strict";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { bladeSandbox } from "./support/blade.ts";

const message = (text: string) =>
  JSON.stringify({ type: "user", message: { role: "user", content: text } }) + "\n";

const isResult = (line: string) => line.startsWith("{") && JSON.parse(line).type === "result";

Deno.test("stream-json input: each message is answered while stdin stays open; the run ends at EOF", async () => {
  await using sandbox = await bladeSandbox();
  let n = 0;
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: `answer ${++n}` }) });
  const blade = await sandbox.spawn(
    ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
    { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" }, stdin: "open" },
  );
  // A Blade that waits for EOF before starting never prints the first result: end it rather than hang.
  const guard = setTimeout(() => blade.kill("SIGKILL"), 60_000);
  try {
    await blade.write(message("first question"));
    const first = JSON.parse(await blade.nextLine(isResult));
    assert.equal(first.result, "answer 1");
    assert.equal(server.requests.length, 1, "the second message was not sent yet");

    await blade.write(message("second question"));
    const second = JSON.parse(await blade.nextLine(isResult));
    assert.equal(second.result, "answer 2");
    assert.equal(second.session_id, first.session_id, "one session");

    await blade.closeStdin();
    const done = await blade.result;
    assert.equal(done.code, 0, done.stderr);
    assert.equal(done.stdout.trim().split("\n").filter(isResult).length, 2);
  } finally {
    clearTimeout(guard);
  }
});

Deno.test("stream-json input: a bad line after a good one fails with a usage error naming its line", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "fine" }) });
  const run = await sandbox.run(
    ["-p", "--input-format", "stream-json", "--output-format", "stream-json"],
    {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" },
      stdin: message("first") + "not json\n",
    },
  );
  assert.equal(run.code, 2, run.stderr);
  const results = run.stdout.trim().split("\n").filter(isResult).map((l) => JSON.parse(l));
  assert.deepEqual(results.map((r) => r.is_error), [false, true]);
  assert.match(results[1].result, /line 2 of standard input is not JSON/);
});
