// Owns the vocabulary of asking a person to approve one tool call (the interactive session's
// approvals, docs/guides/interactive.md): what is asked (the exact command or path), the three
// answers, and the port the loop calls. No I/O. Where no one can ask (print mode, background
// children) there is no Approver and the gate's refusal stands.

/** One call the permission gate would refuse but a person may approve. */
export interface ApprovalRequest {
  /** The session making the call (the top-level session or a child). */
  sessionId: string;
  /** `main` or the child's agent type. */
  agentType: string;
  tool: string;
  /** The exact command (Bash) or real path (Write, Edit), or the tool name. */
  subject: string;
  /** The gate's refusal, shown with the question. */
  reason: string;
  /** The tool call's id and input (the Agent SDK's can_use_tool shows them to its callback). */
  callId?: string | undefined;
  input?: Record<string, unknown> | undefined;
}

export type ApprovalAnswer = "allow_once" | "allow_always" | "deny";

/**
 * An answer with what the approver said (the Agent SDK's canUseTool, an MCP approval tool): a deny's
 * `message` is what the model is told; an allow's `updatedInput` is the call to run instead (checked
 * again: the tool's schema and every refusal no one may approve still apply).
 */
export interface ApprovalVerdict {
  answer: ApprovalAnswer;
  message?: string;
  updatedInput?: Record<string, unknown>;
}

export const APPROVAL_ANSWERS: readonly ApprovalAnswer[] = ["allow_once", "allow_always", "deny"];

/** Asks; resolves `deny` when the question is cancelled (Esc, Ctrl-C, the turn interrupted). */
export type Approver = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => Promise<ApprovalAnswer | ApprovalVerdict>;

/** The verdict of an answer (a bare answer says nothing more). */
export function verdictOf(answer: ApprovalAnswer | ApprovalVerdict): ApprovalVerdict {
  return typeof answer === "string" ? { answer } : answer;
}

export function isApprovalAnswer(value: unknown): value is ApprovalAnswer {
  return typeof value === "string" && (APPROVAL_ANSWERS as readonly string[]).includes(value);
}
