// Re-records tests/fixtures/sdk/: runs each Agent SDK case (tests/support/sdk_cases.ts: an SDK program
// of tests/sdk/programs/) with the SDK starting Claude Code, and stores what the program reported.
// tests/sdk_test.ts runs the same programs against Blade and compares. Install the SDK first
// (`npm ci --prefix tests/sdk --omit=optional`) and Claude Code (docs/guides/migrating-from-claude-code.md):
//   deno run -A scripts/record_sdk_goldens.ts --claude /path/to/claude [--only <case>]

import { parseArgs } from "node:util";
import { SDK_CASES } from "../tests/support/sdk_cases.ts";
import { runSdkCase, sdkAvailable } from "../tests/support/sdk_run.ts";
import { runScript } from "./script_cli.ts";

const HELP = "Usage: deno run -A scripts/record_sdk_goldens.ts --claude <path to claude> [--only <case>]";
const FIXTURES = decodeURIComponent(new URL("../tests/fixtures/sdk/", import.meta.url).pathname);

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" }, only: { type: "string" } } });
  if (values.claude === undefined) throw new TypeError("--claude is required");
  const missing = await sdkAvailable();
  if (missing !== undefined) throw new TypeError(missing);
  await Deno.mkdir(FIXTURES, { recursive: true });
  const denoDir = Deno.env.get("DENO_DIR");
  for (const c of SDK_CASES) {
    if (values.only !== undefined && values.only !== c.name) continue;
    const run = await runSdkCase(c, values.claude, denoDir === undefined ? {} : { DENO_DIR: denoDir });
    if (run.report === undefined) {
      throw new Error(`${c.name}: no report (exit ${run.code}): ${run.stderr.slice(-2000)}`);
    }
    await Deno.writeTextFile(`${FIXTURES}${c.name}.json`, JSON.stringify(run.report, null, 2) + "\n");
    // deno-lint-ignore no-console
    console.log(`recorded ${c.name} (exit ${run.code})`);
  }
  return 0;
}

await runScript(main, HELP);
