// setPermissionMode on a running session: a write refused in default mode runs after acceptEdits.
import { existsSync } from "node:fs";
import { base, query, report, summarize } from "./common.mjs";

const turns = [];
let next;
const prompts = (async function* () {
  yield { type: "user", message: { role: "user", content: "Write first.txt." }, parent_tool_use_id: null };
  await new Promise((resolve) => (next = resolve));
  yield { type: "user", message: { role: "user", content: "Write second.txt." }, parent_tool_use_id: null };
})();
const q = query({ prompt: prompts, options: { ...base } });
let lines = [];
const changes = [];
for await (const m of q) {
  // A refusal's and a write's texts are the CLI's own: only whether the call failed is compared.
  lines.push(...summarize(m).map((l) => ("result" in l ? { error: l.error } : l)));
  if (m.type === "result") {
    turns.push(lines);
    lines = [];
    if (turns.length === 1) {
      changes.push(await q.setPermissionMode("acceptEdits"));
      next();
    } else break;
  }
}
const cwd = process.env.SDK_CWD;
report({
  turns,
  changes,
  files: ["first.txt", "second.txt"].filter((f) => existsSync(`${cwd}/${f}`)),
});
