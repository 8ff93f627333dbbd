// The agent loop's hook points and its journal, over the scripted provider, the real core tools and a
// real transcript in a temp folder: where each hook point is asked, what its answers change (and what
// they cannot), and that every step is made durable by the journal before it is reported.

import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { realPorts } from "../sys/mod.ts";
import { textOf, userText } from "../protocol/messages.ts";
import type { ModelRequest, Provider } from "../protocol/provider.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import { scriptedProvider } from "../provider/scripted.ts";
import { loadScript } from "../provider/script_schema.ts";
import { readTranscript, TranscriptWriter } from "../session/transcript.ts";
import { rulesOf } from "../permissions/run_rules.ts";
import type { AgentLoop, LoopOptions } from "./loop.ts";
import { testLoop } from "../testing/test_loop.ts";
import { type LoopJournal, transcriptJournal } from "./journal.ts";
import { type TaskRequest, taskTool } from "../tools/task.ts";

const WRITE_THEN_ANSWER = `
agents:
  main:
    - turns:
        - tool_calls:
            - name: Write
              input: { file_path: "out.txt", content: "x" }
        - text: "Done."
`;

const ANSWER_TWICE = `
agents:
  main:
    - turns:
        - text: "First answer."
        - text: "Second answer."
`;

interface World {
  dir: string;
  events: RuntimeEvent[];
  /** What the provider was sent, request by request. */
  requests: ModelRequest[];
  transcript: TranscriptWriter;
  loop(yaml: string, extra?: Partial<LoopOptions>): AgentLoop;
  /** The transcript's events, as `type` or `type:role` for messages. */
  written(): Promise<string[]>;
}

