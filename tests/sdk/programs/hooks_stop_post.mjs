// PostToolUse and Stop hook callbacks: PostToolUse sees the call and its response and adds context the
// model sees; Stop blocks the first end, so the model answers once more, and lets the second one pass.
import { base, collect, query, report } from "./common.mjs";

const seen = [];
const lines = await collect(query({
  prompt: "Make a file and say done.",
  options: {
    ...base,
    permissionMode: "bypassPermissions",
    allowDangerouslySkipPermissions: true,
    hooks: {
      PostToolUse: [{
        matcher: "Bash",
        hooks: [async (input) => {
          seen.push([input.hook_event_name, input.tool_name, input.tool_input.command, typeof input.tool_response]);
          return { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "Remember to say DONE." } };
        }],
      }],
      Stop: [{
        hooks: [async (input) => {
          seen.push([input.hook_event_name, input.stop_hook_active, input.last_assistant_message]);
          return input.stop_hook_active ? {} : { decision: "block", reason: "Say DONE in capitals." };
        }],
      }],
    },
  },
}));
report({ lines, seen });
