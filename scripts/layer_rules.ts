// Owns what scripts/check_layers.ts tolerates: permanent exceptions to "only lib/sys/ touches Deno.*"
// (entry points and test support, each with its reason) and the allowlist of known violations, each
// with a TODO naming the issue that removes it. The checker fails on an entry that matches nothing, so
// this list only shrinks: fix a violation, delete its line.

import type { LayerRules } from "./check_layers.ts";

export const LAYER_RULES: LayerRules = {
  denoExceptions: [
    { path: "main.ts", reason: "entry point: reads Deno.args and exits with the CLI's code" },
    {
      path: "lib/testing/",
      reason: "test support (fake model servers, fakes, conformance suites): runs inside tests only, " +
        "and the checker proves main.ts never reaches it",
    },
  ],
  allow: [
    {
      rule: "layer",
      key: "lib/executor/main_runner.ts -> lib/app.ts",
      reason: "TODO(#10 item 1): main_runner takes narrow dependencies instead of App",
    },
    {
      rule: "tests-import",
      key: "lib/executor/settle_test.ts -> tests/support/background_harness.ts",
      reason: "TODO(#10 item 11): harness moves to lib/testing/",
    },
    {
      rule: "tests-import",
      key: "lib/manager/background_test.ts -> tests/support/background_harness.ts",
      reason: "TODO(#10 item 11): harness moves to lib/testing/",
    },
    {
      rule: "tests-import",
      key: "lib/manager/task_control_test.ts -> tests/support/background_harness.ts",
      reason: "TODO(#10 item 11): harness moves to lib/testing/",
    },
    {
      rule: "tests-import",
      key: "lib/sandbox/sandbox_test.ts -> tests/support/probe_child.ts",
      reason: "TODO(#10 item 11): probe moves to lib/testing/",
    },
    {
      rule: "deno",
      key: "lib/manager/child_sandbox.ts: Deno.unrefTimer",
      reason: "TODO(#10 item 6): timers through Clock",
    },
    {
      rule: "deno",
      key: "lib/tools/test_support.ts: Deno.realPath",
      reason: "TODO(#10 item 11): test support moves to lib/testing/",
    },
    {
      rule: "deno",
      key: "lib/tools/test_support.ts: Deno.makeTempDir",
      reason: "TODO(#10 item 11): test support moves to lib/testing/",
    },
    {
      rule: "deno",
      key: "lib/tools/test_support.ts: Deno.mkdir",
      reason: "TODO(#10 item 11): test support moves to lib/testing/",
    },
    {
      rule: "deno",
      key: "lib/tools/test_support.ts: Deno.remove",
      reason: "TODO(#10 item 11): test support moves to lib/testing/",
    },
  ],
};
