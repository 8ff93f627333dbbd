// Owns the vocabulary of `effort` (Claude Code's `--effort`, an agent file's `effort`): how hard the
// model works on an answer, sent as the request's `output_config.effort` to models that take it
// (config/models.ts). No I/O.

export type Effort = "low" | "medium" | "high" | "xhigh" | "max";

export const EFFORTS: readonly Effort[] = ["low", "medium", "high", "xhigh", "max"];

export function isEffort(value: unknown): value is Effort {
  return typeof value === "string" && (EFFORTS as readonly string[]).includes(value);
}
