// Owns what a finished child run adds to its sidecar result and Task metadata besides its text
// (docs/reference/verification.md): the verdict of a verification agent (its accepted StructuredOutput
// object, else exactly one `## Verification Result:` line) and the evidence collected from its tool
// results (modified files, verification commands after the last edit). Pure.

import type { ChildOutcome } from "../executor/child.ts";
import type { SidecarResult } from "../store/schema.ts";
import { collectEvidence } from "../verification/evidence.ts";
import {
  type Verdict,
  VERDICT_AGENTS,
  verdictFromStructured,
  verdictFromText,
} from "../verification/verdict.ts";

export type ChildFindings = Pick<
  SidecarResult,
  "verificationVerdict" | "verificationCommands" | "modifiedFiles"
>;

/** The verdict of a verification agent's run, or undefined (not such an agent, or no valid verdict). */
export function verdictOf(agentName: string, outcome: Pick<ChildOutcome, "message" | "structuredOutput">) {
  if (!VERDICT_AGENTS.includes(agentName)) return undefined;
  const structured = outcome.structuredOutput;
  if (structured?.status === "accepted") {
    const v = verdictFromStructured(structured.value);
    if (v !== undefined) return v;
  }
  return verdictFromText(outcome.message);
}

export function findingsOf(
  agentName: string,
  outcome: Pick<ChildOutcome, "message" | "structuredOutput" | "toolResults">,
  workspaceRoot: string,
): ChildFindings {
  const evidence = collectEvidence(outcome.toolResults, workspaceRoot);
  const verdict: Verdict | undefined = verdictOf(agentName, outcome);
  return {
    ...(evidence.modifiedFiles.length === 0 ? {} : { modifiedFiles: evidence.modifiedFiles }),
    ...(evidence.verificationCommands.length === 0
      ? {}
      : { verificationCommands: evidence.verificationCommands }),
    ...(verdict === undefined ? {} : {
      verificationVerdict: {
        verdict: verdict.verdict,
        summary: verdict.summary,
        findings: verdict.findings,
      },
    }),
  };
}
