// Re-records tests/fixtures/claude/compaction/: runs Claude Code (`claude -p`, stream-json) on the
// compaction cases of tests/support/claude_compaction_cases.ts (a session, and a subagent, reading parts
// until the fake server answers "prompt is too long") and stores what its compaction looks like: the
// summary request (its messages' shape, whether its system prompt and tools are the session's, its
// instructions text), the first request after it (shape, its opening message) and the
// system/compact_boundary line. Paths and ids are normalised. Install Claude Code as
// scripts/record_claude_fixtures.ts says:
//   deno run -A scripts/record_claude_compaction.ts --claude <path to claude>

import { parseArgs } from "node:util";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import {
  type CompactionCase,
  compactionFiles,
  compactionHandler,
  isSummaryRequest,
} from "../tests/support/claude_compaction_cases.ts";
import { writeTree } from "./record_claude_context.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

const HELP = "Usage: deno run -A scripts/record_claude_compaction.ts --claude <path to claude>";
const FIXTURES = decodeURIComponent(
  new URL("../tests/fixtures/claude/compaction/", import.meta.url).pathname,
);

/** The cases the golden holds, by file name. */
export const GOLDEN_COMPACTION: Record<string, CompactionCase> = {
  main: { trigger: "too long", parts: 5 },
  child: { trigger: "too long", parts: 5, child: true },
};

interface Block {
  type: string;
  text?: string;
}

/** Per message: its role and its blocks' types (a string content is one text block). */
export function messageShape(body: AnthropicRequestBody): string[] {
  return (body.messages ?? []).map((m) => {
    const c = m.content as unknown as string | Block[];
    return `${m.role}:${typeof c === "string" ? "text" : c.map((b) => b.type).join(",")}`;
  });
}

/** The text of a message's blocks, joined. */
export function messageText(message: { content: unknown } | undefined): string {
  const c = message?.content as string | Block[] | undefined;
  if (c === undefined) return "";
  return typeof c === "string" ? c : c.map((b) => b.text ?? "").join("\n");
}

/** What the golden keeps of one run's requests and stream: the summary request and the one after it. */
export function compactionRecord(
  bodies: AnthropicRequestBody[],
  streamLines: Record<string, unknown>[],
  normal: (text: string) => string,
) {
  const i = bodies.findIndex(isSummaryRequest);
  if (i < 1) throw new Error("no summary request");
  const summary = bodies[i]!;
  const before = bodies[i - 1]!;
  const after = bodies[i + 1]!;
  const boundary = streamLines.find((l) => l.type === "system" && l.subtype === "compact_boundary");
  return {
    summaryRequest: {
      shape: messageShape(summary),
      sameSystem: JSON.stringify(summary.system) === JSON.stringify(before.system),
      sameTools: JSON.stringify(summary.tools) === JSON.stringify(before.tools),
      instructions: normal(messageText(summary.messages.findLast((m) => m.role === "user")).slice(-12_000)),
    },
    continued: {
      shape: messageShape(after),
      opening: normal(messageText(after.messages[0])),
    },
    boundary: boundary === undefined ? null : {
      keys: Object.keys(boundary).sort(),
      trigger: (boundary.compact_metadata as { trigger?: string } | undefined)?.trigger ?? null,
      hasParent: boundary.parent_tool_use_id !== undefined && boundary.parent_tool_use_id !== null,
    },
  };
}

async function record(claude: string, c: CompactionCase) {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-home-" }));
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  await writeTree(workspace, compactionFiles(c));
  await using server = startFakeAnthropicServer({ handler: compactionHandler(c, workspace) });
  try {
    const out = await new Deno.Command(claude, {
      args: ["-p", "Read the parts.", "--output-format", "stream-json", "--verbose"],
      cwd: workspace,
      clearEnv: true,
      env: claudeCodeEnv(home, server.url),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    if (!out.success) throw new Error(`exit ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
    const lines = stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const normal = (t: string) =>
      t.replaceAll(workspace, "/WORKSPACE").replaceAll(home, "/HOME")
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "SESSION")
        .replace(/-tmp-cc-ws-[0-9a-f]+/g, "-WORKSPACE");
    const bodies = server.requests.filter((r) => r.path === "/v1/messages").map((r) => r.body);
    return compactionRecord(bodies, lines, normal);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" } } });
  if (values.claude === undefined) throw new TypeError("--claude is required");
  await Deno.mkdir(FIXTURES, { recursive: true });
  for (const [name, c] of Object.entries(GOLDEN_COMPACTION)) {
    const record_ = await record(values.claude, c);
    await Deno.writeTextFile(`${FIXTURES}${name}.json`, JSON.stringify(record_, null, 1) + "\n");
    // deno-lint-ignore no-console
    console.log(`recorded compaction/${name}`);
  }
  return 0;
}

if (import.meta.main) await runScript(main, HELP);
