import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { type Message, userText } from "../protocol/messages.ts";
import { realClock } from "../sys/clock.ts";
import { FakeClock } from "../testing/fakes.ts";
import { collectEvents, modelRequest, terminalOf, textOfEvents } from "../testing/provider_test_kit.ts";
import { type Script, scriptedProvider } from "./scripted.ts";
import { loadScript } from "./script_schema.ts";

function script(yaml: string): Script {
  const loaded = loadScript(yaml, "test.yaml");
  if (loaded instanceof BladeError) throw loaded;
  return loaded.script;
}

const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

const SCRIPT = script(`
agents:
  main:
    - match: "deploy"
      turns:
        - text: "Deploying."
    - turns:
        - text: "I'll delegate."
          tool_calls:
            - name: Task
              input: { subagent_type: Explore, description: "find config", prompt: "Find {{match:file (\\\\S+)}}" }
        - text: "Child said: {{last_user}}"
  Explore:
    - turns:
        - text: "Found it in src/config.ts"
  "*":
    - match: "^review"
      turns:
        - text: "Looks good."
`);

const provider = scriptedProvider(SCRIPT, { clock: realClock() });

Deno.test("scripted: picks the entry by agent type and the first user message", async () => {
  const deploy = await collectEvents(provider.stream(modelRequest([userText("please deploy now")])));
  assert.equal(textOfEvents(deploy), "Deploying.");
  assert.deepEqual(terminalOf(deploy).type === "done" && terminalOf(deploy).stopReason, "end_turn");

  const child = await collectEvents(
    provider.stream(modelRequest([userText("look")], { agentType: "Explore" })),
  );
  assert.equal(textOfEvents(child), "Found it in src/config.ts");

  const fallback = await collectEvents(
    provider.stream(modelRequest([userText("review the diff")], { agentType: "review" })),
  );
  assert.equal(textOfEvents(fallback), "Looks good.");
});

Deno.test("scripted: the turn index is the number of assistant messages; placeholders expand", async () => {
  const first = terminalOf(
    await collectEvents(provider.stream(modelRequest([userText("open file README.md please")]))),
  );
  assert.deepEqual(first, {
    type: "done",
    message: {
      role: "assistant",
      content: [
        { type: "text", text: "I'll delegate." },
        {
          type: "tool_call",
          id: "call_main_0_0",
          name: "Task",
          input: { subagent_type: "Explore", description: "find config", prompt: "Find README.md" },
        },
      ],
    },
    stopReason: "tool_use",
    usage: first.usage,
  });

  const second = await collectEvents(provider.stream(modelRequest([
    userText("open file README.md please"),
    { role: "assistant", content: [{ type: "tool_call", id: "call_main_0_0", name: "Task", input: {} }] },
    {
      role: "user",
      content: [{ type: "tool_result", callId: "call_main_0_0", content: "src/config.ts", isError: false }],
    },
  ])));
  assert.equal(textOfEvents(second), "Child said: src/config.ts");
});

Deno.test("scripted: {{match:REGEX}} takes group 1 of the last match anywhere, or the whole match, or ''", async () => {
  const s = script(`
agents:
  "*":
    - turns:
        - text: "[{{match:id=(\\\\d+)}}] [{{match:\\\\d{3}}}] [{{match:nothing-like-this}}] [{{last_user}}]"
          tool_calls:
            - name: Write
              input:
                file_path: "out/{{match:id=(\\\\d+)}}.txt"
                nested: { list: ["{{last_user}}", 3, true] }
`);
  const request = modelRequest([
    userText("id=1 and id=22"),
    assistant("noted id=333"),
    {
      role: "user",
      content: [{ type: "tool_result", callId: "c", content: "id=4444", isError: false }, {
        type: "text",
        text: "more",
      }],
    },
  ], { agentType: "worker" });
  // The turn index is 1 here; give the entry repeat_last so the single turn answers.
  const replay = scriptedProvider({ agents: { "*": [{ ...s.agents["*"]![0]!, repeat_last: true }] } }, {
    clock: realClock(),
  });
  const end = terminalOf(await collectEvents(replay.stream(request)));
  assert.equal(end.type, "done");
  if (end.type !== "done") return;
  assert.deepEqual(end.message.content, [
    { type: "text", text: "[4444] [444] [] [id=4444\nmore]" },
    {
      type: "tool_call",
      id: "call_worker_1_0",
      name: "Write",
      input: { file_path: "out/4444.txt", nested: { list: ["id=4444\nmore", 3, true] } },
    },
  ]);
});

