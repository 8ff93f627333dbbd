// Owns the process environment (the Env port): variables, home folder, the user's working folder.

export interface Env {
  get(name: string): string | undefined;
  /** Every variable this process may read (empty without an environment grant). */
  all(): Record<string, string>;
  /** The user's home folder, or undefined when it cannot be determined. */
  home(): string | undefined;
  /** The folder the user invoked Blade from (INIT_CWD under `deno task`, else the process cwd). */
  cwd(): string;
  /** Whether stdout is an interactive terminal. */
  stdoutIsTerminal(): boolean;
  stdinIsTerminal(): boolean;
  /** The operating system Blade runs on (Deno's names: `linux`, `darwin`, `windows`, …). */
  platform(): Platform;
  /** This machine's name (what a shared store's records say wrote them), or "" when it cannot be read. */
  hostname(): string;
}

export type Platform = typeof Deno.build.os;

function safeGet(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    // Not granted by --allow-env: treat as unset.
    return undefined;
  }
}

export function realEnv(): Env {
  return {
    get: safeGet,
    all: () => {
      try {
        return Deno.env.toObject();
      } catch {
        return {};
      }
    },
    home: () => safeGet("HOME") ?? safeGet("USERPROFILE"),
    cwd: () => safeGet("INIT_CWD") ?? Deno.cwd(),
    stdoutIsTerminal: () => Deno.stdout.isTerminal(),
    stdinIsTerminal: () => Deno.stdin.isTerminal(),
    platform: () => Deno.build.os,
    hostname: () => {
      try {
        return Deno.hostname();
      } catch {
        // Not granted (a child's Worker): unknown.
        return "";
      }
    },
  };
}
