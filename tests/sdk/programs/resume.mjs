// resume: a second query continues the first one's session (the model sees the earlier turn).
import { base, collect, query, report } from "./common.mjs";

let sessionId;
const first = [];
for await (const m of query({ prompt: "Remember the word cherry.", options: base })) {
  if (m.type === "result") sessionId = m.session_id;
}
first.push(typeof sessionId === "string" && sessionId !== "");
const second = await collect(query({ prompt: "Which word did I ask you to remember?", options: { ...base, resume: sessionId } }));
const fresh = await collect(query({ prompt: "Which word did I ask you to remember?", options: base }));
report({ first, second, fresh });
