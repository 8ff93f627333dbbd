// A PreToolUse hook callback: it sees each Bash call and denies the one that removes files.
import { existsSync } from "node:fs";
import { base, collect, query, report } from "./common.mjs";

const seen = [];
const lines = await collect(query({
  prompt: "Make a file, then clean up.",
  options: {
    ...base,
    permissionMode: "bypassPermissions",
    allowDangerouslySkipPermissions: true,
    hooks: {
      PreToolUse: [{
        matcher: "Bash",
        hooks: [async (input) => {
          seen.push([input.hook_event_name, input.tool_name, input.tool_input.command]);
          if (input.tool_input.command.startsWith("rm ")) {
            return {
              hookSpecificOutput: {
                hookEventName: "PreToolUse",
                permissionDecision: "deny",
                permissionDecisionReason: "Removing files is not allowed here.",
              },
            };
          }
          return {};
        }],
      }],
    },
  },
}));
report({ lines: lines.map((l) => ("result" in l ? { ...l, result: l.result.includes("Removing files is not allowed here.") } : l)), seen, kept: existsSync(`${process.env.SDK_CWD}/made.txt`) });
