// Owns the V8 flags Blade's own process runs with: `deno task blade` (deno.json, checked against this
// list by a test), the compiled binary and the release bundle (scripts/release_inputs.ts), and a copy
// of itself it starts under `deno run` (self.ts). V8's middle tiers are off: Sparkplug (the baseline
// compiler) and Maglev (the mid-tier optimiser) compile code a run of a few hundred milliseconds never
// earns back, on the thread it runs on or on the other of two cores, and their code costs memory.
// Measured, alternating against the same build without them (docs/reference/performance.md): the
// delegation 3–8 % faster and ~2 MiB smaller, a single turn 5–7 % faster; hot loops reach TurboFan as
// before (a 40,000-line parse and a tokenising loop ran as fast or faster).

/** The flags, each as V8 spells it. */
export const V8_FLAGS: readonly string[] = ["--no-maglev", "--no-sparkplug"];

/** Deno's flag that passes them on: `--v8-flags=a,b`. */
export function v8FlagsArg(): string {
  return `--v8-flags=${V8_FLAGS.join(",")}`;
}
