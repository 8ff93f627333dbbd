// Owns sending model requests with a key that can change (docs/guides/memory.md#apikeyhelper): a fetch
// that asks its key source before each request, sends the key as `Authorization: Bearer` (and as
// `x-api-key` unless one is set already, as Claude Code 2.1.332 does), and on a 401 asks for a fresh
// key once and sends the request again. Used by the provider and by the main thread's proxy of
// children's requests, so no credential reaches a child.

/** Where the key comes from (api_key_helper.ts). */
export interface KeySource {
  key(): Promise<string>;
  /** The key was refused: the next key() gets a fresh one. */
  invalidate(): void;
}

export function keyedFetch(source: KeySource, base: typeof fetch = fetch): typeof fetch {
  const send = async (input: RequestInfo | URL, init: RequestInit | undefined, key: string) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${key}`);
    if (!headers.has("x-api-key")) headers.set("x-api-key", key);
    return await base(input, { ...init, headers });
  };
  return async (input, init) => {
    const first = await send(input, init, await source.key());
    if (first.status !== 401) return first;
    await first.body?.cancel().catch(() => {});
    source.invalidate();
    return await send(input, init, await source.key());
  };
}
