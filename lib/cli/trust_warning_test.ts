import assert from "node:assert/strict";
import { trustWarning, type TrustWarningInput } from "./trust_warning.ts";

Deno.test("trustWarning: only untrusted runs that ask for writes or Bash, or skip agents, are warned", () => {
  const base: TrustWarningInput = { trusted: false, mode: "default", allow: [], skippedAgents: [] };
  const cases: [Partial<TrustWarningInput>, number][] = [
    [{}, 0],
    [{ trusted: true, mode: "yolo" }, 0],
    [{ mode: "autoEdit" }, 1],
    [{ mode: "yolo" }, 1],
    [{ allow: ["Read", "Grep"] }, 0],
    [{ allow: ["Edit", "Bash(npm test:*)"] }, 1],
    [{ skippedAgents: ["reviewer"] }, 2],
  ];
  for (const [input, count] of cases) {
    const lines = trustWarning({ ...base, ...input });
    assert.equal(lines.length, count, JSON.stringify(input));
    if (count > 0) {
      assert.match(lines[0]!, /--trust-workspace/);
      assert.match(lines[0]!, /BLADE_TRUST_WORKSPACE=1/);
      assert.match(lines[0]!, /blade trust/);
    }
  }
  assert.match(trustWarning({ ...base, skippedAgents: ["a", "b"] })[1]!, /a, b/);
});
