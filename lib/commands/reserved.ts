// Owns the slash names Blade keeps for itself (docs/guides/memory.md): a custom command file with one of
// these names is never expanded — Blade's built-in wins, and the file is named in a warning. The
// interactive session's own list (cli/interactive/slash.ts) is checked against this one by its test.

export const BUILT_IN_SLASH_NAMES: readonly string[] = [
  "help",
  "agents",
  "tasks",
  "permissions",
  "model",
  "status",
  "trust",
  "clear",
  "resume",
  "exit",
  "memory",
  "compact",
];
