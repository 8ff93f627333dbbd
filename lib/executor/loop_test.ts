// Unit tests of AgentLoop over the scripted provider, the real core tools and a real transcript in
// a temp folder: a tool round trip persisted before and after the call, maxTurns, abort while the
// model streams, a denied call, the beforeToolCall gate, mid-turn delivery of a notice, and a tool's
// warm-up from its call's first streamed fields (over the fake Anthropic server).

import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { realPorts } from "../sys/mod.ts";
import type { Ports } from "../sys/mod.ts";
import { FakeClock } from "../testing/fakes.ts";
import { textOf, userText } from "../protocol/messages.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import { scriptedProvider } from "../provider/scripted.ts";
import { loadScript } from "../provider/script_schema.ts";
import { readTranscript, TranscriptWriter } from "../session/transcript.ts";
import { rulesOf } from "../permissions/run_rules.ts";
import type { AgentLoop, LoopOptions } from "./loop.ts";
import { testLoop } from "../testing/test_loop.ts";
import type { Delivery, PendingWork } from "../protocol/delivery.ts";
import { startFakeAnthropicServer } from "../testing/fake_anthropic_server.ts";
import { anthropicProvider } from "../provider/anthropic.ts";
import { coreTools } from "../tools/registry.ts";

interface World {
  dir: string;
  ports: Ports;
  events: RuntimeEvent[];
  transcriptPath: string;
  loop(yaml: string, extra?: Partial<LoopOptions>): AgentLoop;
  types(): Promise<string[]>;
}

