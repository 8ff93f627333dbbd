// End-to-end: the transcript file format under real conditions (docs/reference/sessions.md, docs/reference/recovery.md): a torn last line is
// reported and everything before it kept; real processes appending to one file never interleave lines
// and share one gapless `seq`; a torn line left by a killed writer stays on its own line; an append a
// full disk cuts short is rolled back.

import assert from "node:assert/strict";
import type { TranscriptEvent } from "../lib/protocol/events.ts";
import {
  parseTranscript,
  readTranscript,
  readTranscriptAndEnd,
  TranscriptWriter,
  type TranscriptWriterOptions,
} from "../lib/session/transcript.ts";
import type { Fs } from "../lib/sys/fs.ts";
import { realPorts } from "../lib/sys/mod.ts";
import { appenderEvent } from "./support/transcript_appender.ts";
import { FaultFs } from "../lib/testing/fault_fs.ts";

const APPENDER = new URL("./support/transcript_appender.ts", import.meta.url);
const CONFIG = decodeURIComponent(new URL("../deno.json", import.meta.url).pathname);

function envelope(seq: number, event: { type: TranscriptEvent["type"]; data: unknown }): string {
  return JSON.stringify({
    seq,
    id: `id-${seq}`,
    sessionId: "session-handwrittentranscript1",
    projectPath: "/e2e/transcript",
    timestamp: "2026-01-01T00:00:00.000Z",
    type: event.type,
    data: event.data,
  });
}

function appenderCommand(dir: string, args: string[], options: { wait?: boolean } = {}): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      "--config",
      CONFIG,
      APPENDER.href,
      ...args,
      ...(options.wait === true ? ["--wait"] : []),
    ],
    stdin: options.wait === true ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  });
}

