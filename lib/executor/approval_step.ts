// Owns the step between the permission gate and a tool call in an interactive session: when the gate
// refuses a call a person may approve (`askable`), the loop's Approver is asked with the exact command
// or path, and the answer is made durable by the session's journal (`approval_decided` in its
// transcript) before the call runs or is refused. Without an Approver (print mode, background children) the refusal stands.

import { type ApprovalVerdict, type Approver, verdictOf } from "../protocol/approval.ts";
import type { ToolCallBlock } from "../protocol/messages.ts";
import type { LoopJournal } from "./journal.ts";
import type { AskApproval } from "./tool_runner.ts";

/** The exact thing approved: a Bash command, the real path of a write, else the tool's name. */
export function approvalSubject(call: ToolCallBlock, path: string | undefined): string {
  if (typeof call.input.command === "string") return call.input.command;
  if (path !== undefined) return path;
  if (typeof call.input.file_path === "string") return call.input.file_path;
  return call.name;
}

export interface ApprovalContext {
  approve: Approver;
  journal: LoopJournal;
  sessionId: string;
  agentType: string;
}

/** The tool runner's `ask` for one session: asks through `approve`, recording in its journal. */
export function approvalAsker(
  approve: Approver,
  o: { journal: LoopJournal; meta: { sessionId: string; agentType: string } },
): AskApproval {
  const context = {
    approve,
    journal: o.journal,
    sessionId: o.meta.sessionId,
    agentType: o.meta.agentType,
  };
  return (call, gate, signal) => askApproval(context, call, gate, signal);
}

/** Asks, records the answer durably, and says whether the call may run (and if not, why). */
export async function askApproval(
  o: ApprovalContext,
  call: ToolCallBlock,
  gate: { path: string | undefined; reason: string },
  signal: AbortSignal,
): Promise<AskOutcome> {
  const subject = approvalSubject(call, gate.path);
  let verdict: ApprovalVerdict;
  try {
    verdict = signal.aborted ? { answer: "deny" } : verdictOf(
      await o.approve(
        {
          sessionId: o.sessionId,
          agentType: o.agentType,
          tool: call.name,
          subject,
          reason: gate.reason,
          callId: call.id,
          input: call.input,
        },
        signal,
      ),
    );
  } catch {
    verdict = { answer: "deny" };
  }
  const { answer, message, updatedInput } = verdict;
  await o.journal.approval({
    callId: call.id,
    tool: call.name,
    subject,
    answer,
    ...(message === undefined ? {} : { message }),
    ...(updatedInput === undefined || answer === "deny" ? {} : { updatedInput }),
  });
  if (answer !== "deny") {
    return updatedInput === undefined ? { allowed: true } : { allowed: true, updatedInput };
  }
  return {
    allowed: false,
    // The approver's own reason reaches the model as it was given (Claude Code does the same).
    message: message !== undefined && message.trim() !== ""
      ? message
      : `Permission denied: the user refused ${call.name}${
        subject === call.name ? "" : ` ${JSON.stringify(subject)}`
      }. ` +
        "Do not retry it; ask the user what to do instead.",
  };
}

/** What asking decided: run the call (as the approver changed it), or refuse it saying why. */
export type AskOutcome = { allowed: true; updatedInput?: Record<string, unknown> } | {
  allowed: false;
  message: string;
};
