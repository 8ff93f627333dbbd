// Mounts for tests that need a real file system refusing writes: a small tmpfs (a disk that fills) and
// bind mounts turned read-only (before or during a run). They need root in a namespace that allows
// mounting; every helper answers false instead of throwing when the machine refuses.

async function run(cmd: string, args: string[]): Promise<boolean> {
  const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output().catch(() =>
    null
  );
  return out?.success === true;
}

/** Mounts a tmpfs of `size` (e.g. "2m") on `dir`. */
export function mountTmpfs(dir: string, size: string): Promise<boolean> {
  return run("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir]);
}

/** Bind-mounts `dir` on itself, read-only from the start. */
export function mountReadOnly(dir: string): Promise<boolean> {
  return run("mount", ["--bind", "-o", "ro", dir, dir]);
}

/** Bind-mounts `dir` on itself (writable), so that `remount` can later turn it read-only and back. */
export function bindMount(dir: string): Promise<boolean> {
  return run("mount", ["--bind", dir, dir]);
}

/**
 * Turns a bind mount of `dir` read-only or writable again. The kernel refuses to make a mount read-only
 * (EBUSY) while a file on it is open for writing (a run holding its transcript's lock), so this tries
 * again every 5 ms for up to `timeoutMs`.
 */
export async function remount(dir: string, mode: "ro" | "rw", timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await run("mount", ["-o", `remount,bind,${mode}`, dir]))) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}

/** Unmounts `dir` (lazily: a process that still has a file open there does not block it). */
export function unmount(dir: string): Promise<boolean> {
  return run("umount", ["-l", dir]);
}

/** Whether this machine lets tests mount (probed once with a tiny tmpfs). */
export async function canMount(): Promise<boolean> {
  if (Deno.build.os !== "linux") return false;
  const dir = await Deno.makeTempDir({ prefix: "blade-mount-probe-" });
  try {
    const ok = await mountTmpfs(dir, "64k");
    if (ok) await unmount(dir);
    return ok;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** KiB free on the file system holding `dir` (df). */
export async function freeKiB(dir: string): Promise<number> {
  const out = await new Deno.Command("df", { args: ["--output=avail", "-k", dir], stdout: "piped" }).output();
  return Number(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1));
}
