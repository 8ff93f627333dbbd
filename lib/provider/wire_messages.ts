// Owns the message clean-up both HTTP APIs need before translation: hidden messages become ordinary
// user messages, empty text blocks and empty messages are dropped, and consecutive messages of the
// same role are merged (the APIs require alternating roles). Does not own any wire format.

import type { ContentBlock, Message, Role } from "../protocol/messages.ts";

export interface WireMessage {
  role: Role;
  content: ContentBlock[];
}

export function mergeForWire(messages: readonly Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages) {
    const content = message.content.filter((b) => b.type !== "text" || b.text !== "");
    if (content.length === 0) continue;
    const last = out.at(-1);
    if (last !== undefined && last.role === message.role) last.content.push(...content);
    else out.push({ role: message.role, content: [...content] });
  }
  return out;
}
