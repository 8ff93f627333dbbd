import assert from "node:assert/strict";
import { byteFinder } from "./byte_literal.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

Deno.test("byteFinder answers as the decoded text's includes(), at any pivot, in valid and invalid UTF-8", () => {
  const texts: Uint8Array[] = [
    utf8("pub fn op_state(x) {}\n"),
    utf8("fn op"),
    utf8("op_ at the start"),
    utf8("ends with fn op_"),
    utf8("__ _ op op_op_ fn  op_"),
    utf8("naïve café — ünïcödé fn op_é"),
    new Uint8Array([0xe2, ...utf8("fn op_x"), 0xff, 0x80]),
    new Uint8Array([0xf0, 0x9f, ...utf8("café")]),
    new Uint8Array(0),
  ];
  const literals = ["fn op_", "op_", "_", "f", "café", "é", "Z", "fn op_é", "ünïcödé fn"];
  for (const literal of literals) {
    const find = byteFinder(literal)!;
    for (const bytes of texts) {
      const text = new TextDecoder().decode(bytes);
      assert.equal(find(bytes), text.includes(literal), `${literal} in ${JSON.stringify(text)}`);
    }
  }
});

Deno.test("byteFinder gives no finder where bytes cannot tell (empty, U+FFFD, a byte order mark)", () => {
  assert.equal(byteFinder(""), undefined);
  assert.equal(byteFinder("a\uFFFDb"), undefined);
  assert.equal(byteFinder("\uFEFFx"), undefined);
});