Deno.test("scripted: repeat_last replays the last turn; without it, running out is a script error", async () => {
  const s = script(`
agents:
  main:
    - repeat_last: true
      turns:
        - text: "again"
          tool_calls: [{ name: Bash, input: { command: "true" } }]
  sub-agent.v2:
    - turns: [{ text: "once" }]
`);
  const p = scriptedProvider(s, { clock: realClock() });
  const history: Message[] = [userText("loop forever")];
  for (let i = 0; i < 3; i++) history.push(assistant("again"), userText("ok"));
  const end = terminalOf(await collectEvents(p.stream(modelRequest(history))));
  assert.equal(end.type === "done" && end.stopReason, "tool_use");
  assert.equal(
    end.type === "done" && end.message.content[1]?.type === "tool_call" && end.message.content[1].id,
    "call_main_3_0",
  );

  const long = "x".repeat(100);
  const out = terminalOf(
    await collectEvents(
      p.stream(modelRequest([userText(long), assistant("once")], { agentType: "sub-agent.v2" })),
    ),
  );
  assert.deepEqual(out.type === "error" && out.error, {
    kind: "script",
    message: `Script ran out of turns (agent type "sub-agent.v2", prompt "${"x".repeat(80)}…", turn 1): ` +
      "the matching entry has 1; add turns or set repeat_last: true",
  });
});

Deno.test("scripted: no entry for the agent type, or no match, is a script error naming them", async () => {
  const none = terminalOf(
    await collectEvents(provider.stream(modelRequest([userText("hi")], { agentType: "Plan" }))),
  );
  assert.deepEqual(none.type === "error" && [none.error.kind, none.error.message], [
    "script",
    `No script entry matches this request (agent type "Plan", prompt "hi", turn 0): no "match" of "Plan" or "*" fits the prompt`,
  ]);
  const s = scriptedProvider(script(`agents: { main: [{ turns: [{ text: a }] }] }`), { clock: realClock() });
  const missing = terminalOf(
    await collectEvents(s.stream(modelRequest([userText("hi")], { agentType: "Explore" }))),
  );
  assert.equal(
    missing.type === "error" && missing.error.message,
    `Script has no entries for this request (agent type "Explore", prompt "hi", turn 0): add an "agents" key "Explore" or "*"`,
  );
});

Deno.test("scripted: error turns, raw arguments, chunks, ids and usage", async () => {
  const s = script(`
agents:
  main:
    - turns:
        - text: "abcdefghij"
          chunks: 3
          usage: { input_tokens: 5, output_tokens: 2 }
          tool_calls:
            - { name: Edit, raw_arguments: "{not json" }
            - { name: Read, id: my-id, input: { file_path: a } }
        - text: "partial "
          error: { kind: overloaded, message: "Overloaded", status: 529 }
        - error: { message: "scripted failure" }
`);
  const p = scriptedProvider(s, { clock: realClock() });
  const first = await collectEvents(p.stream(modelRequest([userText("go")])));
  assert.deepEqual(first.filter((e) => e.type === "text_delta").map((e) => e.text), ["abcd", "efgh", "ij"]);
  const end = terminalOf(first);
  assert.equal(end.type, "done");
  if (end.type !== "done") return;
  assert.deepEqual(end.usage, { inputTokens: 5, outputTokens: 2 });
  const [, edit, read] = end.message.content;
  assert.equal(edit?.type === "tool_call" && edit.id, "call_main_0_0");
  assert.deepEqual(edit?.type === "tool_call" && edit.input, {});
  assert.match(edit?.type === "tool_call" ? edit.inputError ?? "" : "", /"Edit" are not valid JSON/);
  assert.deepEqual(read, { type: "tool_call", id: "my-id", name: "Read", input: { file_path: "a" } });
  assert.deepEqual(first.filter((e) => e.type === "tool_call").length, 2);

  const second = await collectEvents(p.stream(modelRequest([userText("go"), assistant("x")])));
  assert.deepEqual(second.map((e) => e.type), ["request_started", "text_delta", "error"]);
  const failed = terminalOf(second);
  assert.deepEqual(failed.type === "error" && failed.error, {
    kind: "overloaded",
    message: "Overloaded",
    status: 529,
  });
  assert.equal(failed.stopReason, "error");
  assert.deepEqual(failed.usage, { inputTokens: Math.ceil(("go" + "x" + "[]").length / 4), outputTokens: 2 });

  const third = terminalOf(
    await collectEvents(p.stream(modelRequest([userText("go"), assistant("x"), assistant("y")]))),
  );
  assert.deepEqual(third.type === "error" && third.error, { kind: "script", message: "scripted failure" });
});

Deno.test("scripted: delay_ms waits on the clock and honours abort", async () => {
  const s = script(`agents: { main: [{ turns: [{ text: "late", delay_ms: 5000 }] }] }`);
  const clock = new FakeClock();
  const p = scriptedProvider(s, { clock });

  const waiting = collectEvents(p.stream(modelRequest([userText("go")])));
  while (clock.pendingSleepers === 0) await new Promise((r) => setTimeout(r, 0));
  clock.advance(5000);
  assert.equal(textOfEvents(await waiting), "late");

  const controller = new AbortController();
  const aborted = collectEvents(p.stream(modelRequest([userText("go")]), { signal: controller.signal }));
  while (clock.pendingSleepers === 0) await new Promise((r) => setTimeout(r, 0));
  controller.abort();
  const events = await aborted;
  assert.deepEqual(events.map((e) => e.type), ["request_started", "error"]);
  assert.deepEqual(terminalOf(events).type === "error" && [terminalOf(events).stopReason], ["aborted"]);
  assert.equal(clock.pendingSleepers, 0);

  const before = await collectEvents(
    p.stream(modelRequest([userText("go")]), { signal: AbortSignal.abort() }),
  );
  assert.deepEqual(before.map((e) => e.type), ["error"]);
});

