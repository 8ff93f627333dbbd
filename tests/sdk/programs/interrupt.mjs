// interrupt(): the turn under way stops, and the session answers the next message.
import { base, query, report, summarize } from "./common.mjs";

let next;
const prompts = (async function* () {
  yield { type: "user", message: { role: "user", content: "Think for a long time." }, parent_tool_use_id: null };
  await new Promise((resolve) => (next = resolve));
  yield { type: "user", message: { role: "user", content: "Say hello." }, parent_tool_use_id: null };
})();
const q = query({ prompt: prompts, options: { ...base, includePartialMessages: true } });
const turns = [];
let lines = [];
let interrupted = false;
for await (const m of q) {
  // The first answer has started streaming (its first partial text): interrupt it.
  if (m.type === "stream_event" && !interrupted) {
    interrupted = true;
    await q.interrupt();
    continue;
  }
  lines.push(...summarize(m).filter((l) => !("text" in l) || turns.length > 0));
  if (m.type === "result") {
    turns.push(lines);
    lines = [];
    if (turns.length === 1) next();
    else break;
  }
}
report({ turns, interrupted });
