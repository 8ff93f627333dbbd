// Owns the read-only auditor's tool table (docs/reference/verification.md): the verification agents
// may not change anything, so write tools are refused, Bash runs only read-only and recognised
// verification commands (commands.ts) in a minimal environment without API keys, and tools whose
// effects Blade cannot see (MCP) only when their server marks them read-only. Wraps tools; the tools
// themselves are unchanged.

import { classifyCommand } from "../verification/commands.ts";
import { loadBashParser } from "../shell/bash_parser.ts";
import { type AnyTool, fail } from "./tool.ts";

export interface AuditPolicy {
  /** The whole environment of the auditor's commands. */
  commandEnv: Record<string, string>;
}

/** `tool` as a read-only auditor may use it. */
export function auditedTool(tool: AnyTool, policy: AuditPolicy): AnyTool {
  const refuse = (why: string) =>
    fail(
      `Permission denied: ${tool.name} ${why}. This agent is a read-only auditor: it checks the work without changing it.`,
    );
  switch (tool.kind) {
    case "read":
    case "delegate":
      return tool;
    case "write":
    case "network":
      return { ...tool, run: () => Promise.resolve(refuse("is not available to a read-only auditor")) };
    case "external":
      return tool.readOnly === true
        ? tool
        : { ...tool, run: () => Promise.resolve(refuse("is not marked read-only by its server")) };
    case "execute":
      return {
        ...tool,
        async run(input: Record<string, unknown>, ctx) {
          const command = typeof input["command"] === "string" ? input["command"] : "";
          if (input["run_in_background"] === true) {
            return refuse("cannot run commands in the background here");
          }
          await loadBashParser();
          const verdict = classifyCommand(command, ctx.workspaceRoot);
          if (verdict.kind === "rejected") {
            return refuse(
              `may run only read-only commands and recognised verification commands (tests, type-check, ` +
                `lint, build without fixers or watch modes); "${
                  command.slice(0, 200)
                }" is refused: ${verdict.reason}`,
            );
          }
          return tool.run(input, { ...ctx, commandEnv: policy.commandEnv, readOnlyCommands: true });
        },
      };
    default: {
      const never: never = tool.kind;
      return never;
    }
  }
}
