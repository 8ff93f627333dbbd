// End-to-end secrets sweep (docs/guides/permissions.md "A child's environment"): the provider key is
// planted in a child's tool output, its error output and its final answer, and offered to its Bash
// through the environment. Afterwards no file under the storage root and neither stdout nor stderr
// (json and stream-json) contains it, and the child's commands never saw it in their environment.

import assert from "node:assert/strict";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import {
  bladeSandbox,
  listFiles,
  parseJsonResult,
  readSidecars,
  runScripted,
  transcriptEvents,
  transcriptPath,
} from "./support/blade.ts";

const SECRET = "sk-ant-sweep-SECRET-0c9d8e7f6a5b";

for (const format of ["json", "stream-json"]) {
  Deno.test(`secrets sweep (${format}): the key is in no record and no output, and not in a child's env`, async () => {
    await using sandbox = await bladeSandbox();
    await using server = startFakeAnthropicServer([
      fakeTurn({
        toolCalls: [{
          name: "Task",
          input: {
            subagent_type: "general-purpose",
            description: "Leak",
            prompt: "Print what you find, please.",
          },
        }],
      }),
      fakeTurn({
        toolCalls: [
          {
            name: "Bash",
            input: {
              command: `echo "env=[$ANTHROPIC_API_KEY][$BLADE_SWEEP]"; env | grep -c ANTHROPIC_ || true`,
            },
          },
          // Children's Bash is bash (resolved by the main thread), so [[ ]] works.
          { name: "Bash", input: { command: "[[ x == x ]] && echo is-bash" } },
          { name: "Bash", input: { command: `echo out-${SECRET}` } },
          { name: "Bash", input: { command: `echo err-${SECRET} >&2; exit 3` } },
        ],
      }),
      fakeTurn({ text: `The child found ${SECRET}.` }),
      fakeTurn({ text: `Parent repeats ${SECRET}.` }),
    ]);
    const run = await sandbox.run(
      [
        "-p",
        "Find the key",
        "--provider",
        "anthropic",
        "--permission-mode",
        "yolo",
        "--trust-workspace",
        "--output-format",
        format,
        ...(format === "stream-json" ? ["--verbose"] : []),
      ],
      { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: SECRET, BLADE_SWEEP: "blade-own" } },
    );
    assert.equal(run.code, 0, run.stderr);
    // The child's command saw neither the key nor Blade's own variables.
    const childResults = JSON.stringify(server.requests[2]);
    assert.match(childResults, /"content":"is-bash"/);
    assert.match(childResults, /env=\[\]\[\]\\n0"/, "no ANTHROPIC_ or BLADE_ variable in the child's Bash");
    assert.ok(!run.stdout.includes(SECRET), "stdout contains the key");
    assert.ok(!run.stderr.includes(SECRET), "stderr contains the key");
    assert.match(run.stdout, /\[REDACTED\]/);
    const files = await listFiles(sandbox.storage);
    assert.ok(files.some((f) => f.includes("/agents/sessions/")), `no sidecar among ${files.join(", ")}`);
    for (const file of files) {
      assert.ok(!(await Deno.readTextFile(file)).includes(SECRET), `${file} contains the key`);
    }
  });
}

Deno.test("settings env reaches a child's Bash as the main session's; keys and Blade's variables stay out", async () => {
  await using sandbox = await bladeSandbox();
  await sandbox.write(
    ".claude/settings.json",
    JSON.stringify({
      env: { SETTINGS_PROBE: "from-settings", ANTHROPIC_API_KEY: SECRET, BLADE_FROM_SETTINGS: "blade-own" },
    }),
  );
  const echo = `echo "probe=[$SETTINGS_PROBE][$ANTHROPIC_API_KEY][$BLADE_FROM_SETTINGS]"`;
  const run = await runScripted(sandbox, {
    agents: {
      main: [{
        turns: [
          { tool_calls: [{ name: "Bash", input: { command: echo } }] },
          {
            tool_calls: [{
              name: "Task",
              input: { subagent_type: "general-purpose", description: "Echo", prompt: "Echo the probe." },
            }],
          },
          { text: "Main: {{last_user}}" },
        ],
      }],
      "general-purpose": [{
        turns: [{ tool_calls: [{ name: "Bash", input: { command: echo } }] }, {
          text: "Child: {{last_user}}",
        }],
      }],
    },
  }, { flags: ["--permission-mode", "yolo", "--trust-workspace"] });
  assert.equal(run.code, 0, run.stderr);
  const [record] = await readSidecars(sandbox.storage);
  const child = JSON.stringify(record?.result);
  assert.match(child, /probe=\[from-settings\]\[\]\[\]/, child);
  // The main session gets the settings env too (its own environment is inherited, as in Claude Code).
  const main = await transcriptEvents(transcriptPath(sandbox, String(parseJsonResult(run).session_id)));
  assert.match(JSON.stringify(main), /probe=\[from-settings\]/);
});

/** Every stream_event text delta of a stream-json run, joined per message. */
function joinedDeltas(stdout: string): string {
  return stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.type === "stream_event")
    .map((l) => {
      const delta = (l.event as { delta?: { type?: string; text?: string } }).delta;
      return delta?.type === "text_delta" ? delta.text ?? "" : "";
    }).join("");
}

for (
  const [name, key] of [
    ["a key streamed in 40 small deltas", "sk-ant-api03-split-0123456789abcdefSECRET"],
    ['a key with " and \\ (JSON-escaped in every line)', 'sk-ant-q"uo\\te-SECRET-0c9d8e7f'],
  ] as const
) {
  Deno.test(`secrets: ${name} is in no --include-partial-messages line, joined or not, nor in storage`, async () => {
    await using sandbox = await bladeSandbox();
    const run = await runScripted(sandbox, {
      agents: { main: [{ turns: [{ text: `The key is ${key} (do not share).`, chunks: 40 }] }] },
    }, {
      flags: ["--output-format", "stream-json", "--verbose", "--include-partial-messages"],
      env: { ANTHROPIC_API_KEY: key },
    });
    assert.equal(run.code, 0, run.stderr);
    const escaped = JSON.stringify(key).slice(1, -1);
    for (const form of [key, escaped]) {
      assert.ok(!run.stdout.includes(form), `stdout holds ${form}`);
      assert.ok(!joinedDeltas(run.stdout).includes(key), "the joined deltas give the key back");
      for (const file of await listFiles(sandbox.storage)) {
        assert.ok(!(await Deno.readTextFile(file)).includes(form), `${file} holds ${form}`);
      }
    }
    assert.equal(joinedDeltas(run.stdout), "The key is [REDACTED] (do not share).");
  });
}
