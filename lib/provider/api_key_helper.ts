// Owns `apiKeyHelper` (docs/guides/memory.md#apikeyhelper): the settings' shell command whose output is
// the API key, run when a key is first needed, again after CLAUDE_CODE_API_KEY_HELPER_TTL_MS (default
// 5 minutes) and after a 401. Its output is a secret: never logged, never stored, redacted like a key
// (`onKey` hands each new value to the run's redaction before anyone uses it).

import type { Ports } from "../sys/mod.ts";
import type { Process } from "../sys/process.ts";
import type { Clock } from "../sys/clock.ts";
import { BladeError } from "../errors.ts";
import { keyedFetch } from "./key_fetch.ts";

/** How long a key is used before the helper runs again, unless CLAUDE_CODE_API_KEY_HELPER_TTL_MS says. */
export const DEFAULT_KEY_HELPER_TTL_MS = 300_000;
/** A helper that runs longer than this fails. */
export const KEY_HELPER_TIMEOUT_MS = 60_000;

export interface ApiKeyHelperOptions {
  process: Process;
  clock: Pick<Clock, "now">;
  command: string;
  /** Where the command runs (the working folder). */
  cwd: string;
  ttlMs?: number;
  /** Every new key, before it is used (the run's redaction adds it). */
  onKey?: (key: string) => void;
}

export class ApiKeyHelper {
  #o: ApiKeyHelperOptions;
  #key: { value: string; at: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(options: ApiKeyHelperOptions) {
    this.#o = options;
  }

  /** The current key: the cached one within its TTL, else the helper's fresh output. */
  key(): Promise<string> {
    const cached = this.#key;
    if (
      cached !== undefined && this.#o.clock.now() - cached.at < (this.#o.ttlMs ?? DEFAULT_KEY_HELPER_TTL_MS)
    ) {
      return Promise.resolve(cached.value);
    }
    return this.#pending ??= this.#run().finally(() => (this.#pending = undefined));
  }

  /** The key was refused (401): the next key() runs the helper again. */
  invalidate(): void {
    this.#key = undefined;
  }

  async #run(): Promise<string> {
    const { process, command, cwd } = this.#o;
    let result;
    try {
      result = await process.run("/bin/sh", ["-c", command], { cwd, timeoutMs: KEY_HELPER_TIMEOUT_MS });
    } catch {
      throw failed("it could not be started");
    }
    // Neither output is shown: either may hold the key.
    if (result.timedOut) throw failed(`it ran longer than ${KEY_HELPER_TIMEOUT_MS / 1000} s`);
    if (result.code !== 0) throw failed(`it exited with code ${result.code}`);
    const value = result.stdout.trim();
    if (value === "" || /\s/.test(value)) throw failed("it printed no key (one line without spaces)");
    this.#o.onKey?.(value);
    this.#key = { value, at: this.#o.clock.now() };
    return value;
  }
}

function failed(why: string): BladeError {
  return new BladeError("api_key_helper_failed", `The apiKeyHelper command of the settings failed: ${why}.`, {
    hint:
      "Run the command yourself to see why, then fix it or the apiKeyHelper setting. Its output is never shown.",
  });
}

/**
 * The settings' apiKeyHelper for an Anthropic run (user settings always, project ones when trusted), and
 * the fetch that sends its key.
 */
export function apiKeyHelperOf(
  ports: Pick<Ports, "process" | "clock" | "env">,
  o: {
    config: { provider: string };
    claude: { apiKeyHelper?: string };
    cwd: string;
    onKey: (key: string) => void;
  },
): { helper: ApiKeyHelper; fetch: typeof fetch } | undefined {
  const command = o.claude.apiKeyHelper;
  if (command === undefined || o.config.provider !== "anthropic") return undefined;
  const ttl = Number(ports.env.get("CLAUDE_CODE_API_KEY_HELPER_TTL_MS"));
  const helper = new ApiKeyHelper({
    process: ports.process,
    clock: ports.clock,
    command,
    cwd: o.cwd,
    ...(Number.isFinite(ttl) && ttl > 0 ? { ttlMs: ttl } : {}),
    onKey: o.onKey,
  });
  return { helper, fetch: keyedFetch(helper) };
}
