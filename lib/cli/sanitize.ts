// Owns making model-, file- and child-controlled text safe to put on a terminal: escape sequences
// (CSI, OSC, DCS/APC/PM/SOS, two-byte ESC), C0 controls other than newline and tab, DEL, C1 controls
// and lone carriage returns are removed, so such text can never move the cursor, retitle the window,
// set a hyperlink, rewrite earlier lines or talk to the terminal. Pure. Blade's own styling is added
// after sanitising, by the renderers.

const SEQUENCES = new RegExp(
  [
    String.raw`\x1b\[[0-?]*[ -/]*[@-~]?`, // CSI (colours, cursor movement, erase, modes)
    String.raw`\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?`, // OSC (title, hyperlink, clipboard)
    String.raw`\x1b[PX^_][^\x1b]*(?:\x1b\\)?`, // DCS, SOS, PM, APC
    String.raw`\x1b[ -/]*[0-~]?`, // two-byte ESC sequences and a lone ESC
    String.raw`\x9b[0-?]*[ -/]*[@-~]?`, // C1 CSI
    String.raw`[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?`, // C1 strings
  ].join("|"),
  "g",
);
const CONTROLS = new RegExp(String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f]`, "g");

/** `text` without anything a terminal would interpret; newlines and tabs are kept, `\r\n` becomes `\n`. */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(SEQUENCES, "").replace(CONTROLS, "");
}

/**
 * Controls and the invisible or reordering Unicode characters (zero-width, bidi embeddings, overrides
 * and isolates, line and paragraph separators, the BOM): what can hide or disguise part of a text.
 */
const HIDING = new RegExp(
  String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]`,
  "g",
);

/**
 * `text` as a person must see it before approving it (a command, a path): every control, escape and
 * invisible or reordering character written out as `\xNN` / `\uNNNN` instead of removed, so no part
 * of what runs can be hidden (an escape sequence's payload, a rewritten line, a reversed word).
 * Newlines and tabs are kept; `hidden` says whether anything was written out.
 */
export function writtenOut(text: string): { text: string; hidden: boolean } {
  let hidden = false;
  const out = text.replace(HIDING, (c) => {
    hidden = true;
    const code = c.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
  return { text: out, hidden };
}

/** `value` with every string in it made terminal-safe (plain data: objects, arrays, strings). */
export function terminalSafeDeep<T>(value: T): T {
  if (typeof value === "string") return terminalSafe(value) as T;
  if (Array.isArray(value)) return value.map(terminalSafeDeep) as T;
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, terminalSafeDeep(v)])) as T;
}

const JSON_UNSAFE = /[\x7f-\x9f]/g;

/**
 * A JSON text with DEL and the C1 controls written as `\u00XX` escapes. JSON.stringify already
 * escapes C0 controls (ESC included) but leaves U+007F–U+009F raw, and some terminals act on a C1
 * control (U+009B is CSI, U+009D is OSC). The value parsed back is the same; only `line`'s own
 * strings can hold such characters, since JSON's syntax is ASCII.
 */
export function jsonTerminalSafe(line: string): string {
  return line.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
