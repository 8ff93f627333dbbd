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

/** Turns a bind mount of `dir` read-only or writable again, while files on it may be open. */
export function remount(dir: string, mode: "ro" | "rw"): Promise<boolean> {
  return run("mount", ["-o", `remount,bind,${mode}`, dir]);
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
