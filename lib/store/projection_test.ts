// The public projection (lib/store/projection.ts): a run recorded with a machine (a shared store) says
// which machine in `--json` listings, as the MACHINE column of `blade tasks list` does; a run without one
// has no such field; the PID and process identity beside it never show.

import assert from "node:assert/strict";
import { publicProjection } from "./projection.ts";
import { sidecarFixture } from "../testing/sidecar_fixtures.ts";

Deno.test("publicProjection: carries the run's machine when recorded, never its PID or process identity", () => {
  const there = {
    ...sidecarFixture("agent-m1"),
    machine: "build-7",
    processId: 4242,
    processIdentity: { platform: "linux" as const, fingerprint: "ab".repeat(32) },
  };
  const shown = publicProjection(there);
  assert.equal(shown.machine, "build-7");
  const json = JSON.stringify(shown);
  assert.ok(!json.includes("4242") && !json.includes("processId") && !json.includes("abab"), json);
  assert.equal("machine" in publicProjection(sidecarFixture("agent-m2")), false);
});
