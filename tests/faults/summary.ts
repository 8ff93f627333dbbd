// The fault suite's report: one line per category with its counts, printed when the category's last
// case has run, so `deno test tests/faults/` ends with lines the closing note can paste.

/** Prints `faults: <category>: <part>; <part>` on stdout. */
export function printSummary(category: string, parts: string[]): void {
  // deno-lint-ignore no-console
  console.log(`faults: ${category}: ${parts.join("; ")}`);
}
