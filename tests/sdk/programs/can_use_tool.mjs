// canUseTool: a deny's message reaches the model as the tool result; an allow's updatedInput is what runs.
import { existsSync } from "node:fs";
import { base, collect, query, report } from "./common.mjs";

const asked = [];
const lines = await collect(query({
  prompt: "Run the two commands.",
  options: {
    ...base,
    canUseTool: async (name, input) => {
      asked.push([name, input.command]);
      if (input.command === "touch one.txt") return { behavior: "deny", message: "Policy: one.txt is off limits." };
      return { behavior: "allow", updatedInput: { ...input, command: "touch rewritten.txt" } };
    },
  },
}));
const cwd = process.env.SDK_CWD;
report({
  // A command's own output text differs between CLIs; a refusal's is the application's message.
  lines: lines.map((l) => ("result" in l && !l.error ? { ...l, result: "(ran)" } : l)),
  asked,
  files: ["one.txt", "two.txt", "rewritten.txt"].filter((f) => existsSync(`${cwd}/${f}`)),
});
