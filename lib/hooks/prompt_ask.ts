// Owns sending a `prompt` hook's side request (prompt_hook.ts) through the run's provider: the
// session's model unless the hook names one (an alias resolved as `--model` resolves it), no tools,
// the answer held to the hook's JSON schema; the answer's text, or why there is none.

import type { Provider } from "../protocol/provider.ts";
import { textOf } from "../protocol/messages.ts";
import type { PromptHookAsk } from "./prompt_hook.ts";

export interface PromptAskOptions {
  provider: () => Promise<Provider>;
  /** The session's model (a hook without `model` asks it, as Claude Code 2.1.332 does). */
  model: string;
  /** A hook's `model` as a model id (aliases resolved). */
  resolve: (name: string) => string;
  sessionId: string;
}

/** A PromptHookAsk over the run's provider. */
export function providerAsk(o: PromptAskOptions): PromptHookAsk {
  return async (request, { signal }) => {
    const provider = await o.provider();
    let text: string | undefined;
    let failed = "no answer";
    for await (
      const event of provider.stream({
        model: request.model === undefined ? o.model : o.resolve(request.model),
        system: request.system,
        messages: request.messages,
        tools: [],
        maxTokens: 0,
        meta: { sessionId: o.sessionId, agentType: "hook", depth: 0 },
        outputSchema: request.schema,
      }, { signal })
    ) {
      if (event.type === "done") text = textOf(event.message);
      if (event.type === "error") failed = event.error.message;
    }
    return text === undefined ? { failed } : { text };
  };
}
