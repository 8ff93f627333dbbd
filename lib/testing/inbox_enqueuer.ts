// Concurrency helper (lib/session/inbox_test.ts): enqueues `count` completion entries, one after
// another, into one inbox file through the real Fs port, so several of these processes race on it.
// Usage: deno run --allow-read=<dir> --allow-write=<dir> inbox_enqueuer.ts <inboxPath> <writer> <count>
// Entry ids are `<writer>-<n>` (n = 0…count-1). Exits non-zero when any enqueue is refused.

import { Inbox } from "../session/inbox.ts";
import { realClock } from "../sys/clock.ts";
import { realFs } from "../sys/fs.ts";

async function main(args: string[]): Promise<void> {
  const [path, writer, countText] = args;
  if (path === undefined || writer === undefined || countText === undefined) {
    throw new Error("usage: inbox_enqueuer.ts <inboxPath> <writer> <count>");
  }
  const inbox = new Inbox({ fs: realFs(), clock: realClock(), path });
  for (let n = 0; n < Number(countText); n++) {
    const result = await inbox.enqueue({
      inboxId: `${writer}-${n}`,
      kind: "completion",
      text: `completion ${n} from ${writer}`,
      createdAt: n,
      agentId: writer,
    });
    if (!result.accepted || result.duplicate) throw new Error(`${writer}-${n}: ${JSON.stringify(result)}`);
  }
}

if (import.meta.main) await main(Deno.args);
