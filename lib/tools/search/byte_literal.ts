// Owns finding a literal in a file's raw bytes, so the built-in search decodes only the files that may
// match (builtin_engine.ts). The literal's UTF-8 bytes occur in a file's bytes exactly when the literal
// occurs in the file's decoded text (a decoder restarts at every lead byte, so an invalid sequence never
// swallows one that follows), except for a literal holding U+FFFD or a byte order mark: for those, and
// for an empty literal, there is no byte finder. The scan jumps between occurrences of the literal's
// rarest byte (Uint8Array.indexOf, native) and checks the rest there, as ripgrep's prefilter does.
// Pure, no I/O.

/** Lowercase letters from the most to the least common in source text. */
const LETTERS = "etaoinsrhldcumfpgwybvkxjqz";

/** How rare a byte is likely to be in source text (higher is rarer). */
function rarity(byte: number): number {
  if (byte >= 0x80) return 60;
  if (byte === 0x20 || byte === 0x0a || byte === 0x09) return 0;
  const c = String.fromCharCode(byte);
  const letter = LETTERS.indexOf(c);
  if (letter >= 0) return 1 + letter;
  if (c >= "A" && c <= "Z") return 30 + LETTERS.indexOf(c.toLowerCase());
  if (c >= "0" && c <= "9") return 28;
  if ("();,.=\"':{}/".includes(c)) return 27;
  return 56;
}

/** A test of whether `literal` occurs in a file's bytes, or undefined when bytes cannot tell. */
export function byteFinder(literal: string): ((bytes: Uint8Array) => boolean) | undefined {
  if (literal === "" || literal.includes("\uFFFD") || literal.includes("\uFEFF")) return undefined;
  const needle = new TextEncoder().encode(literal);
  let pivot = 0;
  for (let i = 1; i < needle.length; i++) if (rarity(needle[i]!) > rarity(needle[pivot]!)) pivot = i;
  const byte = needle[pivot]!;
  const last = needle.length - 1;
  return (bytes) => {
    const end = bytes.length - (last - pivot);
    for (let at = bytes.indexOf(byte, pivot); at >= 0 && at < end; at = bytes.indexOf(byte, at + 1)) {
      const start = at - pivot;
      let j = 0;
      while (j <= last && bytes[start + j] === needle[j]) j++;
      if (j > last) return true;
    }
    return false;
  };
}
