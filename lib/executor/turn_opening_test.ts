// Tests of a turn's opening (turn_opening.ts): the ordering rule as a table over TurnOpening, then
// through AgentLoop with the scripted provider and a real transcript whose opening append is held
// (and failed the way a full disk fails it, lib/testing/fault_fs.ts): the first request goes out while
// the batch is written, nothing of its answer is shown before the batch is durable, and a failed batch
// fails the run with the write's error, aborts the request and shows nothing.

import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { realPorts } from "../sys/mod.ts";
import type { Ports } from "../sys/mod.ts";
import type { LockedFile } from "../sys/fs.ts";
import { FakeClock } from "../testing/fakes.ts";
import { FaultFs } from "../testing/fault_fs.ts";
import { userText } from "../protocol/messages.ts";
import type { Provider } from "../protocol/provider.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import { scriptedProvider } from "../provider/scripted.ts";
import { loadScript } from "../provider/script_schema.ts";
import { readTranscript, TranscriptWriter } from "../session/transcript.ts";
import type { AgentLoop } from "./loop.ts";
import { testLoop } from "../testing/test_loop.ts";
import { TurnOpening } from "./turn_opening.ts";

type Step = { emit: string } | "durable" | "fails";

const CASES: { name: string; steps: Step[]; delivered: string[]; aborted: boolean }[] = [
  {
    name: "held until durable, in order, then passed through",
    steps: [{ emit: "a" }, { emit: "b" }, "durable", { emit: "c" }],
    delivered: ["a", "b", "c"],
    aborted: false,
  },
  {
    name: "durable before anything is emitted",
    steps: ["durable", { emit: "a" }],
    delivered: ["a"],
    aborted: false,
  },
  {
    name: "a failed write drops what was held",
    steps: [{ emit: "a" }, "fails"],
    delivered: [],
    aborted: true,
  },
  {
    name: "a failed write drops what comes after",
    steps: [{ emit: "a" }, "fails", { emit: "b" }],
    delivered: [],
    aborted: true,
  },
];

for (const c of CASES) {
  Deno.test(`TurnOpening: ${c.name}`, async () => {
    let settle: { resolve: () => void; reject: (e: Error) => void } | undefined;
    const write = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    const opening = new TurnOpening(() => write);
    const run = new AbortController();
    const request = opening.signal(run.signal);
    const delivered: string[] = [];
    const sink = opening.hold((v: string) => delivered.push(v));
    const failure = new Error("disk full");
    for (const step of c.steps) {
      if (step === "durable") {
        settle!.resolve();
        await opening.durable;
      } else if (step === "fails") {
        settle!.reject(failure);
        await assert.rejects(opening.durable, (e) => e === failure);
      } else sink(step.emit);
    }
    assert.deepEqual(delivered, c.delivered);
    assert.equal(request.aborted, c.aborted);
    if (c.aborted) assert.equal(request.reason, failure);
    assert.equal(run.signal.aborted, false, "the run's own signal is never aborted by it");
    assert.equal(opening.state, c.aborted ? "failed" : "durable");
  });
}

Deno.test("TurnOpening: once durable, the request's signal is the run's own", async () => {
  const opening = new TurnOpening(() => Promise.resolve());
  await opening.durable;
  const run = new AbortController();
  assert.equal(opening.signal(run.signal), run.signal);
});

/** The loop over a real transcript whose first append waits for `release` (and then fails, with a fault). */
async function withHeldOpening(
  yaml: string,
  fn: (h: {
    loop: AgentLoop;
    events: RuntimeEvent[];
    release: () => void;
    /** Whether the provider's answer has been streamed to its end. */
    streamed: () => boolean;
    clock: FakeClock;
    path: string;
    ports: Ports;
  }) => Promise<void>,
  fault = false,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-opening-" }));
  const real = realPorts();
  const path = `${dir}/session.jsonl`;
  const faults = new FaultFs(
    real.fs,
    fault ? [{ op: "append", path: (p) => p === path, code: "ENOSPC" }] : [],
  );
  let release = () => {};
  const released = new Promise<void>((r) => (release = r));
  let appends = 0;
  const clock = new FakeClock();
  const ports: Ports = {
    ...real,
    clock,
    fs: {
      ...faults.fs,
      withLockedFile: (p, body, options) =>
        faults.fs.withLockedFile(p, (file) =>
          body(
            {
              ...file,
              append: async (text, o) => {
                if (appends++ === 0) await released;
                return await file.append(text, o);
              },
            } satisfies LockedFile,
          ), options),
    },
  };
  const loaded = loadScript(yaml, "turn_opening_test.yaml");
  if (loaded instanceof BladeError) throw loaded;
  const scripted = scriptedProvider(loaded.script, { clock });
  let streamed = false;
  const provider: Provider = {
    ...scripted,
    async *stream(request, options) {
      for await (const event of scripted.stream(request, options)) {
        if (event.type === "done") streamed = true;
        yield event;
      }
    },
  };
  const events: RuntimeEvent[] = [];
  const transcript = new TranscriptWriter({
    fs: ports.fs,
    clock,
    ids: ports.ids,
    path,
    sessionId: "session-opening",
    projectPath: dir,
  });
  const loop = testLoop({ ports, provider, transcript, dir, events });
  try {
    await fn({ loop, events, release, streamed: () => streamed, clock, path, ports });
  } finally {
    release();
    await Deno.remove(dir, { recursive: true });
  }
}

