// Owns what every release artifact is made of: the entry module, the files and Worker entry modules
// embedded beside it, and the Deno flags it runs with. The flags come from the one source the `blade`
// task is checked against (bladeProcessPermissions + toDenoFlags) plus the unstable features listed in
// deno.json, so the compiled binary, the bundle launcher and `deno task blade` cannot drift apart.
// Does not build anything: release.ts (deno compile) and bundle.ts (deno bundle) do.

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bladeProcessPermissions, toDenoFlags } from "../lib/permissions/deno_permissions.ts";
import { v8FlagsArg } from "../lib/sys/v8_flags.ts";

/** The repository root (the scripts run `deno` there). */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

export const CONFIG_FILE = "deno.json";

/** Blade's entry module, relative to ROOT. */
export const ENTRY = "main.ts";

/**
 * Folders embedded as plain files. The built-in agents also live in a generated module
 * (lib/registry/builtin_agents.gen.ts), so Blade needs no file at run time; the Markdown sources are
 * embedded as well so the binary carries them as shipped.
 */
export const EMBEDDED_DIRS: readonly string[] = ["agents/"];

/**
 * Modules started as Worker entries (`new Worker(new URL(...))` or startSandbox): neither
 * `deno compile` nor `deno bundle` follows those URLs, so each must be named. Child runs execute in
 * lib/child/child_worker.ts with their own Deno permissions (docs/reference/permissions.md).
 */
export const WORKER_ENTRIES: readonly string[] = ["lib/child/child_worker.ts"];

/** `--unstable-<feature>` for each feature in deno.json's "unstable" list. */
export async function unstableFlags(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, CONFIG_FILE))) as { unstable?: unknown };
  const features = Array.isArray(config.unstable) ? config.unstable : [];
  return features.filter((f): f is string => typeof f === "string").map((f) => `--unstable-${f}`);
}

/**
 * The flags Blade runs with outside `deno task blade`: the scoped permissions (never -A, always
 * --no-prompt, --ignore-env for the yaml package), the unstable features and Blade's V8 flags.
 */
export async function bladeRunFlags(): Promise<string[]> {
  return [...toDenoFlags(bladeProcessPermissions()), ...await unstableFlags(), v8FlagsArg()];
}
