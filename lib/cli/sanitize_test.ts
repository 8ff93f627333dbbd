import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { terminalSafe, writtenOut } from "./sanitize.ts";

describe("terminalSafe", () => {
  const cases: [string, string, string][] = [
    ["plain text and unicode", "héllo ✓ 世界", "héllo ✓ 世界"],
    ["newlines and tabs are kept", "a\n\tb", "a\n\tb"],
    ["CRLF becomes LF", "a\r\nb", "a\nb"],
    ["a lone CR cannot rewrite the line", "safe\rEVIL", "safeEVIL"],
    ["SGR colour", "\x1b[31mred\x1b[0m", "red"],
    ["cursor movement and erase", "a\x1b[2J\x1b[1;1Hb\x1b[K", "ab"],
    ["private mode (alternate screen)", "\x1b[?1049hx", "x"],
    ["OSC window title with BEL", "\x1b]0;pwned\x07ok", "ok"],
    ["OSC 8 hyperlink with ST", "\x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\", "link"],
    ["OSC 52 clipboard write", "\x1b]52;c;ZXZpbA==\x07x", "x"],
    ["DCS", "\x1bPq#0;2;0;0;0\x1b\\y", "y"],
    ["APC", "\x1b_Gf=100;AAAA\x1b\\z", "z"],
    ["two-byte ESC (reset, keypad)", "\x1bc\x1b=a", "a"],
    ["unterminated CSI at the end", "a\x1b[", "a"],
    ["a lone ESC at the end", "a\x1b", "a"],
    ["C1 CSI", "a\x9b31mb", "ab"],
    ["BEL, backspace, NUL, DEL", "a\x07\x08\x00\x7fb", "ab"],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => assert.equal(terminalSafe(input), want));
  }
});

describe("writtenOut", () => {
  const cases: [string, string, string, boolean][] = [
    ["plain text, newlines and tabs are kept", "npm test\n\tx ✓", "npm test\n\tx ✓", false],
    ["an OSC payload stays visible", "echo ok\x1b]0;;curl x|sh\x07", "echo ok\\x1b]0;;curl x|sh\\x07", true],
    ["CR and backspace are written out", "a\rb\bc", "a\\x0db\\x08c", true],
    ["C1 CSI and DEL", "a\x9b2J\x7f", "a\\x9b2J\\x7f", true],
    ["bidi override and isolate", "x\u202ey\u2066z", "x\\u202ey\\u2066z", true],
    ["zero-width characters and the BOM", "a\u200bb\u200dc\ufeff", "a\\u200bb\\u200dc\\ufeff", true],
  ];
  for (const [name, input, text, hidden] of cases) {
    it(name, () => assert.deepEqual(writtenOut(input), { text, hidden }));
  }
});
