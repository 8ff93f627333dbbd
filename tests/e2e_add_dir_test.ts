// `--add-dir <dir>` (docs/guides/migrating-from-claude-code.md): the folders join the workspace grant —
// for the tools' own path checks in the main session and for the Deno permissions of Worker children,
// which still cannot reach a folder that was not added (NotCapable). A missing folder is exit 2.

import assert from "node:assert/strict";
import {
  type FakeAnthropicServer,
  fakeTurn,
  type RecordedRequest,
  startFakeAnthropicServer,
  systemText,
} from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import { type BladeSandbox, bladeSandbox } from "./support/blade.ts";
import { lastToolResults } from "./support/claude_conversations.ts";

const env = (server: FakeAnthropicServer) => ({
  ANTHROPIC_BASE_URL: server.url,
  ANTHROPIC_API_KEY: "sk-ant-test",
});

async function folders(sandbox: BladeSandbox): Promise<{ shared: string; other: string }> {
  const shared = `${sandbox.root}/shared`;
  const other = `${sandbox.root}/other`;
  for (const d of [shared, other]) await Deno.mkdir(d);
  await Deno.writeTextFile(`${shared}/lib.txt`, "shared library\n");
  await Deno.writeTextFile(`${other}/secret.txt`, "not added\n");
  return { shared, other };
}

const toolCount = (req: RecordedRequest<AnthropicRequestBody>) => (req.body.messages ?? []).length;

Deno.test("--add-dir: the main session writes in the added folder; without it the write is refused", async () => {
  await using sandbox = await bladeSandbox();
  const { shared } = await folders(sandbox);
  const write = () =>
    fakeTurn({
      toolCalls: [{ name: "Write", input: { file_path: `${shared}/out.txt`, content: "made\n" } }],
    });
  await using server = startFakeAnthropicServer({
    handler: (req) => toolCount(req) === 1 ? write() : fakeTurn({ text: "done" }),
  });
  const base = ["-p", "write it", "--permission-mode", "acceptEdits", "--trust-workspace"];

  const without = await sandbox.run([...base, "--output-format", "json"], { env: env(server) });
  assert.equal(JSON.parse(without.stdout).permission_denials.length, 1, without.stdout);
  assert.match(lastToolResults(server.requests.at(-1)!), /outside the workspace .*--add-dir adds folders/);
  await assert.rejects(Deno.stat(`${shared}/out.txt`));

  const run = await sandbox.run(
    [...base, "--add-dir", "../shared", "--output-format", "stream-json", "--verbose"],
    { env: env(server) },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /add-dir/, "no 'not honoured' warning");
  const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines[0].additional_directories, [shared]);
  assert.deepEqual(lines.at(-1).permission_denials, []);
  assert.equal(await Deno.readTextFile(`${shared}/out.txt`), "made\n");
  const system = systemText(server.requests.at(-1)!.body);
  assert.match(system, new RegExp(`Additional working directories: ${shared}`));
});

Deno.test("--add-dir: a Worker child reads and writes the added folder, and another folder stays NotCapable", async () => {
  await using sandbox = await bladeSandbox();
  const { shared, other } = await folders(sandbox);
  const childPrompt = "Copy the shared library note and look at the other folder.";
  const fromChild = (req: RecordedRequest<AnthropicRequestBody>) =>
    JSON.stringify(req.body.messages?.[0] ?? "").includes(childPrompt);
  await using server = startFakeAnthropicServer({
    handler: (req) => {
      if (fromChild(req)) {
        if (toolCount(req) > 1) return fakeTurn({ text: "child done" });
        return fakeTurn({
          toolCalls: [
            { name: "Read", input: { file_path: `${shared}/lib.txt` } },
            { name: "Write", input: { file_path: `${shared}/child.txt`, content: "from the child\n" } },
            { name: "Read", input: { file_path: `${other}/secret.txt` } },
          ],
        });
      }
      return toolCount(req) === 1
        ? fakeTurn({
          toolCalls: [{
            name: "Task",
            input: { subagent_type: "general-purpose", description: "Copy a note", prompt: childPrompt },
          }],
        })
        : fakeTurn({ text: "done" });
    },
  });
  const run = await sandbox.run(
    ["-p", "go", "--add-dir", shared, "--permission-mode", "acceptEdits", "--trust-workspace"],
    { env: env(server) },
  );
  assert.equal(run.code, 0, run.stderr);
  const results = lastToolResults(server.requests.filter(fromChild).at(-1)!);
  assert.match(results, /shared library/);
  assert.equal(await Deno.readTextFile(`${shared}/child.txt`), "from the child\n");
  assert.match(results, /secret\.txt is outside this agent's access.*NotCapable/s);
  assert.doesNotMatch(results, /not added/);
});

Deno.test("--add-dir: a folder that does not exist is a usage error (exit 2)", async () => {
  await using sandbox = await bladeSandbox();
  const run = await sandbox.run(["-p", "hi", "--add-dir", "../nowhere"], { env: { ANTHROPIC_API_KEY: "k" } });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stdout + run.stderr, /--add-dir: the folder .*nowhere does not exist/);
});
