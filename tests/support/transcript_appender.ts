// Transcript test writer (tests/transcript_test.ts): appends events to one transcript through the real
// TranscriptWriter and real ports, in batches of 1, 2 and 3 events, so several of these processes can
// race on the same file. Each event names its writer and index; the lines are long (about 2 KiB) so that
// unlocked writes would interleave.
// Usage: deno run --allow-read=<dir> --allow-write=<dir> transcript_appender.ts <file> <writer> <count> [--wait]
// With --wait it prints "ready" and starts when a line arrives on stdin.

import type { NewTranscriptEvent } from "../../lib/protocol/events.ts";
import { TranscriptWriter } from "../../lib/session/transcript.ts";
import { realPorts } from "../../lib/sys/mod.ts";

/** Event `index` of `writer`: a text part whose partId is `<writer>-<index>`. */
export function appenderEvent(writer: string, index: number): NewTranscriptEvent {
  return {
    type: "part_created",
    data: {
      messageId: `msg-${writer}`,
      partId: `${writer}-${index}`,
      part: { type: "text", text: `${writer} event ${index} `.repeat(100) },
    },
  };
}

async function main(args: string[]): Promise<void> {
  const [path, writer, countText, flag] = args;
  const count = Number(countText);
  if (path === undefined || writer === undefined || !Number.isInteger(count) || count < 0) {
    throw new Error("usage: transcript_appender.ts <file> <writer> <count> [--wait]");
  }
  const ports = realPorts();
  const transcript = new TranscriptWriter({
    fs: ports.fs,
    clock: ports.clock,
    ids: ports.ids,
    path,
    sessionId: "session-transcriptappendertest",
    projectPath: "/e2e/transcript",
  });
  if (flag === "--wait") {
    await Deno.stdout.write(new TextEncoder().encode("ready\n"));
    const reader = Deno.stdin.readable.getReader();
    await reader.read();
    reader.releaseLock();
  }
  let index = 0;
  for (let batch = 0; index < count; batch++) {
    const size = Math.min(1 + (batch % 3), count - index);
    const events = Array.from({ length: size }, (_, i) => appenderEvent(writer, index + i));
    await transcript.append(events);
    index += size;
  }
}

if (import.meta.main) await main(Deno.args);
