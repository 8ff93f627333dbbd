// stopTask(): a background agent that is still working is stopped; the program sees its notice.
import { base, query, report, summarize } from "./common.mjs";

const q = query({ prompt: "Start the background job.", options: { ...base } });
const seen = [];
const stops = [];
let stopped = false;
let last;
const notices = [];
for await (const m of q) {
  if (m.type === "system" && m.subtype === "task_started" && !stopped) {
    stopped = true;
    // An id nobody started is no error, as in Claude Code.
    stops.push(await q.stopTask("agent-nobody").then(() => "ok", (e) => `refused: ${e.message.slice(0, 60)}`));
    stops.push(await q.stopTask(m.task_id).then(() => "ok", (e) => `refused: ${e.message.slice(0, 60)}`));
  }
  // The notice and the turn's text may come in either order (the stop races the answer).
  if (m.type === "system" && m.subtype === "task_notification") notices.push(m.status);
  // Tool results carry the CLI's own texts; the results of turns are compared by the last one: Claude
  // Code ends the turn before the notice with a result of its own, Blade reports that turn in the same
  // result (docs/guides/migrating-from-claude-code.md, stream `system/init`).
  seen.push(...summarize(m).filter((l) => !("init" in l) && !("result" in l) && !("end" in l)));
  if (m.type === "result") last = summarize(m)[0];
}
report({ stops, seen, notices, last });
