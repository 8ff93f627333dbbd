// Owns secret redaction: replacing API keys in any text before it is written or printed, in every form
// a secret takes on the way (as written, JSON-escaped once or twice, URL-encoded), and in a stream of
// pieces (StreamRedactor: the joined text is what counts, so a secret split over deltas is caught). No I/O.

const MASK = "[REDACTED]";

/**
 * The forms of `secret` redaction looks for: as written; JSON-escaped (a `"` or `\` in it is written
 * `\"`, `\\` in every JSON line and transcript), and escaped again (JSON text inside a JSON string);
 * URL-encoded (encodeURIComponent, with upper- and lower-case hex, and encodeURI). Longest first.
 */
export function secretForms(secret: string): string[] {
  if (secret === "") return [];
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  const component = encodeURIComponent(secret);
  const forms = [
    secret,
    json(secret),
    json(json(secret)),
    component,
    component.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    encodeURI(secret),
  ];
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** Every form of every secret, longest first (so a form inside a longer one does not split it). */
export function allForms(secrets: readonly string[]): string[] {
  return [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length);
}

/** A function that replaces every form of every secret in a text with `[REDACTED]`. */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const forms = allForms(secrets);
  return (text) => redactWith(forms, text);
}

/**
 * Redacts a text that arrives in pieces (a model's text deltas): `push` returns what may be shown now,
 * holding back the longest end of the text so far that could be the start of a secret; `flush` returns
 * the rest when the stream ends. The pieces returned, joined, are the joined input redacted: a secret
 * split at any point is caught. `secrets` is read on every push (secrets found later count).
 */
export class StreamRedactor {
  #secrets: () => readonly string[];
  #pending = "";

  constructor(secrets: () => readonly string[]) {
    this.#secrets = secrets;
  }

  push(piece: string): string {
    const forms = allForms(this.#secrets());
    const text = redactWith(forms, this.#pending + piece);
    const keep = heldBack(forms, text);
    this.#pending = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  flush(): string {
    const rest = this.#pending;
    this.#pending = "";
    return rest;
  }
}

function redactWith(forms: readonly string[], text: string): string {
  return forms.reduce((t, s) => (t.includes(s) ? t.split(s).join(MASK) : t), text);
}

/** The length of the longest end of `text` that is a proper start of some form. */
function heldBack(forms: readonly string[], text: string): number {
  let keep = 0;
  for (const form of forms) {
    for (let n = Math.min(text.length, form.length - 1); n > keep; n--) {
      if (text.endsWith(form.slice(0, n))) {
        keep = n;
        break;
      }
    }
  }
  return keep;
}
