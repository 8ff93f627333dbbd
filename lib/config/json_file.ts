// Owns reading one JSON settings file: absent → undefined, unreadable JSON → a `config_invalid`
// BladeError naming the file. What the JSON must contain is the caller's business (Blade's settings
// schema, Claude Code's settings reader).

import type { Fs } from "../sys/fs.ts";
import { BladeError } from "../errors.ts";

/** The parsed JSON of `path`, or undefined when the file does not exist. */
export async function readJsonFile(fs: Fs, path: string): Promise<unknown> {
  const text = await fs.readTextIfExists(path);
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new BladeError("config_invalid", `${path} is not valid JSON: ${(e as Error).message}`, {
      hint: "Fix the file (it must be a JSON object) or remove it.",
    });
  }
}
