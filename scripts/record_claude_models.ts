// Re-records tests/fixtures/claude/models/bodies.json: for each case of tests/support/model_cases.ts,
// the main request Claude Code sends (its model fields and `anthropic-beta` header) for
// `claude -p "Say hi" <flags>` against the loopback fake server. tests/models_golden_test.ts compares Blade's.
//   deno run -A scripts/record_claude_models.ts --claude /path/to/claude

import { parseArgs } from "node:util";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { MODEL_CASES, MODEL_FIELDS } from "../tests/support/model_cases.ts";
import { runScript } from "./script_cli.ts";

const HELP = "Usage: deno run -A scripts/record_claude_models.ts --claude <path to claude>";
const OUT = decodeURIComponent(new URL("../tests/fixtures/claude/models/", import.meta.url).pathname);

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" } } });
  if (values.claude === undefined) throw new TypeError("--claude is required");
  const bodies: Record<string, unknown> = {};
  for (const c of MODEL_CASES) {
    const home = await Deno.makeTempDir({ prefix: "cc-home-" });
    const ws = await Deno.makeTempDir({ prefix: "cc-ws-" });
    try {
      await using server = startFakeAnthropicServer({
        handler: (req) =>
          req.path === "/v1/messages" ? fakeTurn({ text: "Hi." }) : new Response("{}", { status: 404 }),
      });
      await new Deno.Command(values.claude, {
        args: ["-p", "Say hi", "--output-format", "json", ...c.flags],
        cwd: ws,
        clearEnv: true,
        env: {
          HOME: home,
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: "sk-ant-fake-key",
          DISABLE_TELEMETRY: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          ...c.env,
        },
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
      // The main request is the one with tools (side requests have none).
      const main = server.requests.find((r) =>
        r.path === "/v1/messages" && ((r.body as { tools?: unknown[] }).tools ?? []).length > 0
      );
      if (main === undefined) throw new Error(`${c.name}: no main request`);
      const body = main.body as unknown as Record<string, unknown>;
      bodies[c.name] = {
        ...Object.fromEntries(MODEL_FIELDS.filter((f) => f in body).map((f) => [f, body[f]])),
        ...("temperature" in body ? { temperature: body.temperature } : {}),
        betas: (main.headers["anthropic-beta"] ?? "").split(",").filter((b) => b !== ""),
      };
      // deno-lint-ignore no-console
      console.log(`recorded ${c.name}`);
    } finally {
      await Deno.remove(home, { recursive: true }).catch(() => {});
      await Deno.remove(ws, { recursive: true }).catch(() => {});
    }
  }
  await Deno.mkdir(OUT, { recursive: true });
  await Deno.writeTextFile(`${OUT}bodies.json`, JSON.stringify(bodies, null, 2) + "\n");
  return 0;
}

await runScript(main, HELP);