async function withWorld(
  fn: (w: World) => Promise<void>,
  clock?: FakeClock,
  fs?: (real: Ports["fs"]) => Ports["fs"],
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-loop-" }));
  const real = realPorts();
  const ports: Ports = {
    ...real,
    ...(clock === undefined ? {} : { clock }),
    ...(fs === undefined ? {} : { fs: fs(real.fs) }),
  };
  const events: RuntimeEvent[] = [];
  const transcriptPath = `${dir}/session.jsonl`;
  const world: World = {
    dir,
    ports,
    events,
    transcriptPath,
    loop(yaml, extra = {}) {
      const loaded = loadScript(yaml, "loop_test.yaml");
      if (loaded instanceof BladeError) throw loaded;
      const transcript = new TranscriptWriter({
        fs: ports.fs,
        clock: ports.clock,
        ids: ports.ids,
        path: transcriptPath,
        sessionId: "session-loop",
        projectPath: dir,
      });
      const provider = scriptedProvider(loaded.script, { clock: ports.clock });
      return testLoop({ ports, provider, transcript, dir, events }, extra);
    },
    async types() {
      return (await readTranscript(ports.fs, transcriptPath))!.events.map((e) => e.type);
    },
  };
  try {
    await fn(world);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const READ_THEN_ANSWER = `
agents:
  main:
    - turns:
        - text: "Reading."
          tool_calls:
            - name: Read
              input: { file_path: "notes.txt" }
        - text: "The notes say hello."
`;

Deno.test("AgentLoop: a tool round trip is persisted before the call runs and after it", async () => {
  await withWorld(async (w) => {
    await Deno.writeTextFile(`${w.dir}/notes.txt`, "hello\n");
    const run = await w.loop(READ_THEN_ANSWER).run(
      { messages: [userText("Read my notes")] },
      new AbortController().signal,
    );
    assert.equal(run.status, "completed");
    assert.equal(run.finalText, "The notes say hello.");
    assert.equal(run.toolCalls, 1);
    assert.equal(run.modelRequests, 2);
    assert.equal(run.toolResults[0]!.result.isError, false);
    assert.match(run.toolResults[0]!.result.content, /hello/);
    const read = (await readTranscript(w.ports.fs, w.transcriptPath))!.events;
    const started = w.events.findIndex((e) => e.type === "tool_started");
    assert.ok(started > 0 && w.events.findIndex((e) => e.type === "assistant_message") < started);
    // turn_started, user message, assistant message with its call, tool results, final answer, end.
    const roles = read.flatMap((e) => (e.type === "message_created" ? [e.data.role] : []));
    assert.deepEqual(roles, ["user", "assistant", "user", "assistant"]);
    assert.equal(read[0]!.type, "turn_started");
    assert.equal(read.at(-1)!.type, "turn_completed");
    const finals = read.flatMap((e) => (e.type === "message_created" && e.data.final === true ? [e] : []));
    assert.equal(finals.length, 1, "only the last answer carries the finalization receipt");
    const partIds = read.flatMap((e) => (e.type === "part_created" ? [e.data.partId] : []));
    assert.equal(new Set(partIds).size, partIds.length, "part ids are unique");
  });
});

Deno.test("AgentLoop: a turn's final answer and turn_completed are one durable batch, announced after it", async () => {
  // Each durable batch is one append (one fsync) of whole lines; record the event types of each.
  const batches: string[][] = [];
  const countingFs = (fs: Ports["fs"]): Ports["fs"] => ({
    ...fs,
    withLockedFile: (path, fn, options) =>
      fs.withLockedFile(path, (file) =>
        fn({
          ...file,
          append: async (text) => {
            await file.append(text);
            batches.push(text.trim().split("\n").map((l) => (JSON.parse(l) as { type: string }).type));
          },
        }), options),
  });
  await withWorld(
    async (w) => {
      await Deno.writeTextFile(`${w.dir}/notes.txt`, "hello\n");
      let batchesWhenAnnounced = -1;
      const loop = w.loop(READ_THEN_ANSWER, {
        emit: (e) => {
          if (e.type === "assistant_message" && textOfEvent(e) === "The notes say hello.") {
            batchesWhenAnnounced = batches.length;
          }
        },
      });
      const run = await loop.run({ messages: [userText("Read my notes")] }, new AbortController().signal);
      assert.equal(run.status, "completed");
      assert.deepEqual(batches.map((b) => [b[0], b.at(-1)]), [
        ["turn_started", "part_created"], // the turn's opening batch with the user's message
        ["message_created", "part_created"], // the answer with its call, before the call runs
        ["message_created", "part_created"], // the tool result
        ["message_created", "turn_completed"], // the final answer and the turn's end
      ]);
      assert.equal(batchesWhenAnnounced, 4, "the final answer is announced once it is durable");
    },
    undefined,
    countingFs,
  );
});

Deno.test("AgentLoop: maxTurns ends the run as failed with max_turns_exceeded", async () => {
  await withWorld(async (w) => {
    await Deno.writeTextFile(`${w.dir}/notes.txt`, "hello\n");
    const run = await w.loop(READ_THEN_ANSWER, { maxTurns: 1 }).run(
      { messages: [userText("Read my notes")] },
      new AbortController().signal,
    );
    assert.equal(run.status, "failed");
    assert.equal(run.error?.type, "max_turns_exceeded");
    assert.equal(run.modelRequests, 1);
    assert.equal((await w.types()).at(-1), "turn_aborted");
    const aborted = w.events.find((e) => e.type === "turn_aborted");
    assert.deepEqual(aborted, {
      type: "turn_aborted",
      sessionId: "session-loop",
      turn: 1,
      cause: "failed",
      reason: "max_turns_exceeded",
    });
  });
});

Deno.test("AgentLoop: an abort while the model streams cancels the turn", async () => {
  const clock = new FakeClock();
  await withWorld(async (w) => {
    const loop = w.loop(`
agents:
  main:
    - turns:
        - text: "Never finishes."
          delay_ms: 60000
`);
    const controller = new AbortController();
    const running = loop.run({ messages: [userText("Take your time")] }, controller.signal);
    // Yield to the transcript's file I/O until the scripted model waits on the (fake) clock.
    while (clock.pendingSleepers === 0) await new Promise((r) => setTimeout(r, 0));
    controller.abort(new Error("user pressed Ctrl-C"));
    const run = await running;
    assert.equal(run.status, "cancelled");
    assert.equal(run.error?.type, "cancelled");
    const read = (await readTranscript(w.ports.fs, w.transcriptPath))!.events;
    const last = read.at(-1)!;
    assert.equal(last.type, "turn_aborted");
    assert.equal(last.type === "turn_aborted" && last.data.cause, "cancelled");
  }, clock);
});

const WRITE_THEN_ANSWER = `
agents:
  main:
    - turns:
        - tool_calls:
            - name: Write
              input: { file_path: "out.txt", content: "x" }
        - text: "Done."
`;

Deno.test("AgentLoop: a call the permission gate denies is an error result, and nothing is written", async () => {
  await withWorld(async (w) => {
    const run = await w.loop(WRITE_THEN_ANSWER).run(
      { messages: [userText("Write it")] },
      new AbortController().signal,
    );
    assert.equal(run.status, "completed");
    assert.equal(run.toolResults[0]!.result.isError, true);
    assert.match(run.toolResults[0]!.result.content, /needs approval in permission mode "default"/);
    assert.equal(await Deno.stat(`${w.dir}/out.txt`).then(() => true, () => false), false);
  });
});

Deno.test("AgentLoop: beforeToolCall runs after the permission gate and can only deny", async () => {
  await withWorld(async (w) => {
    const asked: string[] = [];
    const run = await w.loop(WRITE_THEN_ANSWER, {
      rules: rulesOf({ allow: ["Write"], deny: [], ask: [] }),
      beforeToolCall: ({ call }) => {
        asked.push(call.name);
        return {
          allow: false,
          askable: false,
          message: `${call.name} is refused by the session's own rule.`,
        };
      },
    }).run({ messages: [userText("Write it")] }, new AbortController().signal);
    assert.deepEqual(asked, ["Write"]);
    assert.equal(run.toolResults[0]!.result.content, "Write is refused by the session's own rule.");
    assert.equal(await Deno.stat(`${w.dir}/out.txt`).then(() => true, () => false), false);
    const allowed = await w.loop(WRITE_THEN_ANSWER, {
      rules: rulesOf({ allow: ["Write"], deny: [], ask: [] }),
      beforeToolCall: () => ({ allow: true }),
    }).run({ messages: [userText("Write it")] }, new AbortController().signal);
    assert.equal(allowed.toolResults[0]!.result.isError, false);
    assert.equal(await Deno.readTextFile(`${w.dir}/out.txt`), "x");
    const widened = await w.loop(WRITE_THEN_ANSWER, {
      beforeToolCall: () => {
        asked.push("widened");
        return { allow: true };
      },
    }).run({ messages: [userText("Write it")] }, new AbortController().signal);
    assert.match(
      widened.toolResults[0]!.result.content,
      /needs approval/,
      "the hook cannot allow what the gate denies",
    );
    assert.deepEqual(asked, ["Write"], "a call the gate denied never reaches the hook");
  });
});

Deno.test("AgentLoop: a notice arriving mid-turn joins it before the next request and is acknowledged", async () => {
  await withWorld(async (w) => {
    await Deno.writeTextFile(`${w.dir}/notes.txt`, "hello\n");
    const notice: Delivery = {
      inboxId: "inbox-1",
      message: { role: "user", content: [{ type: "text", text: "Background task finished." }], hidden: true },
      parts: [],
    };
    let offered = false;
    const acknowledged: string[][] = [];
    const pending: PendingWork = {
      running: () => [],
      takeDeliveries: () => Promise.resolve(offered ? [] : (offered = true, [notice])),
      acknowledged: (ids) => (acknowledged.push([...ids]), Promise.resolve()),
      waitForChange: () => Promise.resolve(),
      cancelAll: () => Promise.resolve([]),
    };
    const loop = w.loop(READ_THEN_ANSWER, { pending });
    const run = await loop.run({ messages: [userText("Read my notes")] }, new AbortController().signal);
    assert.equal(run.status, "completed");
    assert.deepEqual(acknowledged, [["inbox-1"]]);
    const read = (await readTranscript(w.ports.fs, w.transcriptPath))!.events;
    const receipt = read.findIndex((e) => e.type === "message_created" && e.data.inboxId === "inbox-1");
    const lastAnswer = read.findLastIndex((e) => e.type === "message_created" && e.data.role === "assistant");
    assert.ok(receipt > 0 && receipt < lastAnswer, "the notice is written before the next answer");
    const ack = read.find((e) => e.type === "inbox_acknowledged");
    assert.deepEqual(ack?.type === "inbox_acknowledged" && ack.data.inboxIds, ["inbox-1"]);
    assert.equal(read.at(-1)!.type, "inbox_acknowledged", "in the same batch as turn_completed");
    assert.ok(loop.messages.some((m) => m.hidden === true), "the model saw the notice");
  });
});

function textOfEvent(e: RuntimeEvent): string {
  return e.type === "assistant_message" ? textOf(e.message) : "";
}

Deno.test("AgentLoop: a tool hears of its call from the arguments' first fields, before the call is complete", async () => {
  await withWorld(async (w) => {
    // The answer stops mid-arguments (the server goes silent after message_start, ping, the call's
    // start and the first half of its arguments): only the leading field has arrived.
    const input = { file_path: "notes.txt", offset: 1, limit: 1_000_000_000 };
    await using server = startFakeAnthropicServer([{
      toolCalls: [{ name: "Read", input }],
      stallAfterEvents: 4,
    }]);
    let heard!: (input: Record<string, unknown>) => void;
    const warmed = new Promise<Record<string, unknown>>((resolve) => (heard = resolve));
    const tools = coreTools().map((t) => t.name === "Read" ? { ...t, warm: heard } : t);
    const transcript = new TranscriptWriter({
      fs: w.ports.fs,
      clock: w.ports.clock,
      ids: w.ports.ids,
      path: w.transcriptPath,
      sessionId: "session-loop",
      projectPath: w.dir,
    });
    const provider = anthropicProvider({ baseUrl: server.url, apiKey: "test", clock: w.ports.clock });
    const loop = testLoop({ ports: w.ports, provider, transcript, dir: w.dir, events: w.events }, { tools });
    const controller = new AbortController();
    const running = loop.run({ messages: [userText("Read the notes")] }, controller.signal);
    // Without the hint the tool would hear of the call only once it is complete, which never comes.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unheard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the tool never heard of its call")), 10_000);
    });
    try {
      assert.deepEqual(await Promise.race([warmed, unheard]), { file_path: "notes.txt" });
    } finally {
      clearTimeout(timer);
      controller.abort(new Error("done"));
    }
    assert.equal((await running).status, "cancelled");
  });
});