async function withWorld(fn: (w: World) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-hooks-" }));
  const ports = realPorts();
  const events: RuntimeEvent[] = [];
  const requests: ModelRequest[] = [];
  const transcript = new TranscriptWriter({
    fs: ports.fs,
    clock: ports.clock,
    ids: ports.ids,
    path: `${dir}/session.jsonl`,
    sessionId: "session-hooks",
    projectPath: dir,
  });
  const world: World = {
    dir,
    events,
    requests,
    transcript,
    loop(yaml, extra = {}) {
      const loaded = loadScript(yaml, "loop_hooks_test.yaml");
      if (loaded instanceof BladeError) throw loaded;
      const scripted = scriptedProvider(loaded.script, { clock: ports.clock });
      const provider: Provider = {
        name: scripted.name,
        stream: (
          request,
          options,
        ) => (requests.push(structuredClone(request)), scripted.stream(request, options)),
      };
      return testLoop({ ports, provider, transcript, dir, events }, extra);
    },
    async written() {
      const read = (await readTranscript(ports.fs, `${dir}/session.jsonl`))!.events;
      return read.map((e) => e.type === "message_created" ? `message:${e.data.role}` : e.type);
    },
  };
  try {
    await fn(world);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const go = () => new AbortController().signal;
const allowWrite = rulesOf({ allow: ["Write"], deny: [], ask: [] });

Deno.test("beforeToolCall may rewrite the input: the tool runs the rewrite, the model's call stays as it was", async () => {
  await withWorld(async (w) => {
    const run = await w.loop(WRITE_THEN_ANSWER, {
      rules: allowWrite,
      beforeToolCall: ({ input }) => ({ allow: true, input: { ...(input as object), content: "rewritten" } }),
    }).run({ messages: [userText("Write it")] }, go());
    assert.equal(run.status, "completed");
    assert.equal(await Deno.readTextFile(`${w.dir}/out.txt`), "rewritten");
    assert.deepEqual(run.toolResults[0]!.call.input, { file_path: "out.txt", content: "x" });
  });
});

Deno.test("beforeToolCall: a rewrite is validated and gated again, so it gets nowhere the original could not", async () => {
  await withWorld(async (w) => {
    const outside = await Deno.makeTempDir({ prefix: "blade-hooks-outside-" });
    try {
      const escaped = await w.loop(WRITE_THEN_ANSWER, {
        rules: allowWrite,
        beforeToolCall: () => ({ allow: true, input: { file_path: `${outside}/out.txt`, content: "x" } }),
      }).run({ messages: [userText("Write it")] }, go());
      assert.equal(escaped.toolResults[0]!.result.isError, true);
      assert.match(escaped.toolResults[0]!.result.content, /outside|needs approval/);
      assert.equal(await Deno.stat(`${outside}/out.txt`).then(() => true, () => false), false);
      const invalid = await w.loop(WRITE_THEN_ANSWER, {
        rules: allowWrite,
        beforeToolCall: () => ({ allow: true, input: { file_path: 3 } }),
      }).run({ messages: [userText("Write it")] }, go());
      assert.equal(
        invalid.toolResults[0]!.result.content,
        "A hook rewrote the input of Write into an invalid one.",
      );
      assert.equal(await Deno.stat(`${w.dir}/out.txt`).then(() => true, () => false), false);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});

const DELEGATE = `
agents:
  main:
    - turns:
        - tool_calls:
            - name: Agent
              input: { subagent_type: "general-purpose", description: "a step", prompt: "Do this step now." }
        - text: "Done."
`;

Deno.test("a rewrite of an Agent call keeps the child id Blade assigned and persisted, whatever the rewrite says", async () => {
  await withWorld(async (w) => {
    const launched: TaskRequest[] = [];
    const agent = taskTool({
      agentTypes: () => ["general-purpose"],
      plan: () => Promise.resolve(undefined),
      launch: (input) => (launched.push(input), Promise.resolve({ content: "child answer", isError: false })),
    });
    const hooks = [
      {
        beforeToolCall: () => ({
          allow: true as const,
          input: {
            prompt: "Another step, rewritten.",
            description: "a step",
            subagent_session_id: "agent-victim",
          },
        }),
      },
      {
        beforePermission: () => ({
          decision: "allow" as const,
          input: {
            prompt: "Another step, rewritten.",
            description: "a step",
            subagent_session_id: "agent-victim",
          },
        }),
      },
    ];
    for (const hook of hooks) {
      launched.length = 0;
      const run = await w.loop(DELEGATE, { tools: [agent], ...hook }).run(
        { messages: [userText("Go")] },
        go(),
      );
      assert.equal(run.status, "completed");
      const persisted = run.toolResults[0]!.call.input.subagent_session_id;
      assert.match(String(persisted), /^agent-[\w-]{21}$/);
      assert.deepEqual(launched.map((l) => [l.subagent_session_id, l.prompt]), [[
        persisted,
        "Another step, rewritten.",
      ]]);
    }
  });
});

Deno.test("afterToolCall replaces or annotates a result: persisted, reported and sent to the model so", async () => {
  await withWorld(async (w) => {
    const run = await w.loop(WRITE_THEN_ANSWER, {
      rules: allowWrite,
      afterToolCall: (_request, result) => ({ annotate: `checked (${result.isError ? "error" : "ok"})` }),
    }).run({ messages: [userText("Write it")] }, go());
    const content = run.toolResults[0]!.result.content;
    assert.match(content, /\n\nchecked \(ok\)$/);
    const completed = w.events.find((e) => e.type === "tool_completed");
    assert.equal(completed?.type === "tool_completed" && completed.content, content);
    const sent = w.requests[1]!.messages.at(-1)!.content[0]!;
    assert.equal(sent.type === "tool_result" && sent.content, content);
    const replaced = await w.loop(WRITE_THEN_ANSWER, {
      rules: allowWrite,
      afterToolCall: () => ({ replace: { content: "replaced", isError: true } }),
    }).run({ messages: [userText("Write it again")] }, go());
    assert.deepEqual(
      [replaced.toolResults[0]!.result.content, replaced.toolResults[0]!.result.isError],
      ["replaced", true],
    );
  });
});

Deno.test("transformContext changes what one request sends; the conversation and transcript keep everything", async () => {
  await withWorld(async (w) => {
    const loop = w.loop(WRITE_THEN_ANSWER, {
      rules: allowWrite,
      transformContext: (context) => ({
        system: `${context.system} (compacted)`,
        messages: context.messages.map((m) =>
          m.role === "user" && textOf(m) === "Write it" ? userText("[summary]") : m
        ),
      }),
    });
    const run = await loop.run({ messages: [userText("Write it")] }, go());
    assert.equal(run.status, "completed");
    assert.deepEqual(w.requests.map((r) => [r.system, textOf(r.messages[0]!)]), [
      ["You are a test. (compacted)", "[summary]"],
      ["You are a test. (compacted)", "[summary]"],
    ]);
    assert.equal(textOf(loop.messages[0]!), "Write it");
    assert.equal(
      (await readTranscript(realPorts().fs, w.transcript.path))!.events.some((e) =>
        e.type === "part_created" && e.data.part.type === "text" && e.data.part.text === "Write it"
      ),
      true,
    );
  });
});

Deno.test("onTurnEnd continues a turn with a hidden message written with the answer; shouldStop ends it failed", async () => {
  await withWorld(async (w) => {
    let asked = 0;
    const run = await w.loop(ANSWER_TWICE, {
      onTurnEnd: ({ answer }) => asked++ === 0 ? { continueWith: `Not yet: ${textOf(answer)}` } : undefined,
    }).run({ messages: [userText("Answer")] }, go());
    assert.equal(run.status, "completed");
    assert.equal(run.finalText, "Second answer.");
    assert.equal(asked, 2);
    const sent = w.requests[1]!.messages;
    assert.deepEqual(sent.at(-1), userText("Not yet: First answer.", true));
    assert.deepEqual(await w.written(), [
      "turn_started",
      "message:user",
      "part_created",
      "message:assistant",
      "part_created",
      "message:user",
      "part_created",
      "message:assistant",
      "part_created",
      "turn_completed",
    ]);
  });
  await withWorld(async (w) => {
    const steps: boolean[] = [];
    const run = await w.loop(WRITE_THEN_ANSWER, {
      rules: allowWrite,
      shouldStop: ({ final }) => {
        steps.push(final);
        return { type: "structured_output_retries_exhausted", message: "no attempt left" };
      },
    }).run({ messages: [userText("Write it")] }, go());
    assert.equal(run.status, "failed");
    assert.deepEqual(run.error, { type: "structured_output_retries_exhausted", message: "no attempt left" });
    assert.deepEqual(steps, [false], "asked after the step's tool results; the run ended there");
    assert.equal((await w.written()).at(-1), "turn_aborted");
  });
});

Deno.test("onSessionStart runs once per loop; its messages open the first turn in the same durable batch", async () => {
  await withWorld(async (w) => {
    const starts: boolean[] = [];
    const loop = w.loop(ANSWER_TWICE, {
      onSessionStart: ({ resumed }) => {
        starts.push(resumed);
        return { messages: [userText("Project rules: be brief.", true)] };
      },
    });
    await loop.run({ messages: [userText("Answer")] }, go());
    await loop.run({ messages: [userText("Again")] }, go());
    assert.deepEqual(starts, [false]);
    assert.deepEqual(w.requests[0]!.messages.map((m) => textOf(m)), ["Project rules: be brief.", "Answer"]);
    assert.deepEqual((await w.written()).slice(0, 5), [
      "turn_started",
      "message:user",
      "part_created",
      "message:user",
      "part_created",
    ]);
  });
});

Deno.test("onUserPrompt: a blocked prompt opens no turn and writes nothing; the session's start waits for the next", async () => {
  await withWorld(async (w) => {
    const seen: string[] = [];
    const loop = w.loop(ANSWER_TWICE, {
      onSessionStart: () => ({ messages: [userText("Start context.", true)] }),
      onUserPrompt: ({ text }) => {
        seen.push(text);
        return text.includes("secret")
          ? { block: { message: `blocked: ${text}`, reason: "no secrets" } }
          : { messages: [userText(`Context for: ${text}`, true)] };
      },
    });
    const blocked = await loop.run({ messages: [userText("The secret")], prompt: "The secret" }, go());
    assert.equal(blocked.status, "completed");
    assert.deepEqual(blocked.blocked, { message: "blocked: The secret", reason: "no secrets" });
    assert.equal(blocked.finalText, "blocked: The secret");
    assert.equal(blocked.modelRequests, 0);
    assert.equal(w.requests.length, 0);
    assert.deepEqual(w.events.filter((e) => e.type !== "session_started").map((e) => e.type), [
      "prompt_blocked",
    ]);
    assert.equal(await Deno.stat(w.transcript.path).then(() => true, () => false), false);
    assert.equal(loop.messages.length, 0);
    const run = await loop.run({ messages: [userText("Answer")], prompt: "Answer" }, go());
    assert.equal(run.status, "completed");
    assert.deepEqual(seen, ["The secret", "Answer"]);
    // The start's context, the prompt, then the prompt's context: one durable opening batch.
    assert.deepEqual(w.requests[0]!.messages.map((m) => textOf(m)), [
      "Start context.",
      "Answer",
      "Context for: Answer",
    ]);
    assert.deepEqual((await w.written()).slice(0, 7), [
      "turn_started",
      "message:user",
      "part_created",
      "message:user",
      "part_created",
      "message:user",
      "part_created",
    ]);
    // A turn without a prompt (notices alone) does not ask.
    await loop.run({ messages: [userText("no prompt field")] }, go());
    assert.deepEqual(seen, ["The secret", "Answer"]);
  });
});

Deno.test("the journal makes each step durable before the loop reports it", async () => {
  await withWorld(async (w) => {
    const log: string[] = [];
    const real = transcriptJournal(w.transcript, realPorts().ids);
    const journal: LoopJournal = {
      openTurn: (step, onWritten) =>
        real.openTurn(step, onWritten).then(() => void log.push("durable:openTurn")),
      messages: (list) =>
        real.messages(list).then(() => void log.push(`durable:messages:${list[0]!.message.role}`)),
      deliveries: (late) => real.deliveries(late).then(() => void log.push("durable:deliveries")),
      approval: (record) => real.approval(record).then(() => void log.push("durable:approval")),
      compacted: (record) => real.compacted(record).then(() => void log.push("durable:compacted")),
      turnCompleted: (end) => real.turnCompleted(end).then(() => void log.push("durable:turnCompleted")),
      turnAborted: (end) => real.turnAborted(end).then(() => void log.push("durable:turnAborted")),
    };
    await w.loop(WRITE_THEN_ANSWER, {
      rules: allowWrite,
      journal,
      emit: (e) => {
        if (e.type !== "text_delta") log.push(e.type);
      },
    }).run({ messages: [userText("Write it")] }, go());
    assert.deepEqual(log, [
      "durable:openTurn",
      "turn_started",
      "durable:messages:assistant",
      "assistant_message",
      "tool_started",
      "tool_completed",
      "durable:messages:user",
      "durable:turnCompleted",
      "assistant_message",
      "turn_completed",
    ]);
  });
});
