// Owns redacting secrets in a thread that must not hold them (a child Worker, docs/guides/permissions.md):
// the main thread turns each secret into a print (its length and two polynomial hashes of its UTF-16
// code units, modulo 2^32, under random odd bases chosen for that run), and the Worker replaces with
// `[REDACTED]` every stretch of a text whose hashes match, scanning with rolling hashes, as redactor()
// (redact.ts) replaces the secret itself. A stretch equal to the secret always matches, so nothing a
// direct redaction would catch is missed; a different stretch matching too (odds of about 2^-64 per
// position for text not made to collide) is redacted as well. A print does not give the secret back:
// 64 bits of hash for a key of hundreds (a secret of a dozen random characters or fewer could be
// searched for: those are the weak case). No I/O.

import { allForms } from "./redact.ts";

export interface SecretPrints {
  /** Two random odd bases. */
  bases: number[];
  prints: { length: number; hashes: number[] }[];
}

const MASK = "[REDACTED]";

/**
 * The prints of every form of `secrets` (as written, JSON-escaped, URL-encoded: redact.ts allForms, in
 * its order), with fresh random bases.
 */
export function secretPrints(
  secrets: readonly string[],
  random: (n: number) => number[] = randomWords,
): SecretPrints {
  const bases = random(2).map((r) => (r | 1) >>> 0);
  const prints = allForms(secrets).map((form) => ({
    length: form.length,
    hashes: bases.map((b) => hashOf(form, b)),
  }));
  return { bases, prints };
}

/** The redactor for `prints`: like redactor(secrets) (one secret after another, left to right). */
export function printRedactor(p: SecretPrints): (text: string) => string {
  if (p.prints.length === 0) return (text) => text;
  return (text) => p.prints.reduce((t, print) => redactOne(t, print, p.bases), text);
}

function redactOne(text: string, print: SecretPrints["prints"][number], bases: number[]): string {
  const n = print.length;
  if (text.length < n) return text;
  const [b0, b1] = bases as [number, number];
  const [w0, w1] = (print.hashes as [number, number]).map((h) => h | 0) as [number, number];
  // base^(n-1): removes the code unit leaving the window. All arithmetic is int32 (modulo 2^32).
  const t0 = power(b0, n - 1), t1 = power(b1, n - 1);
  let h0 = 0, h1 = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    h0 = (Math.imul(h0, b0) + c) | 0;
    h1 = (Math.imul(h1, b1) + c) | 0;
  }
  let out = "";
  let from = 0; // the text before `from` is in `out` already
  for (let start = 0;; start++) {
    if (h0 === w0 && h1 === w1 && start >= from) {
      out += text.slice(from, start) + MASK;
      from = start + n;
    }
    const end = start + n;
    if (end >= text.length) break;
    const gone = text.charCodeAt(start);
    const come = text.charCodeAt(end);
    h0 = (Math.imul((h0 - Math.imul(gone, t0)) | 0, b0) + come) | 0;
    h1 = (Math.imul((h1 - Math.imul(gone, t1)) | 0, b1) + come) | 0;
  }
  return from === 0 ? text : out + text.slice(from);
}

function hashOf(text: string, base: number): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, base) + text.charCodeAt(i)) | 0;
  return h >>> 0;
}

function power(base: number, exponent: number): number {
  let result = 1;
  for (let i = 0; i < exponent; i++) result = Math.imul(result, base);
  return result | 0;
}

function randomWords(n: number): number[] {
  return [...crypto.getRandomValues(new Uint32Array(n))];
}
