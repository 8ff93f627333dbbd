// Owns the start-up warnings of a command (a setting Blade does not support, a hook file's broken
// entry): one `blade: warning:` line on stderr each, terminal-safe, said once even when the run's
// configuration is read again (a worktree, an agent's model).

import type { Io } from "./io.ts";
import { terminalSafe } from "./sanitize.ts";

/** A warning sink for `io` that says each line once. */
export function onceWarnings(io: Io): (line: string) => void {
  const said = new Set<string>();
  return (line) => {
    if (said.has(line)) return;
    said.add(line);
    io.err(`blade: warning: ${terminalSafe(line)}\n`);
  };
}
