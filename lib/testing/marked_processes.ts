// Owns finding a test's processes by a marker in their command line (test-only). A command run in
// the OS sandbox sees its own PID namespace, so a PID it records (`$$`, `$!`) names nothing outside:
// tests start `sleep <marker>` instead and look for it with `ps` (Deno reads /proc/<pid>/ only with
// --allow-all, which the test task does not grant).

/** A `sleep` argument no other process has: 300 s and a random fraction. */
export function sleepMarker(): string {
  return `300.${crypto.getRandomValues(new Uint32Array(1))[0]!.toString().padStart(10, "0")}`;
}

/** The live (non-zombie) processes whose command line holds `marker`, as `ps` lines. */
export async function processesWith(marker: string): Promise<string[]> {
  const out = await new Deno.Command("ps", { args: ["-e", "-o", "pid=,stat=,args="], stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((line) => {
    const [, stat] = line.trim().split(/\s+/);
    return line.includes(marker) && stat !== undefined && !stat.startsWith("Z") && !line.includes("ps -e");
  });
}

/** Waits (polling, up to ~10 s: SIGKILL lands asynchronously) until no process holds `marker`; throws naming survivors. */
export async function assertNoProcessWith(marker: string): Promise<void> {
  let left = await processesWith(marker);
  for (let i = 0; i < 200 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
    left = await processesWith(marker);
  }
  for (const line of left) {
    try {
      Deno.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
    } catch { /* gone meanwhile */ }
  }
  if (left.length > 0) throw new Error(`processes survived: ${left.join("; ")}`);
}

/**
 * Waits until `sleep <marker>` itself runs (the command really started). A wrapper whose command line
 * also holds the marker (bwrap, `bash -c`) is not enough: until bwrap has run its own
 * `--die-with-parent` set-up, a kill of its parent may leave it behind, so a test that kills then would
 * test that window, not the sandbox.
 */
export async function waitForProcessWith(marker: string): Promise<void> {
  const itself = (line: string) => line.trim().split(/\s+/).slice(2).join(" ") === `sleep ${marker}`;
  for (let i = 0; i < 400; i++) {
    if ((await processesWith(marker)).some(itself)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no process with ${marker} started`);
}
