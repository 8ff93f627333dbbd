// Re-records tests/fixtures/claude/models/bodies.json: for each case of tests/support/model_cases.ts,
// the main request Claude Code sends (its model fields and `anthropic-beta` header) for
// `claude -p "Say hi" <flags>` against the loopback fake server; and children.json: the model fields of
// a child's request for each child case. tests/models_golden_test.ts compares Blade's.
//   deno run -A scripts/record_claude_models.ts --claude /path/to/claude

import { parseArgs } from "node:util";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import {
  CHILD_MODEL_CASES,
  CHILD_PROMPT,
  childAgentFile,
  delegateOnce,
  MODEL_CASES,
  MODEL_FIELDS,
} from "../tests/support/model_cases.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

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
        env: claudeCodeEnv(home, server.url, { env: { ...c.env } }),
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
  await Deno.writeTextFile(
    `${OUT}children.json`,
    JSON.stringify(await children(values.claude), null, 2) + "\n",
  );
  return 0;
}

/** The child cases: the model fields of the child's first request. */
async function children(claude: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const c of CHILD_MODEL_CASES) {
    const home = await Deno.makeTempDir({ prefix: "cc-home-" });
    const ws = await Deno.makeTempDir({ prefix: "cc-ws-" });
    try {
      await Deno.mkdir(`${home}/.claude/agents`, { recursive: true });
      await Deno.writeTextFile(`${home}/.claude/agents/helper.md`, childAgentFile(c));
      const answer = delegateOnce(c);
      await using server = startFakeAnthropicServer({
        handler: (req) => {
          if (req.path !== "/v1/messages") return new Response("{}", { status: 404 });
          const body = req.body as unknown as Record<string, unknown>;
          // Side requests (no tools) get a short answer.
          return fakeTurn(
            ((body.tools as unknown[] | undefined) ?? []).length === 0 ? { text: "Hi." } : answer(body),
          );
        },
      });
      await new Deno.Command(claude, {
        args: ["-p", "Delegate", "--output-format", "json", "--dangerously-skip-permissions", ...c.flags],
        cwd: ws,
        clearEnv: true,
        env: claudeCodeEnv(home, server.url, { env: { IS_SANDBOX: "1" } }),
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
      const child = server.requests.find((r) =>
        JSON.stringify(r.body).includes(CHILD_PROMPT) &&
        JSON.stringify((r.body as { messages?: unknown[] }).messages?.[0] ?? "").includes("CHILD TASK")
      );
      if (child === undefined) throw new Error(`${c.name}: no child request`);
      const body = child.body as unknown as Record<string, unknown>;
      out[c.name] = Object.fromEntries(MODEL_FIELDS.filter((f) => f in body).map((f) => [f, body[f]]));
      // deno-lint-ignore no-console
      console.log(`recorded child ${c.name}`);
    } finally {
      await Deno.remove(home, { recursive: true }).catch(() => {});
      await Deno.remove(ws, { recursive: true }).catch(() => {});
    }
  }
  return out;
}

await runScript(main, HELP);
