// Owns what the layer checks tolerate (scripts/layer_lint.ts per file, scripts/check_layers.ts for the
// graph): permanent exceptions to "only lib/sys/ touches Deno.*, files, processes, time, timers and
// randomness" (entry points and test support, each with its reason) and the allowlist of known
// violations, each with a TODO naming the issue that removes it. A check fails on an entry that matches
// nothing, so this list only shrinks: fix a violation, delete its line. It is empty.

import type { LayerRules } from "./check_layers.ts";

export const LAYER_RULES: LayerRules = {
  denoExceptions: [
    { path: "main.ts", reason: "entry point: reads Deno.args and exits with the CLI's code" },
    {
      path: "lib/path.ts",
      reason: "node:path's results without its ~10 ms load per thread: reads Deno.build.os (Windows uses " +
        "node:path itself) and Deno.cwd() (resolve's fallback, as node:path reads process.cwd())",
    },
    {
      path: "lib/testing/",
      reason: "test support (fake model servers, fakes, conformance suites): runs inside tests only, " +
        "and the checker proves main.ts never reaches it",
    },
  ],
  allow: [],
};
