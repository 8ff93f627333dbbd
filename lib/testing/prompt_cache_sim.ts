// Owns a model of Anthropic's prompt cache for the fake server: given the request bodies one client
// sends, in order, the usage the API would report (input tokens, cache reads, cache writes), so the
// bench and tests can measure what a client's breakpoints save. Not the real thing: tokens are
// estimated as 4 characters each, entries never expire, and a lookup may match any earlier
// breakpoint's prefix (the API looks back about 20 blocks). The same model measures every client.
// Never imported by main.ts.
//
// The request is read as the API reads it: tools, then system blocks, then message blocks, one
// prefix. A breakpoint (`cache_control`) writes the prefix up to its block, when at least
// `minimumTokens` long; a request reads the longest cached prefix ending at or before its last
// breakpoint, writes the rest up to that breakpoint, and pays full price for what follows.

import type { AnthropicRequestBody } from "../provider/anthropic_wire.ts";

export interface CacheUsage {
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

export interface PromptCacheSim {
  /** The usage of one request; records its breakpoints' prefixes. */
  usage(body: AnthropicRequestBody): CacheUsage;
}

/** Billed input-token equivalents at Anthropic's 5-minute cache prices: writes 1.25×, reads 0.1×. */
export function billedInput(u: CacheUsage): number {
  return u.inputTokens + 1.25 * u.cacheCreationInputTokens + 0.1 * u.cacheReadInputTokens;
}

interface Segment {
  tokens: number;
  breakpoint: boolean;
  /** Hash of the prefix up to and including this segment. */
  key: string;
}

export function promptCacheSim(options: { minimumTokens?: number } = {}): PromptCacheSim {
  const minimum = options.minimumTokens ?? 1024;
  const cache = new Set<string>();
  return {
    usage(body) {
      const segments = segmentsOf(body);
      let total = 0;
      let lastBreak = -1;
      const upTo: number[] = [];
      segments.forEach((s, i) => {
        total += s.tokens;
        upTo.push(total);
        if (s.breakpoint) lastBreak = i;
      });
      let read = 0;
      for (let i = lastBreak; i >= 0; i--) {
        if (cache.has(segments[i]!.key)) {
          read = upTo[i]!;
          break;
        }
      }
      const written = lastBreak < 0 ? 0 : upTo[lastBreak]! - read;
      segments.forEach((s, i) => {
        if (s.breakpoint && upTo[i]! >= minimum) cache.add(s.key);
      });
      return {
        inputTokens: total - read - written,
        cacheReadInputTokens: read,
        cacheCreationInputTokens: written,
      };
    },
  };
}

function segmentsOf(body: AnthropicRequestBody): Segment[] {
  const raw: unknown[] = [
    ...(body.tools ?? []),
    ...(typeof body.system === "string" ? [{ type: "text", text: body.system }] : body.system ?? []),
    ...(body.messages ?? []).flatMap((m) => {
      // Other clients (Claude Code) may send a message's content as one string.
      const content = m.content as unknown as string | object[];
      return typeof content === "string"
        ? [{ role: m.role, type: "text", text: content }]
        : content.map((b) => ({ role: m.role, ...b }));
    }),
  ];
  let hash = "";
  return raw.map((item) => {
    const { cache_control, ...rest } = item as { cache_control?: unknown };
    const text = JSON.stringify(rest);
    hash = digest(hash + text);
    return { tokens: Math.ceil(text.length / 4), breakpoint: cache_control !== undefined, key: hash };
  });
}

/** A 53-bit string hash (cyrb53) as hex: enough to tell prefixes apart in a bench. */
function digest(text: string): string {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16);
}