Deno.test("transcript: a torn last line is reported and every line before it is kept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-transcript-" });
  try {
    const lines = [
      envelope(1, { type: "session_created", data: { agentType: "main", model: "m", depth: 0 } }),
      envelope(2, { type: "turn_started", data: { turn: 1 } }),
      "{not json",
      envelope(3, {
        type: "turn_completed",
        data: {
          turn: 1,
          turns: 1,
          toolCalls: 0,
          durationMs: 5,
          usage: { inputTokens: 1, outputTokens: 1 },
        },
      }),
    ];
    const torn = envelope(4, { type: "turn_started", data: { turn: 2 } }).slice(0, 40);
    const path = `${dir}/session.jsonl`;
    await Deno.writeTextFile(path, lines.join("\n") + "\n" + torn);

    const read = await readTranscript(realPorts().fs, path);
    assert.ok(read !== null);
    assert.deepEqual(read.events.map((e) => [e.seq, e.type]), [
      [1, "session_created"],
      [2, "turn_started"],
      [3, "turn_completed"],
    ]);
    assert.deepEqual(read.events, [lines[0], lines[1], lines[3]].map((l) => JSON.parse(l!)));
    assert.deepEqual(read.diagnostics.map((d) => [d.line, d.kind]), [[3, "invalid_line"], [
      5,
      "torn_last_line",
    ]]);
    assert.match(read.diagnostics[1]!.message, /line 5 was cut short/);
    assert.deepEqual(parseTranscript(lines.join("\n") + "\n" + torn), read);

    // A complete last line without its newline is kept, and still reported.
    const unterminated = parseTranscript(lines[0] + "\n" + lines[1]);
    assert.deepEqual(unterminated.events.map((e) => e.seq), [1, 2]);
    assert.deepEqual(unterminated.diagnostics.map((d) => [d.line, d.kind]), [[2, "torn_last_line"]]);
    assert.equal(await readTranscript(realPorts().fs, `${dir}/missing.jsonl`), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("transcript: 4 processes appending 200 events each never interleave; seq is exactly 1..800", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-transcript-" });
  const path = `${dir}/shared.jsonl`;
  const writers = ["w0", "w1", "w2", "w3"];
  try {
    const children = writers.map((w) => appenderCommand(dir, [path, w, "200"], { wait: true }).spawn());
    // Start all four together, once each is loaded and waiting.
    const readers = children.map((child) => child.stdout.pipeThrough(new TextDecoderStream()).getReader());
    for (const reader of readers) assert.deepEqual(await reader.read(), { value: "ready\n", done: false });
    await Promise.all(children.map(async (child) => {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode("go\n"));
      await writer.close();
    }));
    const outputs = await Promise.all(children.map(async (child, i) => {
      const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
      await readers[i]!.cancel();
      return { code: status.code, stderr };
    }));
    assert.deepEqual(outputs, writers.map(() => ({ code: 0, stderr: "" })));

    const text = await Deno.readTextFile(path);
    assert.ok(text.endsWith("\n"));
    const lines = text.slice(0, -1).split("\n");
    assert.equal(lines.length, 800);
    const events = lines.map((line, i) => {
      try {
        return JSON.parse(line) as TranscriptEvent;
      } catch {
        throw new Error(`line ${i + 1} is not one JSON object: ${line.slice(0, 120)}…`);
      }
    });
    assert.deepEqual(parseTranscript(text).diagnostics, []);
    assert.deepEqual(events.map((e) => e.seq), Array.from({ length: 800 }, (_, i) => i + 1));
    assert.equal(new Set(events.map((e) => e.id)).size, 800);
    for (const w of writers) {
      const mine = events.filter((e) => e.type === "part_created" && e.data.messageId === `msg-${w}`);
      assert.deepEqual(
        mine.map((e) => e.data),
        Array.from({ length: 200 }, (_, i) => appenderEvent(w, i).data),
        `${w}'s events are all there, in its order, unchanged`,
      );
    }
    // Batches are atomic: writers take turns between batches only (1, 2, 3, 1, 2, 3, … events each).
    const runs: { writer: string; length: number }[] = [];
    for (const e of events) {
      const writer = e.type === "part_created" ? e.data.messageId : "?";
      const last = runs.at(-1);
      if (last?.writer === writer) last.length++;
      else runs.push({ writer, length: 1 });
    }
    assert.ok(runs.length > 4, "the writers really ran at the same time");
    const batchEnds = new Set<number>();
    for (let end = 0, batch = 0; end < 200; batch++) {
      batchEnds.add(end = Math.min(200, end + 1 + (batch % 3)));
    }
    for (const w of writers) {
      let end = 0;
      for (const run of runs.filter((r) => r.writer === `msg-${w}`)) {
        end += run.length;
        assert.ok(batchEnds.has(end), `${w}: a batch was split by another writer (after its event ${end})`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("transcript: a torn line left by a killed writer stays on its own line; later appends go on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-transcript-" });
  const path = `${dir}/session.jsonl`;
  try {
    const ports = realPorts();
    const writer = new TranscriptWriter({
      fs: ports.fs,
      clock: ports.clock,
      ids: ports.ids,
      path,
      sessionId: "session-transcriptappendertest",
      projectPath: "/e2e/transcript",
    });
    await writer.append([appenderEvent("before", 0), appenderEvent("before", 1)]);
    // What a writer killed in the middle of a line leaves behind: bytes without a newline.
    const torn = JSON.stringify({ seq: 3, id: "torn", type: "part_created", data: { partId: "torn" } }).slice(
      0,
      50,
    );
    const file = await Deno.open(path, { append: true });
    await file.write(new TextEncoder().encode(torn));
    file.close();

    // Another process appends next, then this (stale) writer again.
    const other = await appenderCommand(dir, [path, "later", "3"]).output();
    assert.equal(other.code, 0, new TextDecoder().decode(other.stderr));
    await writer.append([appenderEvent("again", 0)]);

    const text = await Deno.readTextFile(path);
    const lines = text.slice(0, -1).split("\n");
    assert.equal(lines.length, 7);
    assert.equal(lines[2], torn, "the torn bytes stay alone on their line");
    const read = parseTranscript(text);
    assert.deepEqual(read.diagnostics.map((d) => [d.line, d.kind]), [[3, "invalid_line"]]);
    assert.deepEqual(
      read.events.map((e) => [e.seq, e.type === "part_created" ? e.data.partId : e.type]),
      [[1, "before-0"], [2, "before-1"], [3, "later-0"], [4, "later-1"], [5, "later-2"], [6, "again-0"]],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("transcript: an append the disk cuts mid-line is rolled back; the next append continues the seq", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-transcript-full-" });
  try {
    const real = realPorts();
    const path = `${dir}/session-diskfull.jsonl`;
    const faults = new FaultFs(real.fs);
    const writer = new TranscriptWriter({
      ...real,
      fs: faults.fs,
      path,
      sessionId: "session-diskfull",
      projectPath: dir,
    });
    await writer.append([appenderEvent("w", 1), appenderEvent("w", 2)]);
    const before = await Deno.readTextFile(path);
    // The disk fills after 100 bytes of the next batch: the append fails and nothing of it stays.
    faults.arm({ op: "append", path: (p) => p === path, code: "ENOSPC", tornBytes: 100 });
    await assert.rejects(writer.append([appenderEvent("w", 3), appenderEvent("w", 4)]), (e: Error) => {
      assert.equal((e as { code?: string }).code, "ENOSPC");
      return true;
    });
    assert.deepEqual(faults.hits.map((h) => h.op), ["append"]);
    assert.equal(await Deno.readTextFile(path), before, "the file is exactly as before the failed append");
    faults.disarm();
    await writer.append([appenderEvent("w", 5)]);
    const read = parseTranscript(await Deno.readTextFile(path));
    assert.deepEqual(read.diagnostics, []);
    assert.deepEqual(read.events.map((e) => [e.seq, (e.data as { partId: string }).partId]), [
      [1, "w-1"],
      [2, "w-2"],
      [3, "w-5"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("transcript: a writer given the end it was read at appends without re-reading, and still sees a later write", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-transcript-after-" });
  try {
    const ports = realPorts();
    const path = `${dir}/t.jsonl`;
    const lines = [
      envelope(1, { type: "session_created", data: { agentType: "main", model: "m", depth: 0 } }),
      envelope(2, { type: "turn_started", data: { turn: 1 } }),
    ];
    await Deno.writeTextFile(path, lines.join("\n") + "\n");
    const got = await readTranscriptAndEnd(ports.fs, path);
    assert.ok(got !== null);
    assert.deepEqual(got.end, { size: (await Deno.stat(path)).size, lastSeq: 2, endsWithNewline: true });
    assert.deepEqual(got.read, await readTranscript(ports.fs, path));
    const writer = (after: typeof got.end) =>
      new TranscriptWriter({
        fs: ports.fs,
        clock: ports.clock,
        ids: ports.ids,
        path,
        sessionId: "session-handwrittentranscript1",
        projectPath: "/e2e/transcript",
        after,
      });
    // Reading back would be seen: the file is not read when its size is what was read.
    const reads: string[] = [];
    const counting = {
      ...ports.fs,
      withLockedFile: <T>(
        p: string,
        fn: Parameters<typeof ports.fs.withLockedFile<T>>[1],
        o?: { mode?: number },
      ) =>
        ports.fs.withLockedFile<T>(p, (file) =>
          fn({
            ...file,
            size: () => file.size(),
            readFrom: (offset) => {
              reads.push(p);
              return file.readFrom(offset);
            },
            append: (t, a) => file.append(t, a),
            truncate: (s) => file.truncate(s),
          }), o),
    };
    const seeded = new TranscriptWriter({
      fs: counting,
      clock: ports.clock,
      ids: ports.ids,
      path,
      sessionId: "session-handwrittentranscript1",
      projectPath: "/e2e/transcript",
      after: got.end,
    });
    const [closed] = await seeded.append([{
      type: "turn_aborted",
      data: { turn: 1, cause: "process_restart", reason: "x" },
    }]);
    assert.equal(closed?.seq, 3);
    assert.deepEqual(reads, [], "nothing read back");
    // A stale end (the file grew since): the writer reads what was added and numbers after it.
    await Deno.writeTextFile(path, envelope(4, { type: "turn_started", data: { turn: 2 } }) + "\n", {
      append: true,
    });
    const [late] = await writer(got.end).append([{ type: "turn_started", data: { turn: 3 } }]);
    assert.equal(late?.seq, 5);
    assert.deepEqual(parseTranscript(await Deno.readTextFile(path)).diagnostics, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A writer of the hand-written test session at `path`, over `fs` and the real clock and ids. */
function testWriter(
  fs: Fs,
  path: string,
  extra: Pick<TranscriptWriterOptions, "after" | "syncMadeFolder" | "folderExists"> = {},
): TranscriptWriter {
  const { clock, ids } = realPorts();
  return new TranscriptWriter({
    fs,
    clock,
    ids,
    path,
    sessionId: "session-handwrittentranscript1",
    projectPath: "/e2e/transcript",
    ...extra,
  });
}

Deno.test("transcript: a writer makes its folder once, not per batch, and again when it was removed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-transcript-dir-" });
  try {
    const ports = realPorts();
    const ensured: string[] = [];
    const fs = {
      ...ports.fs,
      ensureDir: (p: string, m?: number) => (ensured.push(p), ports.fs.ensureDir(p, m)),
    };
    const path = `${dir}/p/t.jsonl`;
    const writer = testWriter(fs, path);
    await writer.append([{ type: "session_created", data: { agentType: "main", model: "m", depth: 0 } }]);
    await writer.append([{ type: "turn_started", data: { turn: 1 } }]);
    assert.deepEqual(ensured, [`${dir}/p`], "made once for two batches");
    assert.equal((await Deno.stat(`${dir}/p`)).mode! & 0o777, 0o700);
    await Deno.remove(`${dir}/p`, { recursive: true });
    const [next] = await writer.append([{ type: "turn_started", data: { turn: 2 } }]);
    assert.deepEqual(ensured, [`${dir}/p`, `${dir}/p`], "made again once it was gone");
    assert.equal(next?.seq, 3, "the seq goes on");
    const read = parseTranscript(await Deno.readTextFile(path));
    assert.deepEqual(read.events.map((e) => e.seq), [3]);
    // A writer seeded with the end it read knows the folder exists: nothing is made.
    const got = await readTranscriptAndEnd(ports.fs, path);
    ensured.length = 0;
    await testWriter(fs, path, { after: got!.end }).append([{ type: "turn_started", data: { turn: 3 } }]);
    assert.deepEqual(ensured, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("transcript: a writer told its folder exists makes none, fsyncs it for a new file, and makes it when it is gone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-transcript-known-" });
  try {
    const ports = realPorts();
    const ensured: string[] = [];
    const synced: string[] = [];
    const fs = {
      ...ports.fs,
      ensureDir: (p: string, m?: number) => (ensured.push(p), ports.fs.ensureDir(p, m)),
      syncDir: (p: string) => (synced.push(p), ports.fs.syncDir(p)),
    };
    const started = (turn: number) => [{ type: "turn_started" as const, data: { turn } }];
    // A child's writer: its folder is its parent's, already there.
    await Deno.mkdir(`${dir}/p`);
    await testWriter(fs, `${dir}/p/c.jsonl`, { folderExists: true }).append(started(1));
    assert.deepEqual(ensured, [], "nothing made");
    assert.deepEqual(synced, [`${dir}/p`], "the new file's name is still made durable");
    // Told wrongly (the folder was removed): the open fails, the folder is made, the batch is written.
    const [first] = await testWriter(fs, `${dir}/q/c.jsonl`, { folderExists: true }).append(started(1));
    assert.deepEqual(ensured, [`${dir}/q`]);
    assert.equal(first?.seq, 1);
    assert.deepEqual(parseTranscript(await Deno.readTextFile(`${dir}/q/c.jsonl`)).events.map((e) => e.seq), [
      1,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("transcript: a new file's first batch fsyncs its folder too (the main session's writer also the parent of a folder it made); later batches only the file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-transcript-name-" });
  try {
    const ports = realPorts();
    const synced: string[] = [];
    const faults = new FaultFs(ports.fs);
    const fs = { ...faults.fs, syncDir: (p: string) => (synced.push(p), faults.fs.syncDir(p)) };
    const writer = (path: string) => testWriter(fs, path, { syncMadeFolder: true });
    const started = (turn: number) => [{ type: "turn_started" as const, data: { turn } }];
    // A folder the writer makes: the file's name lives in it, and the folder's name in its parent.
    const fresh = writer(`${dir}/p/t.jsonl`);
    await fresh.append(started(1));
    assert.deepEqual(synced.sort(), [dir, `${dir}/p`]);
    await fresh.append(started(2));
    assert.equal(synced.length, 2, "a batch appended to a file with lines fsyncs only the file");

    // A folder that was there: only it. A failed folder fsync fails the batch, which is rolled back.
    synced.length = 0;
    faults.arm({ op: "syncDir", path: (p) => p === `${dir}/p`, code: "EROFS" });
    const second = writer(`${dir}/p/u.jsonl`);
    await assert.rejects(second.append(started(1)), (e: Error) => {
      assert.equal((e as { code?: string }).code, "EROFS");
      return true;
    });
    assert.deepEqual(synced, [`${dir}/p`]);
    assert.equal(await Deno.readTextFile(`${dir}/p/u.jsonl`), "", "nothing of the failed batch stays");
    faults.disarm();
    const [first] = await second.append(started(1));
    assert.equal(first?.seq, 1, "the failed batch used up no seq");
    assert.deepEqual(
      synced,
      [`${dir}/p`, `${dir}/p`],
      "the file is still empty: its folder is fsynced again",
    );

    // A child's writer (no syncMadeFolder) that has to make its folder fsyncs only that folder.
    synced.length = 0;
    await testWriter(fs, `${dir}/q/c.jsonl`).append(started(1));
    assert.deepEqual(synced, [`${dir}/q`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