Deno.test("loadScript: JSON works too", () => {
  const loaded = loadScript(JSON.stringify({ agents: { main: [{ turns: [{ text: "hi" }] }] } }), "s.json");
  assert.ok(!(loaded instanceof BladeError));
  assert.deepEqual(loaded.script, { agents: { main: [{ turns: [{ text: "hi" }] }] } });
});

Deno.test("loadScript: lists every problem with its path, code script_invalid, exit 1 and a hint", () => {
  const error = loadScript(
    `
agents:
  main:
    - match: "(unclosed"
      turns:
        - text: 42
          tool_calls:
            - { name: Read, inptu: { file_path: a } }
            - { name: Edit, input: {}, raw_arguments: "{}" }
          error: { kind: exploded, message: x }
        - text: "{{match:[bad}}"
  Explore: []
`,
    "ci/script.yaml",
  );
  assert.ok(error instanceof BladeError);
  assert.equal(error.code, "script_invalid");
  assert.equal(error.exitCode, 1);
  assert.match(error.hint ?? "", /docs\/guides\/scripted-provider\.md/);
  const lines = error.message.split("\n");
  assert.equal(lines[0], "Invalid script ci/script.yaml:");
  const has = (re: RegExp) => assert.ok(lines.some((l) => re.test(l)), `${re} in:\n${error.message}`);
  has(/^ {2}- agents\.main\[0\]\.match: not a valid regular expression/);
  has(/^ {2}- agents\.main\[0\]\.turns\[0\]\.text: Invalid input: expected string, received number$/);
  has(/^ {2}- agents\.main\[0\]\.turns\[0\]\.tool_calls\[0\]: Unrecognized key: "inptu"$/);
  has(/^ {2}- agents\.main\[0\]\.turns\[0\]\.tool_calls\[1\]: give either input or raw_arguments, not both$/);
  has(/^ {2}- agents\.main\[0\]\.turns\[0\]\.error\.kind: Invalid option/);
  has(/^ {2}- agents\.main\[0\]\.turns\[1\]\.text: \{\{match:\[bad\}\}: not a valid regular expression/);
  has(/^ {2}- agents\.Explore: Too small/);
});

Deno.test("loadScript: YAML syntax errors and empty files", () => {
  const syntax = loadScript("agents:\n  main: [\n", "broken.yaml");
  assert.ok(syntax instanceof BladeError);
  assert.match(syntax.message, /^Invalid script broken\.yaml:\n {2}- not valid YAML or JSON: /);
  const empty = loadScript("", "empty.yaml");
  assert.ok(empty instanceof BladeError);
  assert.equal(
    empty.message,
    "Invalid script empty.yaml:\n  - the script is empty; it needs an `agents:` mapping",
  );
  const notObject = loadScript("- 1\n- 2\n", "list.yaml");
  assert.ok(notObject instanceof BladeError);
  assert.match(notObject.message, /expected object, received array/);
});

Deno.test("docs: every script in the scripted-provider guide loads", async () => {
  const guide = await Deno.readTextFile(new URL("../../docs/guides/scripted-provider.md", import.meta.url));
  const blocks = [...guide.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) =>
    /^agents:/m.test(b)
  );
  assert.ok(blocks.length >= 4);
  for (const block of blocks) {
    const loaded = loadScript(block, "guide");
    assert.ok(
      !(loaded instanceof BladeError),
      `${loaded instanceof BladeError ? loaded.message : ""}\n${block}`,
    );
  }
});

Deno.test("docs: the guide's delegation example plays out as described", async () => {
  const guide = await Deno.readTextFile(new URL("../../docs/guides/scripted-provider.md", import.meta.url));
  const block = [...guide.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) =>
    b.includes("Explore:")
  )!;
  const p = scriptedProvider(script(block), { clock: realClock() });
  const prompt = "Find where the configuration file is loaded and report the path.";
  const child = await collectEvents(p.stream(modelRequest([
    userText(prompt),
    { role: "assistant", content: [{ type: "tool_call", id: "g", name: "Grep", input: {} }] },
    {
      role: "user",
      content: [{
        type: "tool_result",
        callId: "g",
        content: "lib/config/load.ts:12: loadConfig()",
        isError: false,
      }],
    },
  ], { agentType: "Explore" })));
  assert.equal(textOfEvents(child), "Configuration is loaded in lib/config/load.ts.");
});
