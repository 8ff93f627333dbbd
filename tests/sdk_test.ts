// The Agent SDK suite: each program of tests/sdk/programs/ (cases in tests/support/sdk_cases.ts) runs
// under Node with the real `@anthropic-ai/claude-agent-sdk` (pinned in tests/sdk/package.json, a
// test-only package) starting Blade as users run it, against the case's fake Anthropic server; what the
// program observes must equal what the same program observed with Claude Code 2.1.332
// (tests/fixtures/sdk/, re-recorded by scripts/record_sdk_goldens.ts). Skipped, saying why, when the
// SDK or Node is not installed (.ci/run installs both).

import assert from "node:assert/strict";
import { SDK_CASES } from "./support/sdk_cases.ts";
import { runSdkCase, sdkAvailable } from "./support/sdk_run.ts";
import { bladeCommandLine } from "./support/blade.ts";

const FIXTURES = decodeURIComponent(new URL("./fixtures/sdk/", import.meta.url).pathname);
const missing = await sdkAvailable();

/** An executable file that starts Blade with the arguments the SDK gives it (what a user points the SDK at). */
async function bladeExecutable(dir: string): Promise<{ path: string; denoDir: string }> {
  const { command, denoDir } = await bladeCommandLine();
  const quoted = command.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ");
  const path = `${dir}/blade`;
  await Deno.writeTextFile(path, `#!/bin/sh\nexec ${quoted} "$@"\n`);
  await Deno.chmod(path, 0o755);
  return { path, denoDir };
}

for (const c of SDK_CASES) {
  Deno.test({
    name: `sdk (${c.name}): ${c.about}, as with Claude Code`,
    ignore: missing !== undefined,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "blade-sdk-cli-" });
      try {
        const cli = await bladeExecutable(dir);
        const storage = `${dir}/storage`;
        const run = await runSdkCase(c, cli.path, { DENO_DIR: cli.denoDir, BLADE_STORAGE_ROOT: storage });
        const expected = JSON.parse(await Deno.readTextFile(`${FIXTURES}${c.name}.json`));
        assert.deepEqual(run.report, expected, `exit ${run.code}\n${run.stderr.slice(-3000)}`);
      } finally {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}

if (missing !== undefined) {
  Deno.test(`sdk: skipped: ${missing}`, () => {});
}
