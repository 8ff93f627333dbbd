// Owns finding out whether this machine can sandbox commands (docs/reference/permissions.md "The OS
// sandbox"): bubblewrap on Linux (it needs user namespaces, or root), sandbox-exec on macOS. The
// answer is probed once per thread by running the sandbox on `true`, and cached. Does not build
// policies (permissions/command_sandbox.ts).

export type OsSandboxKind = "bwrap" | "sandbox-exec";

let probed: Promise<OsSandboxKind | undefined> | undefined;

/** The sandbox this machine can run commands in, or undefined (rule-only mode). */
export function osSandbox(): Promise<OsSandboxKind | undefined> {
  return probed ??= probe();
}

async function probe(): Promise<OsSandboxKind | undefined> {
  const os = Deno.build.os;
  const [program, args]: [string, string[]] | [undefined, undefined] = os === "linux"
    ? ["bwrap", [
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--unshare-pid",
      "--unshare-net",
      "--die-with-parent",
      "--",
      "true",
    ]]
    : os === "darwin"
    ? ["sandbox-exec", ["-p", "(version 1)(allow default)", "true"]]
    : [undefined, undefined];
  if (program === undefined) return undefined;
  try {
    const out = await new Deno.Command(program, { args, stdin: "null", stdout: "null", stderr: "null" })
      .output();
    return out.success ? (os === "linux" ? "bwrap" : "sandbox-exec") : undefined;
  } catch {
    return undefined;
  }
}