const ANSWER = `
agents:
  main:
    - turns:
        - text: "Hello there."
`;

const SLOW_ANSWER = `
agents:
  main:
    - turns:
        - text: "Never shown."
          delay_ms: 60000
`;

/**
 * Yields to I/O until `done()` (no clock is involved: each round lets pending file operations finish);
 * fails after many rounds instead of hanging (the loop never got there).
 */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let round = 0; !done(); round++) {
    if (round > 1_000) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 0));
  }
}

Deno.test("AgentLoop: the first request goes out while the opening batch is written; its answer waits for the batch", async () => {
  await withHeldOpening(ANSWER, async (h) => {
    const running = h.loop.run({ messages: [userText("Say hello")] }, new AbortController().signal);
    await until(h.streamed, "the answer streamed while the opening batch was held");
    assert.deepEqual(
      h.events.map((e) => e.type),
      [],
      "nothing is announced before the opening batch is durable",
    );
    assert.equal(await Deno.readTextFile(h.path).catch(() => ""), "", "nothing of the answer is written");
    h.release();
    const run = await running;
    assert.equal(run.status, "completed");
    assert.equal(run.finalText, "Hello there.");
    const types = h.events.map((e) => e.type);
    assert.equal(types[0], "turn_started");
    assert.ok(
      types.indexOf("text_delta") > 0 && types.indexOf("assistant_message") > types.indexOf("text_delta"),
    );
    const read = (await readTranscript(h.ports.fs, h.path))!.events.map((e) => e.type);
    assert.equal(read[0], "turn_started");
    assert.equal(read.at(-1), "turn_completed");
  });
});

Deno.test("AgentLoop: an opening batch that cannot be written fails the run with its error and shows nothing of the answer", async () => {
  await withHeldOpening(ANSWER, async (h) => {
    const running = h.loop.run({ messages: [userText("Say hello")] }, new AbortController().signal);
    await until(h.streamed, "the answer streamed while the opening batch was held");
    h.release();
    await assert.rejects(running, (e: Error) => /No space left on device/.test(e.message));
    assert.deepEqual(h.events.map((e) => e.type), [], "no event of the turn reached the sink");
    assert.equal(await Deno.readTextFile(h.path).catch(() => ""), "");
  }, true);
});

Deno.test("AgentLoop: an opening batch that cannot be written aborts the request in flight", async () => {
  await withHeldOpening(SLOW_ANSWER, async (h) => {
    const running = h.loop.run({ messages: [userText("Take your time")] }, new AbortController().signal);
    // The scripted model waits on the fake clock: the request is in flight.
    await until(() => h.clock.pendingSleepers > 0, "the request went out while the opening batch was held");
    h.release();
    await assert.rejects(running, (e: Error) => /No space left on device/.test(e.message));
    assert.equal(h.clock.pendingSleepers, 0, "the request was aborted, not left waiting");
    assert.deepEqual(h.events.map((e) => e.type), []);
  }, true);
});

Deno.test("TurnOpening: `handed` resolves when the bytes are written, or when the write fails before that", async () => {
  let written = () => {};
  let done = () => {};
  const opening = new TurnOpening((onWritten) => {
    written = onWritten;
    return new Promise<void>((resolve) => (done = resolve));
  });
  let handed = false;
  opening.handed.then(() => (handed = true));
  await Promise.resolve();
  assert.equal(handed, false);
  written();
  await opening.handed;
  assert.equal(opening.state, "writing", "written is not durable");
  done();
  await opening.durable;

  const failing = new TurnOpening(() => Promise.reject(new Error("cannot open")));
  await failing.handed;
  await assert.rejects(failing.durable, /cannot open/);
});
