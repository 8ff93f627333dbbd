// Owns what the model is sent in place of a tool result too large for the conversation, as Claude Code
// 2.1.332 does (docs/reference/limits.md "Large tool results"; golden tests/fixtures/claude/large_result/):
// past its tool's size the result is saved whole to a file and the model gets a `<persisted-output>`
// block — the size, the file's path (which it may Read) and the first 2 KB of the text, cut at a line
// end. When the file cannot be written the model gets a `<truncated-output>` block with the head only.
// Pure: the executor writes the file (executor/result_persistence.ts).

/** A result past this many characters is saved to a file (Claude Code's default; a tool may set less). */
export const MAX_RESULT_CHARS = 50_000;
/** The preview's size: the first 2,000 characters, cut at the last line end past half of it. */
export const PREVIEW_CHARS = 2_000;

const OPEN = "<persisted-output>";
const CLOSE = "</persisted-output>";

/** Claude Code's size words: `512 bytes`, `195.3KB`, `2KB`, `1.5MB`. */
export function formatSize(bytes: number): string {
  const kb = bytes / 1024;
  const one = (n: number) => n.toFixed(1).replace(/\.0$/, "");
  if (kb < 1) return `${bytes} bytes`;
  if (kb < 1024) return `${one(kb)}KB`;
  const mb = kb / 1024;
  return mb < 1024 ? `${one(mb)}MB` : `${one(mb / 1024)}GB`;
}

/**
 * The characters past which a result is saved to a file: the result's own limit (Bash's, from
 * BASH_MAX_OUTPUT_LENGTH) as it is, else its tool's, never above the default; Infinity = never.
 */
export function resultLimit(o: { result?: number | undefined; tool?: number | undefined }): number {
  if (o.result !== undefined) return o.result;
  const own = o.tool ?? MAX_RESULT_CHARS;
  return Number.isFinite(own) ? Math.min(own, MAX_RESULT_CHARS) : own;
}

/** The head of `text` shown to the model: whole when short, else cut at a line end in its second half. */
export function preview(text: string, max = PREVIEW_CHARS): { text: string; more: boolean } {
  if (text.length <= max) return { text, more: false };
  const end = text.slice(0, max).lastIndexOf("\n");
  return { text: safeSlice(text, end > max * 0.5 ? end : max), more: true };
}

/** `text` cut to `end` UTF-16 units, never inside a surrogate pair. */
function safeSlice(text: string, end: number): string {
  const last = text.charCodeAt(end - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end);
}

/**
 * The tool's text cannot close or open the block it is shown in: its own `<persisted-output>` tags
 * are shown with `&lt;` (a file's content is data, never the frame around it).
 */
function neutral(text: string): string {
  return text.replace(/<(\/?)(persisted-output|truncated-output)>/g, "&lt;$1$2>");
}

/** What the model gets for a result of `size` characters saved whole at `path`. */
export function persistedMessage(text: string, path: string): string {
  const head = preview(text);
  return `${OPEN}\nOutput too large (${formatSize(text.length)}). Full output saved to: ${path}\n\n` +
    `Preview (first ${formatSize(PREVIEW_CHARS)}):\n${neutral(head.text)}${
      head.more ? "\n...\n" : "\n"
    }${CLOSE}`;
}

/** What the model gets when the result could not be saved: its head, cut to about `max` characters. */
export function unsavedMessage(text: string, max: number): string {
  const note = (shown: number) =>
    `Output too large (${formatSize(text.length)}). It could not be saved, so only the first ${
      formatSize(shown)
    } are shown; the rest was dropped. If the tool can page or filter its results, call it again for the part you need.`;
  const head = preview(text, Math.max(0, max - note(max).length - 40)).text;
  return `<truncated-output>\n${note(head.length)}\n\n${neutral(head)}\n</truncated-output>`;
}
