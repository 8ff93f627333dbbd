// Tests for redact.ts: every form of a secret is redacted (as written, JSON-escaped once and twice,
// URL-encoded), and a stream redacted piece by piece gives the joined text redacted, whatever the split.

import assert from "node:assert/strict";
import { redactor, secretForms, StreamRedactor } from "./redact.ts";

const QUOTED = 'sk-ant-q"uo\\te/secret+key=1';
const PLAIN = "sk-ant-api03-abcdefABCDEF0123456789";

Deno.test("secretForms: as written, JSON-escaped once and twice, URL-encoded (both hex cases), encodeURI", () => {
  assert.deepEqual(
    new Set(secretForms(QUOTED)),
    new Set([
      QUOTED,
      'sk-ant-q\\"uo\\\\te/secret+key=1',
      'sk-ant-q\\\\\\"uo\\\\\\\\te/secret+key=1',
      "sk-ant-q%22uo%5Cte%2Fsecret%2Bkey%3D1",
      "sk-ant-q%22uo%5cte%2fsecret%2bkey%3d1",
      "sk-ant-q%22uo%5Cte/secret+key=1",
    ]),
  );
  assert.deepEqual(secretForms(PLAIN), [PLAIN]);
  assert.deepEqual(secretForms(""), []);
});

Deno.test('redactor: a secret with " or \\ is redacted in a JSON line and in a URL, not only as written', () => {
  const redact = redactor([QUOTED]);
  const line = JSON.stringify({ type: "assistant", text: `key ${QUOTED} end` });
  assert.equal(redact(line), '{"type":"assistant","text":"key [REDACTED] end"}');
  const nested = JSON.stringify({ input: JSON.stringify({ key: QUOTED }) });
  assert.equal(redact(nested).includes("uo"), false, redact(nested));
  assert.equal(
    redact(`https://x.test/?k=${encodeURIComponent(QUOTED)}&c=${encodeURI(QUOTED)}`),
    "https://x.test/?k=[REDACTED]&c=[REDACTED]",
  );
});

/** Every way of cutting `text` into two or three pieces (every split point, and pairs of them). */
function splits(text: string): string[][] {
  const out: string[][] = [];
  for (let i = 0; i <= text.length; i++) {
    out.push([text.slice(0, i), text.slice(i)]);
    for (let j = i; j <= text.length; j += 3) out.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  }
  return out;
}

Deno.test("StreamRedactor: at every split point, the joined pieces are the joined text redacted", () => {
  const secrets = [PLAIN, QUOTED];
  const redact = redactor(secrets);
  const texts = [
    `The key is ${PLAIN}.`,
    `${PLAIN}${PLAIN}`,
    `quoted: ${JSON.stringify(QUOTED).slice(1, -1)} and url ${encodeURIComponent(QUOTED)}`,
    `sk-ant-api03-abc almost, then ${PLAIN}`,
  ];
  let checked = 0;
  for (const text of texts) {
    for (const pieces of splits(text)) {
      const stream = new StreamRedactor(() => secrets);
      const shown = pieces.map((p) => stream.push(p));
      shown.push(stream.flush());
      const joined = shown.join("");
      assert.equal(joined, redact(text), JSON.stringify(pieces));
      // No piece shown on its way, nor any two neighbours, holds a secret's part that completes it.
      for (const form of secrets.flatMap(secretForms)) assert.ok(!joined.includes(form));
      checked++;
    }
  }
  assert.ok(checked > 1000, `${checked}`);
});

Deno.test("StreamRedactor: one character at a time, nothing of a key is shown before it can be told apart", () => {
  const stream = new StreamRedactor(() => [PLAIN]);
  const shown = [...`ab ${PLAIN} cd`].map((c) => stream.push(c));
  assert.equal(shown.join("") + stream.flush(), "ab [REDACTED] cd");
  assert.ok(shown.every((s) => !s.includes("sk-")), JSON.stringify(shown));
});