Deno.test("AgentLoop: a call may use a tool's older name (Task, KillShell); rules see the tool it names", async () => {
  const ran: string[] = [];
  const recorder = (name: string) => ({
    ...coreTools()[0]!,
    name,
    kind: "delegate" as const,
    run: (input: Record<string, unknown>) => {
      ran.push(`${name} ${JSON.stringify(input)}`);
      return Promise.resolve({ content: `${name} ran`, isError: false });
    },
  });
  const script = `
agents:
  main:
    - turns:
        - tool_calls:
            - name: Task
              input: { file_path: "a" }
            - name: KillShell
              input: { file_path: "b" }
        - text: "Done."
`;
  await withWorld(async (w) => {
    const tools = [recorder("Agent"), recorder("TaskStop")];
    const run = await w.loop(script, { tools }).run(
      { messages: [userText("Go")] },
      new AbortController().signal,
    );
    assert.deepEqual(ran, ['Agent {"file_path":"a"}', 'TaskStop {"file_path":"b"}']);
    assert.deepEqual(run.toolResults.map((r) => r.result.content), ["Agent ran", "TaskStop ran"]);
    // The transcript keeps the name the model used.
    const calls = (await readTranscript(w.ports.fs, w.transcriptPath))!.events.flatMap((e) =>
      e.type === "part_created" && e.data.part.type === "tool_call" ? [e.data.part.name] : []
    );
    assert.deepEqual(calls, ["Task", "KillShell"]);
    const denied = await w.loop(script, { tools, rules: rulesOf({ allow: [], deny: ["Agent"], ask: [] }) })
      .run({ messages: [userText("Go")] }, new AbortController().signal);
    assert.match(denied.toolResults[0]!.result.content, /matches the deny rule Agent/);
  });
});
