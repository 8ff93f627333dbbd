// Tests for redact_prints.ts: a printRedactor does what redactor() does with the secrets themselves, on
// texts built around the secrets (repeated, adjacent, overlapping, at either end, among non-ASCII text),
// and its prints never contain a secret.

import assert from "node:assert/strict";
import { printRedactor, secretPrints } from "./redact_prints.ts";
import { allForms, redactor } from "./redact.ts";

const SECRETS = ["sk-ant-api03-" + "Xy7_Qp2".repeat(13), "token-ABCDEFGH", "aaaa", "é€😀-secret-😀"];

/** A deterministic generator (xorshift), so a failure can be replayed. */
function generator(seed: number) {
  let x = seed;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

function textAround(next: (n: number) => number): string {
  const pieces = ["", " ", "a", "aa", "\n", '{"x":"', "é", "😀", "sk-ant", "Xy7_Qp2", "token-ABCDEFG"];
  let text = "";
  for (let i = next(30); i > 0; i--) {
    text += next(3) === 0 ? SECRETS[next(SECRETS.length)]! : pieces[next(pieces.length)]!;
  }
  return text;
}

Deno.test("printRedactor: the same text as redactor() with the secrets, over 2,000 generated texts", () => {
  const next = generator(0x9e3779b9);
  const direct = redactor(SECRETS);
  for (let i = 0; i < 2000; i++) {
    const prints = secretPrints(SECRETS, (n) => Array.from({ length: n }, () => next(2 ** 31) * 2 + next(2)));
    const text = textAround(next);
    assert.equal(printRedactor(prints)(text), direct(text), JSON.stringify(text));
  }
});

Deno.test("printRedactor: edge cases redact as the secrets would", () => {
  const key = SECRETS[0]!;
  const redact = printRedactor(secretPrints(SECRETS));
  const direct = redactor(SECRETS);
  for (
    const text of [
      "",
      key,
      key + key,
      `x${key}`,
      `${key}x`,
      key.slice(1),
      "aaaaaaaaa",
      "aaa",
      `"${key}"`,
      "😀",
    ]
  ) {
    assert.equal(redact(text), direct(text), JSON.stringify(text));
  }
  assert.equal(redact(`key=${key};`), "key=[REDACTED];");
  assert.equal(printRedactor(secretPrints([]))("nothing to do"), "nothing to do");
});

Deno.test("secretPrints: the prints hold no secret, and fresh bases each time", () => {
  const one = secretPrints(SECRETS);
  const text = JSON.stringify(one);
  for (const secret of SECRETS) assert.ok(!text.includes(secret), secret);
  // One print per form of each secret (redact.ts allForms), longest first.
  assert.deepEqual(one.prints.map((p) => p.length), allForms(SECRETS).map((s) => s.length));
  assert.notDeepEqual(secretPrints(SECRETS).bases, one.bases);
  // A long text with no secret in it stays as it is (no false match).
  const next = generator(7);
  const noise = Array.from({ length: 200_000 }, () => String.fromCharCode(32 + next(95))).join("");
  assert.equal(printRedactor(one)(noise), noise);
});
