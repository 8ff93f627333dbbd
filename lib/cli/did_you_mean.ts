// Owns "did you mean": the edit distance between a mistyped word and the words it may have meant
// (optimal string alignment: insert, delete, substitute, or swap two neighbours, each one edit), and
// the nearest candidate within a bound. Pure; the CLI uses it for subcommands.

/** The optimal-string-alignment distance between `a` and `b` (a swap of neighbours is one edit). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => i + j));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate `word` most likely meant: at most `maxDistance` edits away (default 2) and fewer edits
 * than half the word's length, so a short ordinary word ("test", "fun") is not taken for a command.
 * Ties go to the earlier candidate; an exact match is not a typo (undefined).
 */
export function nearestWord(
  word: string,
  candidates: readonly string[],
  options: { maxDistance?: number } = {},
): string | undefined {
  const max = options.maxDistance ?? 2;
  let best: { word: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === word) return undefined;
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance > max || distance * 2 >= word.length) continue;
    if (best === undefined || distance < best.distance) best = { word: candidate, distance };
  }
  return best?.word;
}
