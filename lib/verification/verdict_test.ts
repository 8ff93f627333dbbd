import assert from "node:assert/strict";
import { verdictExitCode, verdictFailure, verdictFromStructured, verdictFromText } from "./verdict.ts";

Deno.test("verdict line table", () => {
  const cases: [string, string | undefined][] = [
    ["All good.\n\n## Verification Result: PASS", "pass"],
    ["Broken.\n## Verification Result: FAIL\n", "fail"],
    ["Some unverified.\n## Verification Result: PARTIAL  ", "partial"],
    ["## Verification Result: PASS\n## Verification Result: PASS", undefined],
    ["## Verification Result: PASS\n## Verification Result: FAIL", undefined],
    ["PASS", undefined],
    ["Verdict: pass", undefined],
    ["## Verification Result: pass", undefined],
    ["## Verification Result: OK", undefined],
    ["**Verification Result: PASS**", undefined],
    ["## Verification Result: PASS (mostly)", undefined],
    ["The verification result: PASS\n## Verification Result: PASS", undefined],
    ["", undefined],
    ["   ## Verification Result: FAIL", "fail"],
  ];
  for (const [text, expected] of cases) {
    assert.equal(verdictFromText(text)?.verdict, expected, JSON.stringify(text));
  }
});

Deno.test("the text verdict's summary is the first paragraph", () => {
  assert.deepEqual(verdictFromText("Tests fail in a.ts.\n\nDetails…\n\n## Verification Result: FAIL"), {
    verdict: "fail",
    summary: "Tests fail in a.ts.",
    findings: [],
    source: "text",
  });
});

Deno.test("structured verdicts and exit codes", () => {
  assert.deepEqual(verdictFromStructured({ verdict: "partial", summary: "s", findings: ["f"] }), {
    verdict: "partial",
    summary: "s",
    findings: ["f"],
    source: "structured",
  });
  assert.equal(verdictFromStructured({ verdict: "maybe" }), undefined);
  assert.equal(verdictExitCode({ verdict: "pass" }), 0);
  assert.equal(verdictExitCode({ verdict: "partial" }), 1);
  assert.equal(verdictExitCode(undefined), 1);
  assert.equal(verdictFailure({ verdict: "pass", summary: "ok" }), undefined);
  assert.deepEqual(verdictFailure({ verdict: "partial", summary: "lint\nnot run" }), {
    code: "verdict_partial",
    message: "Verification verdict PARTIAL: lint not run",
  });
  assert.equal(verdictFailure(undefined)?.code, "no_verdict");
});
