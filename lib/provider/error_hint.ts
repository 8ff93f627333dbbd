// Owns what to do about a model provider's failure: one hint per kind of failure (a bad key, a model
// the endpoint does not know, rate limits, an overloaded model, server errors, an unreachable server,
// timeouts, a cut stream), naming the variables and flags that fix it. Pure: the CLI prints it under
// the failure's message (docs/troubleshooting.md lists the same hints).

import type { ProviderError } from "../protocol/provider.ts";

export interface HintContext {
  /** The provider that failed: its key and base URL variables differ. */
  provider: string;
  model: string;
}

function keyVariables(provider: string): string {
  return provider === "openai"
    ? "OPENAI_API_KEY"
    : "ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a gateway, or BLADE_API_KEY)";
}

function urlVariable(provider: string): string {
  return provider === "openai" ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL";
}

/** What to do about `error`, or undefined when there is nothing to do (a cancellation). */
export function providerErrorHint(error: ProviderError, context: HintContext): string | undefined {
  const { provider, model } = context;
  switch (error.kind) {
    case "auth":
      return error.status === 403
        ? `The key is valid but may not use this model or endpoint: check its permissions, or choose another model with --model.`
        : `Check the API key: ${keyVariables(provider)} must be set to a valid key for ${
          urlVariable(provider)
        }.`;
    case "invalid_request":
      if (error.status === 404) {
        return `The endpoint does not know the model "${model}" (or the URL is wrong): choose another with --model (sonnet, opus, haiku or a full model id), and check ${
          urlVariable(provider)
        }.`;
      }
      if (error.status === 413) return "The request is too large: start a new session, or send less at once.";
      return "The API refused the request: run again with --debug to see it (keys redacted), and report it if Blade built it wrong.";
    case "rate_limit":
      return "Rate limited: wait a minute and run again, start fewer subagents at once, or raise the retries with CLAUDE_CODE_MAX_RETRIES.";
    case "overloaded":
      return "The model is overloaded: run again later, or pass --fallback-model <model> to switch when it is.";
    case "server":
      return "The API had a server error: run again; if it persists, check the provider's status page.";
    case "network":
      return `Blade could not reach the API: check ${
        urlVariable(provider)
      }, your network, and HTTPS_PROXY if you use a proxy.`;
    case "timeout":
      return "No answer in time: run again, or raise API_TIMEOUT_MS (the request timeout) if the server is slow.";
    case "stream":
      return "The answer's stream was cut off: run again; --debug logs the requests.";
    case "script":
      return "The scripted provider's script ended or failed here: see docs/guides/scripted-provider.md.";
    case "aborted":
      return undefined;
  }
}
