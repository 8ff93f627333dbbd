import assert from "node:assert/strict";
import type { ProviderError } from "../protocol/provider.ts";
import { providerErrorHint } from "./error_hint.ts";

const anthropic = { provider: "anthropic", model: "claude-x" };

Deno.test("providerErrorHint: each failure says what to do, naming the variable or flag that fixes it", () => {
  const cases: [ProviderError, RegExp][] = [
    [{ kind: "auth", status: 401, message: "" }, /ANTHROPIC_API_KEY .*ANTHROPIC_BASE_URL/],
    [{ kind: "auth", status: 403, message: "" }, /may not use this model .*--model/],
    [{ kind: "invalid_request", status: 404, message: "" }, /does not know the model "claude-x".*--model/],
    [{ kind: "invalid_request", status: 400, message: "" }, /--debug/],
    [{ kind: "rate_limit", status: 429, message: "" }, /wait a minute .*CLAUDE_CODE_MAX_RETRIES/],
    [{ kind: "overloaded", status: 529, message: "" }, /--fallback-model/],
    [{ kind: "server", status: 500, message: "" }, /run again/],
    [{ kind: "network", message: "" }, /could not reach .*ANTHROPIC_BASE_URL.*HTTPS_PROXY/],
    [{ kind: "timeout", message: "" }, /API_TIMEOUT_MS/],
    [{ kind: "stream", message: "" }, /cut off/],
  ];
  for (const [error, want] of cases) {
    assert.match(providerErrorHint(error, anthropic) ?? "", want, `${error.kind} ${error.status}`);
  }
  assert.equal(providerErrorHint({ kind: "aborted", message: "" }, anthropic), undefined);
  assert.match(
    providerErrorHint({ kind: "auth", status: 401, message: "" }, { provider: "openai", model: "m" })!,
    /OPENAI_API_KEY .*OPENAI_BASE_URL/,
  );
});
