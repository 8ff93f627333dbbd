// Owns the limits the built-in tools' input contracts state (in their descriptions and bounds), shared
// by the tools and their zod schemas (input_zod.ts) without either importing the other.

/** Lines Read returns when no limit is given. */
export const READ_DEFAULT_LIMIT = 2000;

/** A Task prompt longer than this is refused: it would be copied into the child's sidecar and transcript. */
export const MAX_TASK_PROMPT = 200_000;
export const TASK_PROMPT_TOO_LONG =
  `must be at most ${MAX_TASK_PROMPT} characters: put long material in a file and name its path`;

/** Lines or entries Grep returns when no head_limit is given (Claude Code's default; 0 = no limit). */
export const GREP_DEFAULT_HEAD_LIMIT = 250;
