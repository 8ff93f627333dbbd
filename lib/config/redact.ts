// Owns secret redaction: replacing API keys in any text before it is written or printed. No I/O.

/** A function that replaces every secret in a text with `[REDACTED]`. */
export function redactor(secrets: readonly string[]): (text: string) => string {
  return (text) => secrets.reduce((t, s) => t.split(s).join("[REDACTED]"), text);
}
