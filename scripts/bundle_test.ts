import assert from "node:assert/strict";
import { pointWorkerUrls, posixLauncher, windowsLauncherText, workerBundleName } from "./bundle.ts";

const ENTRY = "lib/executor/child_worker.ts";

Deno.test("workerBundleName: the entry's file name with .js", () => {
  assert.equal(workerBundleName(ENTRY), "child_worker.js");
  assert.equal(workerBundleName("a/b/probe.mts"), "probe.js");
});

Deno.test("pointWorkerUrls: every URL naming the entry points at its bundle; others stay", () => {
  const text = [
    `const WORKER = new URL("../executor/child_worker.ts", import.meta.url);`,
    `const again = new URL( './child_worker.ts' , import.meta.url );`,
    `const other = new URL("../executor/other_child_worker.ts", import.meta.url);`,
    `const plain = "child_worker.ts";`,
    `const base = new URL("child_worker.ts", "file:///x/");`,
  ].join("\n");
  const { text: out, counts } = pointWorkerUrls(text, [ENTRY]);
  assert.equal(
    out,
    [
      `const WORKER = new URL("./child_worker.js", import.meta.url);`,
      `const again = new URL("./child_worker.js", import.meta.url);`,
      `const other = new URL("../executor/other_child_worker.ts", import.meta.url);`,
      `const plain = "child_worker.ts";`,
      `const base = new URL("child_worker.ts", "file:///x/");`,
    ].join("\n"),
  );
  assert.deepEqual(counts, new Map([[ENTRY, 2]]));
});

Deno.test("launchers: run blade.js beside themselves with exactly the given flags", () => {
  const flags = ["--no-prompt", "--allow-read", "--unstable-worker-options"];
  const sh = posixLauncher(flags);
  assert.ok(sh.startsWith("#!/bin/sh\n"));
  assert.ok(
    sh.includes(
      `exec "\${BLADE_DENO:-deno}" run --no-prompt --allow-read --unstable-worker-options "$dir/blade.js" "$@"\n`,
    ),
  );
  const cmd = windowsLauncherText(flags);
  assert.ok(
    cmd.includes(
      `"%BLADE_DENO%" run --no-prompt --allow-read --unstable-worker-options "%~dp0blade.js" %*\r\n`,
    ),
  );
});
