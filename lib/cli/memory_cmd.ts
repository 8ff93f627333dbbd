// Owns `blade memory` (alias `blade context`): what a session in this folder would load from files —
// memory files with their kind, origin and size in tokens, then skills and custom commands — as the
// same trust and flags decide for `blade -p` (docs/guides/memory.md). Text or `--json`.

import { parseArgs } from "./parse_args.ts";
import { jsonTerminalSafe, terminalSafe } from "./sanitize.ts";
import type { Ports } from "../sys/mod.ts";
import { usageError } from "../errors.ts";
import { createApp } from "../app.ts";
import type { Io } from "./io.ts";
import { parseOrUsage } from "./args.ts";
import { contextReportOf } from "./context_wiring.ts";
import { contextJson, contextText } from "./memory_render.ts";

const HELP = `Usage: blade memory [--json] [--trust-workspace] [--bare]   (also: blade context)

Lists what a session in this folder loads from files, in the order the model sees it: the managed
CLAUDE.md, the user's (~/.claude or CLAUDE_CONFIG_DIR: CLAUDE.md, rules/), then — in a trusted folder
only — each folder from the top-most ancestor down to this one (CLAUDE.md or AGENTS.md,
.claude/CLAUDE.md, .claude/rules/, CLAUDE.local.md), each followed by its @imports; sizes are estimated
tokens. Then the skills listed to the model and the custom slash commands. See docs/guides/memory.md.

  --json             machine-readable output
  --trust-workspace  trust this folder for this listing
  --bare             what a --bare run loads (nothing)
`;

/** `argv` starts with the command's name (`memory` or `context`). */
export async function runMemory(argv: string[], ports: Ports, io: Io): Promise<number> {
  const { values, positionals } = parseOrUsage(() =>
    parseArgs({
      args: argv.slice(1),
      options: {
        json: { type: "boolean" },
        "trust-workspace": { type: "boolean" },
        bare: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    }), "blade memory");
  if (values.help === true) {
    io.out(HELP);
    return 0;
  }
  if (positionals.length > 0) {
    throw usageError(`Unexpected argument "${positionals[0]}".`, "Use `blade memory [--json]`.");
  }
  const app = await createApp(ports, {
    ...(values["trust-workspace"] === true ? { trustWorkspace: true } : {}),
    ...(values.bare === true ? { bare: true } : {}),
  }, { storage: "read" });
  const report = await contextReportOf(app);
  // Paths and file names are file-controlled text: terminal-safe in both forms.
  if (values.json === true) io.out(jsonTerminalSafe(JSON.stringify(contextJson(report))) + "\n");
  else io.out(terminalSafe(contextText(report)));
  return 0;
}
