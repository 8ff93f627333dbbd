// How long each kind of hook may run without a `timeout` of its own: literals, as documented
// (docs/guides/hooks.md); the command hooks' 600 s is Claude Code 2.1.332's, as recorded
// (tests/claude_hooks_golden_test.ts reads the recorded runs).

import assert from "node:assert/strict";
import { hookTimeoutSeconds } from "./hook_timeout.ts";
import type { HookEntry } from "../protocol/hook_config.ts";

Deno.test("hook timeouts: a hook's own timeout, else 600 s for a command, 30 s for a prompt, 60 s for an agent or an SDK callback", () => {
  const cases: [HookEntry["run"], number | undefined, number][] = [
    [{ command: "./check.sh" }, undefined, 600],
    [{ command: "./check.sh" }, 5, 5],
    [{ prompt: "Is it done?" }, undefined, 30],
    [{ prompt: "Is it done?" }, 90, 90],
    [{ agent: "Verify the tests pass." }, undefined, 60],
    [{ agent: "Verify the tests pass." }, 120, 120],
    [{ callbackId: "hook_0" }, undefined, 60],
    [{ callbackId: "hook_0" }, 7, 7],
  ];
  for (const [run, timeoutSeconds, expected] of cases) {
    assert.equal(
      hookTimeoutSeconds({ run, timeoutSeconds }),
      expected,
      JSON.stringify({ run, timeoutSeconds }),
    );
  }
});
