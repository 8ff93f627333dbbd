// Owns the message clean-up both HTTP APIs need before translation: hidden messages become ordinary
// user messages, empty text blocks and empty messages are dropped, and consecutive messages of the
// same role are merged (the APIs require alternating roles); a call's input goes back as the model wrote
// it (lib/protocol/assigned_input.ts). Does not own any wire format.

import type { ContentBlock, Message, Role } from "../protocol/messages.ts";
import { modelInput } from "../protocol/assigned_input.ts";

export interface WireMessage {
  role: Role;
  content: ContentBlock[];
}

export function mergeForWire(messages: readonly Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages) {
    // A call goes back to the model as it wrote it: without the keys Blade assigned (an Agent call's id).
    const content = message.content.filter((b) => b.type !== "text" || b.text !== "").map((b) =>
      b.type === "tool_call" && modelInput(b.name, b.input) !== b.input
        ? { ...b, input: modelInput(b.name, b.input) }
        : b
    );
    if (content.length === 0) continue;
    const last = out.at(-1);
    if (last !== undefined && last.role === message.role) last.content.push(...content);
    else out.push({ role: message.role, content: [...content] });
  }
  return out;
}
