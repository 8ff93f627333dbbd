// End-to-end: the settings' apiKeyHelper (docs/guides/memory.md#apikeyhelper) against a fake Anthropic
// server: its key is sent (Authorization: Bearer and x-api-key), the helper runs again after a 401 and
// after its TTL, its output never appears in what Blade prints or stores, a failing helper stops the
// run before any request, and an untrusted project's helper is never run.

import assert from "node:assert/strict";
import { fakeStatus, fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { type BladeSandbox, bladeSandbox } from "./support/blade.ts";

/** A helper printing `sk-helper-<n>` (n = how many times it ran), counting its runs in a file. */
async function helper(
  box: BladeSandbox,
  o: { fail?: boolean } = {},
): Promise<{ command: string; runs: () => Promise<number> }> {
  const count = `${box.root}/helper-runs`;
  const script = `${box.root}/helper.sh`;
  await Deno.writeTextFile(
    script,
    o.fail === true
      ? "#!/bin/sh\necho secret-on-stderr >&2\nexit 3\n"
      : `#!/bin/sh\necho run >> '${count}'\necho "sk-helper-$(wc -l < '${count}' | tr -d ' ')"\n`,
  );
  await Deno.chmod(script, 0o755);
  return {
    command: script,
    runs: async () =>
      (await Deno.readTextFile(count).catch(() => "")).split("\n").filter((l) => l !== "").length,
  };
}

async function userSettings(box: BladeSandbox, settings: unknown): Promise<void> {
  await Deno.mkdir(`${box.home}/.claude`, { recursive: true });
  await Deno.writeTextFile(`${box.home}/.claude/settings.json`, JSON.stringify(settings));
}

async function everything(dir: string): Promise<string> {
  let all = "";
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    all += e.isDirectory
      ? await everything(path)
      : e.isFile
      ? await Deno.readTextFile(path).catch(() => "")
      : "";
  }
  return all;
}

Deno.test("apiKeyHelper: its key is sent; a 401 runs it again; its output is never printed or stored", async () => {
  await using box = await bladeSandbox();
  const h = await helper(box);
  await userSettings(box, { apiKeyHelper: h.command });
  // The model echoes the key it was sent: Blade must not print or store it.
  await using server = startFakeAnthropicServer([
    fakeStatus(401),
    fakeTurn({ text: "the key is sk-helper-2" }),
  ]);
  const run = await box.run(["-p", "hi", "--output-format", "stream-json", "--debug"], {
    env: { ANTHROPIC_BASE_URL: server.url },
  });
  assert.equal(run.code, 0, run.stderr);
  const auth = server.requests.map((r) => [r.headers["authorization"], r.headers["x-api-key"]]);
  assert.deepEqual(auth, [["Bearer sk-helper-1", "sk-helper-1"], ["Bearer sk-helper-2", "sk-helper-2"]]);
  assert.equal(await h.runs(), 2);
  for (const text of [run.stdout, run.stderr, await everything(box.storage)]) {
    assert.doesNotMatch(text, /sk-helper-\d/);
  }
  assert.match(run.stdout, /"apiKeySource":"apiKeyHelper"/);
});

Deno.test("apiKeyHelper: CLAUDE_CODE_API_KEY_HELPER_TTL_MS makes it run again for a later request", async () => {
  await using box = await bladeSandbox();
  await box.write("a.txt", "x\n");
  const h = await helper(box);
  await userSettings(box, { apiKeyHelper: h.command });
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: "a.txt" } }] }),
    fakeTurn({ text: "done" }),
  ]);
  const env = { ANTHROPIC_BASE_URL: server.url, CLAUDE_CODE_API_KEY_HELPER_TTL_MS: "1" };
  assert.equal((await box.run(["-p", "hi"], { env })).code, 0);
  // Run 1 is the check before the first request; with a 1 ms TTL each request runs it again.
  assert.deepEqual(server.requests.map((r) => r.headers["x-api-key"]), ["sk-helper-2", "sk-helper-3"]);
  // The default TTL (5 minutes) keeps one key for the whole run.
  server.push(
    fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: "a.txt" } }] }),
    fakeTurn({ text: "done" }),
  );
  assert.equal((await box.run(["-p", "hi"], { env: { ANTHROPIC_BASE_URL: server.url } })).code, 0);
  assert.deepEqual(server.requests.slice(2).map((r) => r.headers["x-api-key"]), [
    "sk-helper-4",
    "sk-helper-4",
  ]);
});

Deno.test("apiKeyHelper: a failing helper stops the run before any request, showing none of its output", async () => {
  await using box = await bladeSandbox();
  const h = await helper(box, { fail: true });
  await userSettings(box, { apiKeyHelper: h.command });
  await using server = startFakeAnthropicServer([fakeTurn({ text: "never" })]);
  const run = await box.run(["-p", "hi", "--output-format", "json"], {
    env: { ANTHROPIC_BASE_URL: server.url },
  });
  assert.equal(run.code, 1);
  const result = JSON.parse(run.stdout) as { error: { code: string; message: string } };
  assert.equal(result.error.code, "api_key_helper_failed");
  assert.match(result.error.message, /exited with code 3/);
  assert.doesNotMatch(run.stdout + run.stderr, /secret-on-stderr/);
  assert.equal(server.requests.length, 0);
});

Deno.test("apiKeyHelper: an untrusted project's helper is never run", async () => {
  await using box = await bladeSandbox();
  const h = await helper(box);
  await box.write(".claude/settings.json", JSON.stringify({ apiKeyHelper: h.command }));
  await using server = startFakeAnthropicServer([fakeTurn({ text: "never" })]);
  const run = await box.run(["-p", "hi", "--output-format", "json"], {
    env: { ANTHROPIC_BASE_URL: server.url },
  });
  assert.equal(run.code, 1);
  assert.equal((JSON.parse(run.stdout) as { error: { code: string } }).error.code, "missing_api_key");
  assert.equal(await h.runs(), 0);
  // Trusted, the project's helper is used.
  server.push(fakeTurn({ text: "ok" }));
  const trusted = await box.run(["-p", "hi"], {
    env: { ANTHROPIC_BASE_URL: server.url, BLADE_TRUST_WORKSPACE: "1" },
  });
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.equal(server.requests[0]!.headers["x-api-key"], "sk-helper-1");
});
