// Owns what one hook's answer means (docs/guides/hooks.md "Outputs"), as Claude Code 2.1.332 reads it
// (tests/fixtures/claude/hooks_*): a command's exit code and output — 0 succeeds (its stdout, when a
// JSON object, is a structured answer; else UserPromptSubmit and SessionStart add it as context), 2
// blocks with its stderr, any other code is a non-blocking error — or an Agent SDK callback's JSON
// object. Structured answers: `decision: "block"` with `reason`, `continue: false` with `stopReason`,
// `suppressOutput`, `systemMessage`, and `hookSpecificOutput` (`permissionDecision` allow|deny|ask,
// `permissionDecisionReason`, `updatedInput`, `additionalContext`). Pure; table-tested.

import type { HookEvent } from "../protocol/hook_config.ts";

/** How one hook ended: a command's exit, or an SDK callback's JSON answer, or a failure to run. */
export type HookEnd =
  | { code: number; stdout: string; stderr: string; timedOut?: boolean }
  | { answer: Record<string, unknown> }
  | { failed: string };

export type PermissionDecision = "allow" | "deny" | "ask";

/** What one hook (or several, merged) asked for. Every field optional: `{}` is "no opinion". */
export interface HookVerdict {
  /**
   * Blocks: the tool call (PreToolUse), the prompt (UserPromptSubmit), the stop (Stop: continue). The
   * text names the hook (`[command]: stderr`) as Claude Code's messages do.
   */
  block?: string;
  /** The block's own reason (stderr, or JSON `reason`), without the hook's name. */
  blockReason?: string;
  /** Each block with the hook that made it (PostToolUse's `blocking error from command` texts). */
  blockedBy?: { label: string; reason: string }[];
  /** PreToolUse's permission decision and its reason. */
  permission?: PermissionDecision;
  permissionReason?: string;
  /** PreToolUse: the input the call runs with instead. */
  updatedInput?: Record<string, unknown>;
  /** Text added for the model (`additionalContext`). */
  context?: string[];
  /** Plain stdout on exit 0 of UserPromptSubmit and SessionStart (for the model) and PreCompact (instructions). */
  output?: string[];
  /** `continue: false`: the session stops after this step; the reason is for the user. */
  stop?: string;
  /** The stop is not said to the user (a `prompt` hook's PreToolUse block ends the run silently). */
  quiet?: boolean;
  /** Said to the user (`systemMessage`). */
  message?: string;
  /** A non-blocking error (another exit code, a timeout, a crash): reported, the session goes on. */
  error?: string;
  /**
   * What the user is shown of a passing hook (PreCompact's stdout after the compaction: Claude Code's
   * `PreCompact [command] completed successfully: …`).
   */
  shown?: string[];
  /** A `prompt` hook gave no usable answer (`timedOut`: its timeout ended it): the action goes ahead. */
  noVerdict?: { timedOut: boolean };
}

/**
 * Events whose plain stdout on exit 0 is used (`output`): context for the model (UserPromptSubmit,
 * SessionStart), a compaction's summary instructions (PreCompact), as Claude Code uses it.
 */
