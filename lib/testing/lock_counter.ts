// Concurrency helper (lib/sys/fs_lock_test.ts): increments the number in `counterPath` `count` times,
// each time under the transient lock `lockPath` (read, then write + 1), so several of these processes
// race on one lock file that every holder removes when it releases it. A lost update means two
// processes held the lock at once.
// Usage: deno run --allow-read=<dir> --allow-write=<dir> lock_counter.ts <lockPath> <counterPath> <count>

import { realFs } from "../sys/fs.ts";

async function main(args: string[]): Promise<void> {
  const [lockPath, counterPath, countText] = args;
  if (lockPath === undefined || counterPath === undefined || countText === undefined) {
    throw new Error("usage: lock_counter.ts <lockPath> <counterPath> <count>");
  }
  const fs = realFs();
  for (let n = 0; n < Number(countText); n++) {
    await fs.withLockedFile(lockPath, async () => {
      const now = Number((await fs.readTextIfExists(counterPath)) ?? "0");
      await fs.writeText(counterPath, String(now + 1));
    }, { transient: true });
  }
}

if (import.meta.main) await main(Deno.args);
