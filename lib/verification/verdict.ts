// Owns the verification agents' verdict (docs/reference/verification.md): its JSON Schema (the
// StructuredOutput tool validates against it), reading a verdict from an accepted structured object,
// and the compatibility path, exactly one `## Verification Result: PASS|FAIL|PARTIAL` line in the
// final text. Pure: no I/O.

export type VerdictValue = "pass" | "fail" | "partial";

export interface Verdict {
  verdict: VerdictValue;
  summary: string;
  findings: string[];
  /** Where it came from: the StructuredOutput tool or the final text's verdict line. */
  source: "structured" | "text";
}

/** The agents whose runs carry a verdict. */
export const VERDICT_AGENTS: readonly string[] = ["verification", "goal-verification"];

export const VERDICT_JSON_SCHEMA: Record<string, unknown> = {
  type: "object",
  additionalProperties: false,
  required: ["verdict", "summary", "findings"],
  properties: {
    verdict: {
      type: "string",
      enum: ["pass", "fail", "partial"],
      description: "pass: every check passed and nothing blocks acceptance; fail: something failed; " +
        "partial: nothing failed but something could not be verified",
    },
    summary: {
      type: "string",
      minLength: 1,
      maxLength: 2000,
      description: "What was checked and what you concluded, in one or two short paragraphs",
    },
    findings: {
      type: "array",
      maxItems: 50,
      items: { type: "string", minLength: 1, maxLength: 1000 },
      description: "Each problem found, with file and line where it applies; empty when there are none",
    },
  },
};

/** A structured object that already passed the schema, as a Verdict. */
export function verdictFromStructured(value: unknown): Verdict | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const verdict = v["verdict"];
  if (verdict !== "pass" && verdict !== "fail" && verdict !== "partial") return undefined;
  const findings = Array.isArray(v["findings"]) ? v["findings"].filter((f) => typeof f === "string") : [];
  return { verdict, summary: String(v["summary"] ?? ""), findings, source: "structured" };
}

/** A line that tries to state a verdict, well-formed or not. */
const CANDIDATE = /verification\s+result\s*:/i;
const EXACT = /^## Verification Result: (PASS|FAIL|PARTIAL)$/;

/**
 * The verdict of the final text: exactly one line that states a verdict, and it has the exact form.
 * Two such lines (even identical), a malformed one, or a bare word give none.
 */
export function verdictFromText(text: string): Verdict | undefined {
  const lines = text.split(/\r?\n/).map((l) => l.trimEnd());
  const candidates = lines.filter((l) => CANDIDATE.test(l));
  if (candidates.length !== 1) return undefined;
  const m = EXACT.exec(candidates[0]!.trimStart());
  if (m === null) return undefined;
  const body = lines.filter((l) => !CANDIDATE.test(l)).join("\n").trim();
  const summary = (body.split(/\n\s*\n/)[0] ?? "").trim().slice(0, 2000);
  return {
    verdict: m[1]!.toLowerCase() as VerdictValue,
    summary: summary === "" ? `Verification result: ${m[1]}` : summary,
    findings: [],
    source: "text",
  };
}

/** What `blade run verification` prints and exits with for a verdict (0 only on pass). */
export function verdictExitCode(verdict: { verdict: VerdictValue } | undefined): 0 | 1 {
  return verdict?.verdict === "pass" ? 0 : 1;
}

/** Why a finished verification run does not pass: the error of its result, or undefined on pass. */
export function verdictFailure(
  verdict: { verdict: VerdictValue; summary?: string } | undefined,
): { code: "no_verdict" | "verdict_fail" | "verdict_partial"; message: string } | undefined {
  if (verdict === undefined) {
    return {
      code: "no_verdict",
      message:
        "The verification agent gave no verdict: it returned no valid StructuredOutput object and its " +
        "final text does not end with exactly one `## Verification Result: PASS|FAIL|PARTIAL` line.",
    };
  }
  if (verdictExitCode(verdict) === 0) return undefined;
  const summary = (verdict.summary ?? "") === ""
    ? ""
    : `: ${(verdict.summary ?? "").replace(/\s+/g, " ").slice(0, 300)}`;
  return {
    code: verdict.verdict === "fail" ? "verdict_fail" : "verdict_partial",
    message: `Verification verdict ${verdict.verdict.toUpperCase()}${summary}`,
  };
}
