// Owns a test barrier on the kernel's lock table: waiting until someone is blocked on a flock of a given
// file or folder. Linux lists every blocked lock request in /proc/locks (a `->` line naming the file's
// device and inode), so a test can hold one party inside its lock until the other is provably waiting
// for it, instead of a sleep that hopes the other got there. Linux only (lockTableReadable says).

const LOCKS = "/proc/locks";

/** Whether this machine shows blocked lock requests (Linux's /proc/locks is readable). */
export function lockTableReadable(): boolean {
  try {
    Deno.readTextFileSync(LOCKS);
    return true;
  } catch {
    return false;
  }
}

/** `MAJOR:MINOR:INODE` as /proc/locks writes it (major and minor in hex, at least two digits). */
function fileId(info: Deno.FileInfo): string {
  const dev = info.dev;
  const major = Math.floor(dev / 256) & 0xfff;
  const minor = (dev & 0xff) | (Math.floor(dev / 4096) & 0xfff00);
  const hex = (n: number) => n.toString(16).padStart(2, "0");
  return `${hex(major)}:${hex(minor)}:${info.ino}`;
}

/**
 * Resolves with "waiting" once some process or thread is blocked on a flock of `path` (which must exist
 * now: the lock is held), or with "settled" when `until` settles first (the other party finished
 * without waiting: nothing made it wait). Fails after `timeoutMs` (default 10 s) with neither.
 */
export async function lockWaiter(
  path: string,
  options: { until?: Promise<unknown>; timeoutMs?: number } = {},
): Promise<"waiting" | "settled"> {
  const id = ` ${fileId(await Deno.stat(path))} `;
  let settled = false;
  options.until?.then(() => settled = true, () => settled = true);
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (Date.now() < deadline) {
    const table = await Deno.readTextFile(LOCKS);
    if (table.split("\n").some((line) => line.includes("-> FLOCK") && line.includes(id))) return "waiting";
    if (settled) return "settled";
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`nobody blocked on a lock of ${path} within ${options.timeoutMs ?? 10_000} ms`);
}
