// Owns redacting a run's text deltas on their joined text (docs/guides/permissions.md "Secrets"): each
// session's stream of `text_delta` events (a child's arrive wrapped as `subagent_event`) goes through a
// StreamRedactor (config/redact.ts), which holds back the end of the text that could start a secret;
// the session's next other event (its assistant message, a retry, the turn's end) first releases what
// was held, as one more delta. So `--include-partial-messages`, stream-json, blade-events, text output
// and the interactive view never show a secret split over deltas. Every line printed is redacted again
// as a whole (io.ts redactedIo). Pure event mapping; prints nothing.

import type { RuntimeEvent } from "../protocol/events.ts";
import { StreamRedactor } from "../config/redact.ts";

type TextDelta = Extract<RuntimeEvent, { type: "text_delta" }>;

/** A delta event carrying `text`: the inner event of a wrapped one is replaced. */
function withText(event: RuntimeEvent, o: { delta: TextDelta; text: string }): RuntimeEvent {
  const { delta, text } = o;
  const inner: TextDelta = { ...delta, text };
  return event.type === "subagent_event" ? { ...event, event: inner } : inner;
}

/** Maps each event to the events to show instead (none while a delta is held back, two when one is released). */
export function deltaRedaction(secrets: () => readonly string[]) {
  const streams = new Map<string, { redactor: StreamRedactor; event: RuntimeEvent; delta: TextDelta }>();
  const release = (key: string): RuntimeEvent[] => {
    const s = streams.get(key);
    if (s === undefined) return [];
    streams.delete(key);
    const rest = s.redactor.flush();
    return rest === "" ? [] : [withText(s.event, { delta: s.delta, text: rest })];
  };
  return {
    map(event: RuntimeEvent): RuntimeEvent[] {
      const inner = event.type === "subagent_event" ? event.event : event;
      const session = "sessionId" in inner ? inner.sessionId : "";
      const key = event.type === "subagent_event" ? `${event.agentId}/${session}` : session;
      if (inner.type !== "text_delta") return [...release(key), event];
      const s = streams.get(key) ?? { redactor: new StreamRedactor(secrets), event, delta: inner };
      streams.set(key, { ...s, event, delta: inner });
      const text = s.redactor.push(inner.text);
      return text === "" ? [] : [withText(event, { delta: inner, text })];
    },
    /** Everything still held (the run ends). */
    flush(): RuntimeEvent[] {
      return [...streams.keys()].flatMap(release);
    },
  };
}
