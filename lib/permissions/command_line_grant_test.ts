import assert from "node:assert/strict";
import { commandLineGrant, type GrantInput } from "./command_line_grant.ts";

Deno.test("commandLineGrant: untrusted, only the command line grants; trusted, everything applies", () => {
  const rows: [string, GrantInput, ReturnType<typeof commandLineGrant>][] = [
    [
      "trusted: the mode and settings allow rules apply",
      { trusted: true, mode: "yolo", modeFromFlag: false, settingsAllow: ["Bash"] },
      { mode: "yolo", settingsAllow: ["Bash"], workspace: true },
    ],
    [
      "untrusted, --dangerously-skip-permissions: bypass applies",
      { trusted: false, mode: "yolo", modeFromFlag: true, settingsAllow: ["Bash"] },
      { mode: "yolo", settingsAllow: [], workspace: true },
    ],
    [
      "untrusted, --permission-mode acceptEdits: applies",
      { trusted: false, mode: "autoEdit", modeFromFlag: true, settingsAllow: [] },
      { mode: "autoEdit", settingsAllow: [], workspace: true },
    ],
    [
      "untrusted, a settings bypass: capped at default, named for the warning",
      { trusted: false, mode: "yolo", modeFromFlag: false, settingsAllow: ["Edit"] },
      { mode: "default", settingsAllow: [], workspace: true, cappedMode: "yolo" },
    ],
    [
      "untrusted, --settings named on the command line grants its allow rules",
      {
        trusted: false,
        mode: "default",
        modeFromFlag: false,
        settingsAllow: ["Edit", "Bash"],
        flagAllow: ["Bash"],
      },
      { mode: "default", settingsAllow: ["Bash"], workspace: true },
    ],
    [
      "untrusted, a narrower settings mode still applies",
      { trusted: false, mode: "plan", modeFromFlag: false, settingsAllow: [] },
      { mode: "plan", settingsAllow: [], workspace: true },
    ],
  ];
  for (const [name, input, expected] of rows) assert.deepEqual(commandLineGrant(input), expected, name);
});