const STDOUT_OUTPUT: ReadonlySet<HookEvent> = new Set(["UserPromptSubmit", "SessionStart", "PreCompact"]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function text(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/** A hook's answer; `label` names it in the texts (Claude Code: `[command]`). */
export function verdictOf(event: HookEvent, end: HookEnd, o: { label: string }): HookVerdict {
  const v = endVerdict(event, end, o);
  if (v.blockReason !== undefined) v.blockedBy = [{ label: o.label, reason: v.blockReason }];
  return v;
}

function endVerdict(event: HookEvent, end: HookEnd, o: { label: string }): HookVerdict {
  if ("failed" in end) return { error: `${o.label} failed: ${end.failed}` };
  if ("answer" in end) return structured(event, end.answer);
  if (end.timedOut === true) return { error: `${o.label} timed out` };
  if (end.code === 2) {
    const said = end.stderr === "" ? "No stderr output" : end.stderr;
    return { block: `[${o.label}]: ${said}`, blockReason: said.trim() };
  }
  if (end.code !== 0) {
    const said = end.stderr.trim() === "" ? "" : `: ${end.stderr.trim()}`;
    return { error: `${o.label} exited with code ${end.code}${said}` };
  }
  const out = end.stdout.trim();
  if (out.startsWith("{")) {
    try {
      const json = JSON.parse(out);
      if (isRecord(json)) return structured(event, json);
    } catch {
      // Not JSON after all: plain output.
    }
  }
  if (!STDOUT_OUTPUT.has(event) || out === "") return {};
  return event === "PreCompact"
    ? { output: [out], shown: [`${event} [${o.label}] completed successfully: ${out}`] }
    : { output: [out] };
}

/** A structured (JSON) answer. */
function structured(event: HookEvent, json: Record<string, unknown>): HookVerdict {
  const v: HookVerdict = {};
  const specific = isRecord(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const reason = text(json.reason);
  if (json.decision === "block") {
    v.block = reason ?? `A ${event} hook blocked it.`;
    v.blockReason = v.block;
  }
  // Claude Code's older PreToolUse answers: `approve` allows, `block` (above) denies.
  if (event === "PreToolUse" && json.decision === "approve") v.permission = "allow";
  if (event === "PreToolUse") {
    const decision = specific.permissionDecision;
    if (decision === "allow" || decision === "deny" || decision === "ask") v.permission = decision;
    const why = text(specific.permissionDecisionReason) ?? reason;
    if (why !== undefined && v.permission !== undefined) v.permissionReason = why;
    if (isRecord(specific.updatedInput)) v.updatedInput = specific.updatedInput;
    if (v.block !== undefined && v.permission === undefined) {
      v.permission = "deny";
      v.permissionReason = v.block;
      delete v.block;
      delete v.blockReason;
    }
  }
  const extra = text(specific.additionalContext);
  if (extra !== undefined) v.context = [extra];
  if (json.continue === false) v.stop = text(json.stopReason) ?? "";
  const message = text(json.systemMessage);
  if (message !== undefined) v.message = message;
  return v;
}

const RANK: Record<PermissionDecision, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * The verdicts of one event's hooks (they ran in parallel), in configuration order: deny beats ask
 * beats allow, blocks and contexts add up, the first rewrite and the first stop win.
 */
export function mergeVerdicts(verdicts: readonly HookVerdict[]): HookVerdict {
  const out: HookVerdict = {};
  const blocks: string[] = [];
  const reasons: string[] = [];
  const errors: string[] = [];
  const messages: string[] = [];
  for (const v of verdicts) {
    if (v.block !== undefined) blocks.push(v.block);
    if (v.blockReason !== undefined) reasons.push(v.blockReason);
    if (v.blockedBy !== undefined) (out.blockedBy ??= []).push(...v.blockedBy);
    if (v.error !== undefined) errors.push(v.error);
    if (v.message !== undefined) messages.push(v.message);
    if (v.context !== undefined) (out.context ??= []).push(...v.context);
    if (v.output !== undefined) (out.output ??= []).push(...v.output);
    if (v.shown !== undefined) (out.shown ??= []).push(...v.shown);
    if (
      v.permission !== undefined &&
      (out.permission === undefined || RANK[v.permission] > RANK[out.permission])
    ) {
      out.permission = v.permission;
      if (v.permissionReason === undefined) delete out.permissionReason;
      else out.permissionReason = v.permissionReason;
    }
    if (v.updatedInput !== undefined && out.updatedInput === undefined) out.updatedInput = v.updatedInput;
    if (v.noVerdict !== undefined && out.noVerdict === undefined) out.noVerdict = v.noVerdict;
    if (v.stop !== undefined && out.stop === undefined) {
      out.stop = v.stop;
      if (v.quiet === true) out.quiet = true;
    }
  }
  if (blocks.length > 0) out.block = blocks.join("\n");
  if (reasons.length > 0) out.blockReason = reasons.join("\n");
  if (errors.length > 0) out.error = errors.join("\n");
  if (messages.length > 0) out.message = messages.join("\n");
  return out;
}
