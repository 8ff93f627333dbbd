import assert from "node:assert/strict";
import { trustWarning, type TrustWarningInput } from "./trust_warning.ts";

Deno.test("trustWarning: an untrusted run is warned when settings grants were withheld or agents skipped", () => {
  const base: TrustWarningInput = { trusted: false, skippedAgents: [] };
  const cases: [Partial<TrustWarningInput>, number][] = [
    [{}, 0],
    [{ trusted: true, cappedMode: "yolo", skippedAgents: ["x"] }, 0],
    [{ cappedMode: "autoEdit" }, 1],
    [{ droppedAllow: [] }, 0],
    [{ droppedAllow: ["Edit", "Bash(npm test:*)"] }, 1],
    [{ skippedAgents: ["reviewer"] }, 1],
    [{ cappedMode: "yolo", skippedAgents: ["reviewer"] }, 2],
  ];
  for (const [input, count] of cases) {
    const lines = trustWarning({ ...base, ...input });
    assert.equal(lines.length, count, JSON.stringify(input));
    for (const line of lines) {
      assert.match(line, /--trust-workspace/);
      assert.match(line, /BLADE_TRUST_WORKSPACE=1/);
      assert.match(line, /blade trust/);
    }
  }
  assert.match(
    trustWarning({ ...base, cappedMode: "yolo" })[0]!,
    /permission mode bypassPermissions do not apply/,
  );
  assert.match(trustWarning({ ...base, droppedAllow: ["Edit"] })[0]!, /allow rules Edit do not apply/);
  assert.match(trustWarning({ ...base, skippedAgents: ["a", "b"] })[0]!, /a, b/);
});
