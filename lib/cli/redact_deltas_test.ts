import assert from "node:assert/strict";
import type { RuntimeEvent } from "../protocol/events.ts";
import { deltaRedaction } from "./redact_deltas.ts";

const KEY = "sk-ant-api03-SECRETSECRETSECRET";

function deltas(sessionId: string, text: string, size: number): RuntimeEvent[] {
  const out: RuntimeEvent[] = [];
  for (let i = 0; i < text.length; i += size) {
    out.push({ type: "text_delta", sessionId, text: text.slice(i, i + size) });
  }
  return out;
}

const textOf = (events: RuntimeEvent[], session: string) =>
  events.map((e) => {
    const inner = e.type === "subagent_event" ? e.event : e;
    return inner.type === "text_delta" && inner.sessionId === session ? inner.text : "";
  }).join("");

Deno.test("deltaRedaction: a key streamed in small deltas (a child's too) is shown redacted, never in pieces", () => {
  for (let size = 1; size <= KEY.length + 2; size++) {
    const redaction = deltaRedaction(() => [KEY]);
    const child = deltas("agent-c", `child says ${KEY} ok`, size).map((event): RuntimeEvent => ({
      type: "subagent_event",
      parentSessionId: "main",
      agentId: "agent-c",
      event,
    }));
    const input: RuntimeEvent[] = [
      ...deltas("main", `The key is ${KEY}, see`, size),
      ...child,
      { type: "retry", sessionId: "main", attempt: 1, delayMs: 0, reason: "x" },
    ];
    const shown = [...input.flatMap((e) => redaction.map(e)), ...redaction.flush()];
    assert.equal(textOf(shown, "main"), "The key is [REDACTED], see", `size ${size}`);
    assert.equal(textOf(shown, "agent-c"), "child says [REDACTED] ok", `size ${size}`);
    // What was held is released before the session's next event, in order.
    assert.equal(shown.at(-1)?.type === "subagent_event" || shown.some((e) => e.type === "retry"), true);
    const retry = shown.findIndex((e) => e.type === "retry");
    assert.ok(shown.slice(retry + 1).every((e) => e.type === "subagent_event"), `size ${size}`);
    for (const e of shown) assert.ok(!JSON.stringify(e).includes("SECRET"), JSON.stringify(e));
  }
});
