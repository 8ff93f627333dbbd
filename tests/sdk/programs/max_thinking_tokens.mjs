// setMaxThinkingTokens() between turns: the fake model answers with the thinking it was asked for, so
// the program sees what each turn's request carried — on a budget model, an adaptive one that can be
// turned off, and a current one that cannot.
import { base, query, report } from "./common.mjs";

/** Each call's arguments, made after turn i + 1. */
const STEPS = [[3000], [0], [500, "summarized"], [null]];

async function session(model) {
  let next;
  const prompts = (async function* () {
    for (let i = 0; i <= STEPS.length; i++) {
      if (i > 0) await new Promise((resolve) => (next = resolve));
      yield { type: "user", message: { role: "user", content: `Turn ${i + 1}.` }, parent_tool_use_id: null };
    }
  })();
  const q = query({ prompt: prompts, options: { ...base, model } });
  const seen = [];
  const answers = [];
  for await (const m of q) {
    if (m.type !== "result") continue;
    seen.push(m.is_error ? `error: ${m.subtype}` : m.result);
    if (seen.length > STEPS.length) break;
    const [tokens, display] = STEPS[seen.length - 1];
    answers.push(
      await q.setMaxThinkingTokens(tokens, display).then(() => "ok", (e) => `refused: ${e.message.slice(0, 60)}`),
    );
    next();
  }
  return { seen, answers };
}

report({
  budget: await session("claude-sonnet-4-5"),
  adaptive: await session("claude-opus-4-6"),
  current: await session("opus"),
});
