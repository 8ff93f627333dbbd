import assert from "node:assert/strict";
import { sdkModeCeiling } from "./sdk_ceiling.ts";

Deno.test("sdkModeCeiling: the session may widen up to auto, to bypassPermissions only when the launch allowed it", () => {
  assert.equal(sdkModeCeiling({ launched: "default", allowBypass: false }).mode, "auto");
  assert.equal(sdkModeCeiling({ launched: "plan", allowBypass: false }).mode, "auto");
  assert.equal(sdkModeCeiling({ launched: "default", allowBypass: true }).mode, "yolo");
  assert.equal(sdkModeCeiling({ launched: "yolo", allowBypass: false }).mode, "yolo");
  assert.match(
    sdkModeCeiling({ launched: "default", allowBypass: false }).source,
    /--allow-dangerously-skip-permissions/,
  );
});
