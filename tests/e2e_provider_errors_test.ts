// End-to-end: every model API failure says what failed and what to do, once. Print mode against the
// fake Anthropic server answering 401, 404, 429, 500 and 529 (no retries), and a closed port: stderr
// has `blade: <message>` and one `hint:` line naming the fix; the json result carries the same hint;
// the interactive session shows the hint under the failed turn.

import assert from "node:assert/strict";
import { bladeSandbox, parseJsonResult } from "./support/blade.ts";
import { fakeStatus } from "../lib/testing/fake_model_server.ts";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { BladeTerminal } from "./support/terminal.ts";

const CASES: [number, RegExp][] = [
  [401, /hint: Check the API key: ANTHROPIC_API_KEY .* ANTHROPIC_BASE_URL/],
  [404, /hint: The endpoint does not know the model "[^"]+" .*--model/],
  [429, /hint: Rate limited: wait a minute/],
  [500, /hint: The API had a server error: run again/],
  [529, /hint: The model is overloaded: .*--fallback-model/],
];

/** A loopback port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("provider errors: each failure in print mode prints its message once on stderr with a hint, and the json result has it", async () => {
  await using sandbox = await bladeSandbox();
  for (const [status, hint] of CASES) {
    await using server = startFakeAnthropicServer({
      handler: () => fakeStatus(status, { message: "refused" }),
    });
    const env = {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "test-key",
      CLAUDE_CODE_MAX_RETRIES: "0",
    };
    const text = await sandbox.run(["-p", "hi"], { env });
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stderr, new RegExp(`^blade: Anthropic API returned ${status} `, "m"));
    assert.match(text.stderr, hint);
    assert.equal(text.stderr.match(/returned \d+/g)?.length, 1, `stderr says it once:\n${text.stderr}`);
    assert.equal(text.stderr.match(/hint:/g)?.length, 1, `one hint:\n${text.stderr}`);
    const json = parseJsonResult(await sandbox.run(["-p", "hi", "--output-format", "json"], { env }));
    const error = json["error"] as { code: string; hint?: string };
    assert.equal(error.code, "provider_error");
    assert.match(`hint: ${error.hint}`, hint);
  }
  const refused = await sandbox.run(["-p", "hi"], {
    env: {
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${closedPort()}`,
      ANTHROPIC_API_KEY: "test-key",
      CLAUDE_CODE_MAX_RETRIES: "0",
    },
  });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^blade: Could not connect to Anthropic API/m);
  assert.match(refused.stderr, /hint: Blade could not reach the API: check ANTHROPIC_BASE_URL/);
});

Deno.test("provider errors: the interactive session shows the hint under the failed turn", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({ handler: () => fakeStatus(401, { message: "bad key" }) });
  await using term = await BladeTerminal.start([], {
    cwd: sandbox.workspace,
    env: {
      ...sandbox.env,
      NO_COLOR: "1",
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "test-key",
      CLAUDE_CODE_MAX_RETRIES: "0",
    },
  });
  await term.waitFor("/help for commands");
  await term.type("hello");
  await term.press("Enter");
  const screen = await term.waitFor(/hint: Check the API key/);
  assert.match(
    screen,
    /✗ The turn failed: Anthropic API returned 401 Unauthorized: authentication_error: bad key\n +hint: Check the API key/,
  );
  assert.equal(screen.match(/returned 401/g)?.length, 1, screen);
});
