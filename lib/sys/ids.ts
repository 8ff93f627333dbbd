// Owns random identifiers (the Ids port). Formats are part of the protocol: session ids are
// `session-` + 21 chars, child ids `agent-` + 21 chars, from the alphabet [A-Za-z0-9_-].

export interface Ids {
  /** 21 random characters from [A-Za-z0-9_-]. */
  random21(): string;
  uuid(): string;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

export function realIds(): Ids {
  return {
    random21() {
      const bytes = crypto.getRandomValues(new Uint8Array(21));
      let out = "";
      for (const b of bytes) out += ALPHABET[b & 63];
      return out;
    },
    uuid: () => crypto.randomUUID(),
  };
}

export function newAgentId(ids: Ids): string {
  return `agent-${ids.random21()}`;
}

export function newSessionId(ids: Ids): string {
  return `session-${ids.random21()}`;
}
