// The Worker's read grant for its own build (child_sandbox.ts `workerCodeDirs`): the folder of a bundled
// entry, nothing for the sources.

import assert from "node:assert/strict";
import { workerCodeDirs } from "./child_sandbox.ts";

Deno.test("workerCodeDirs: a bundled Worker entry's folder; none for the sources or a non-file URL", () => {
  const cases: [string, string[]][] = [
    ["file:///opt/blade/worker/child_worker.js", ["/opt/blade/worker"]],
    ["file:///home/a%20b/dist/dev/x1/worker/child_worker.js", ["/home/a b/dist/dev/x1/worker"]],
    ["file:///C:/blade/worker/child_worker.js", ["C:/blade/worker"]],
    ["file:///repo/lib/child/child_worker.ts", []],
    ["https://example.com/worker/child_worker.js", []],
  ];
  for (const [url, dirs] of cases) assert.deepEqual(workerCodeDirs(new URL(url)), dirs, url);
});
