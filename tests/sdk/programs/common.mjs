// Shared by the SDK programs of tests/sdk_test.ts: the options every program passes (the CLI under test
// comes from SDK_CLI, the folder from SDK_CWD) and the summary of a query's messages that is compared
// between Claude Code and Blade — what an application sees: the calls, their results, the result.
import { query } from "@anthropic-ai/claude-agent-sdk";

export { query };

export const base = {
  pathToClaudeCodeExecutable: process.env.SDK_CLI,
  cwd: process.env.SDK_CWD,
  stderr: (text) => process.stderr.write(text),
};

function text(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

/** One line per message an application reacts to (top-level session only). */
export function summarize(message) {
  if (message.parent_tool_use_id) return [];
  switch (message.type) {
    case "system":
      return message.subtype === "init"
        ? [{ init: { mcp: (message.mcp_servers ?? []).map((s) => `${s.name}:${s.status}`) } }]
        : [];
    case "assistant":
      return message.message.content.flatMap((b) =>
        b.type === "tool_use" ? [{ call: b.name, input: b.input }] : b.type === "text" ? [{ text: b.text }] : []
      );
    case "user":
      return Array.isArray(message.message.content)
        ? message.message.content.filter((b) => b.type === "tool_result").map((b) => ({
          result: text(b.content),
          error: b.is_error === true,
        }))
        : [];
    case "result":
      return [{
        end: message.subtype,
        is_error: message.is_error,
        ...(message.is_error ? {} : { text: message.result }),
        denied: (message.permission_denials ?? []).map((d) => d.tool_name),
      }];
    default:
      return [];
  }
}

/** Runs a query to its end and returns the summary lines. */
export async function collect(q, seen = []) {
  for await (const m of q) seen.push(...summarize(m));
  return seen;
}

export function report(observations) {
  process.stdout.write(JSON.stringify(observations) + "\n");
}
