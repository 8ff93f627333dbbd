import assert from "node:assert/strict";
import { literalValue } from "./literal_word.ts";

// [word as written, its value, or undefined when bash may expand it]
const TABLE: [string, string | undefined][] = [
  ["echo", "echo"],
  ["--output=x", "--output=x"],
  ["'a b'", "a b"],
  ['"a b"', "a b"],
  ['"a\\"b"', 'a"b'],
  ['"a\\nb"', "a\\nb"],
  ["a\\ b", "a b"],
  ["t\\ouch", "touch"],
  ["'$(touch x)'", "$(touch x)"],
  ["HEAD~1", "HEAD~1"],
  ["~/x", undefined],
  ["a=~", undefined],
  ["a:~", undefined],
  ["$x", undefined],
  ['"$x"', undefined],
  ['"`x`"', undefined],
  ["$'touch'", undefined],
  ['$"touch"', undefined],
  ["*.ts", undefined],
  ["a?", undefined],
  ["[ab]", undefined],
  ["{a,b}", undefined],
  ["'unterminated", undefined],
  ['"unterminated', undefined],
  ["a\\", undefined],
  ["#x", undefined],
  ["é", "é"],
];

for (const [text, value] of TABLE) {
  Deno.test(`literalValue(${JSON.stringify(text)}) is ${JSON.stringify(value)}`, () => {
    assert.equal(literalValue(text), value);
  });
}
